// runGit, the one place git is spawned (through simple-git): what a call does beyond its arguments — a failure is
// one even when git says nothing, a wall-clock limit and an output cap stop it, simple-git's guard still refuses
// what we never switched off, and a credentialed URL neither trips that guard nor reaches a debug log.
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRunError, gitError, runGit } from '../../pipeline/sources/git-run.ts';
import { markers } from '../helpers/markers.ts';
import { gitIn, gitRepo, tempDir } from '../helpers/tree.ts';

const inRepo = (dir: string) => ({ gitDir: join(dir, '.git'), workTree: dir, cwd: dir });

describe('runGit', () => {
  const sshBefore = process.env.GIT_SSH_COMMAND;
  afterEach(() => {
    if (sshBefore === undefined) delete process.env.GIT_SSH_COMMAND;
    else process.env.GIT_SSH_COMMAND = sshBefore;
  });

  it('resolves to trimmed stdout', async () => {
    const repo = gitRepo({ 'a.py': 'A = 1\n' });
    expect(await runGit(['rev-parse', 'HEAD'], inRepo(repo.dir))).toBe(repo.commit);
  });

  it('rejects when git exits non-zero without a word on stderr (simple-git alone would resolve to "")', async () => {
    const repo = gitRepo({ 'a.py': 'A = 1\n' });
    const err = await runGit(['rev-parse', '--verify', '-q', `${'0'.repeat(40)}^{commit}`], inRepo(repo.dir)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GitRunError);
    expect(err).toMatchObject({ exitCode: 1, stderr: '' });
  });

  it('rejects a working directory that does not exist, before git starts', async () => {
    await expect(runGit(['status'], { cwd: join(tempDir('nnb-gone-'), 'gone') })).rejects.toThrow(/does not exist/);
  });

  it('keeps git’s fatal line as the failure, credentials removed', async () => {
    const err = await runGit(['ls-remote', '--', 'https://u:tok@127.0.0.1:9/none'], { timeoutMs: 30_000 }).catch(
      (e: unknown) => e,
    );
    expect(gitError(err)).toMatch(/^fatal: unable to access 'https:\/\/127\.0\.0\.1:9\/none\/'/);
  });

  it('stops a call at its wall-clock limit, even while git waits in silence', async () => {
    // The user's own GIT_SSH_COMMAND is passed through: here, an "ssh" that never answers.
    const ssh = join(tempDir('nnb-ssh-'), 'ssh.sh');
    writeFileSync(ssh, '#!/bin/sh\nexec sleep 5\n');
    chmodSync(ssh, 0o755);
    process.env.GIT_SSH_COMMAND = ssh;
    const started = Date.now();
    const err = await runGit(['ls-remote', '--', 'ssh://example.invalid/r'], { timeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ stopped: 'timeout', message: 'git ls-remote timed out after 500 ms' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops a call whose output passes the cap (64 MiB) instead of holding it all', async () => {
    const repo = gitRepo({ 'a.py': 'A = 1\n' });
    const big = join(tempDir('nnb-big-'), 'big');
    writeFileSync(big, Buffer.alloc(65 * 1024 * 1024, 'a'));
    const blob = gitIn(repo.dir, 'hash-object', '-w', big);
    const err = await runGit(['cat-file', 'blob', blob], inRepo(repo.dir)).catch((e: unknown) => e);
    expect(err).toMatchObject({ stopped: 'output', message: 'git cat-file wrote too much' });
  });

  it('still refuses what the guard watches and our settings never needed (--upload-pack runs a command)', async () => {
    const m = markers();
    const repo = gitRepo({ 'a.py': 'A = 1\n' });
    const err = await runGit(['ls-remote', `--upload-pack=${m.script('upload-pack')}`, '--', repo.dir]).catch(
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/allowUnsafePack/);
    expect(m.fired()).toEqual([]);
  });

  it('fetches through a credentialed URL whose text spells guarded keys (alias, protocol…allow)', async () => {
    const repo = gitRepo({ 'a.py': 'A = 1\n' }, tempDir('nnb-alias-protocol-allow-'));
    const url = `file://${repo.dir}`;
    const config: [string, string][] = [[`url.file://user:tok@${repo.dir}.insteadOf`, url]];
    expect(await runGit(['ls-remote', '--', url, 'HEAD'], { config })).toBe(`${repo.commit}\tHEAD`);
  });

  it('prints no credentialed URL even when DEBUG asks for simple-git’s log', () => {
    const repo = gitRepo({ 'a.py': 'A = 1\n' });
    const token = `tok${Math.random().toString(36).slice(2)}`;
    const gitRun = join(import.meta.dirname, '../../pipeline/sources/git-run.ts');
    const script = `
      const { runGit } = await import(${JSON.stringify(gitRun)});
      const url = ${JSON.stringify(`file://${repo.dir}`)};
      await runGit(['ls-remote', '--', url, 'HEAD'], { config: [[${JSON.stringify(`url.file://u:${token}@${repo.dir}.insteadOf`)}, url]] });
      console.log('done');
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, DEBUG: '*' },
      encoding: 'utf8',
    });
    expect(run.stdout.trim(), run.stderr).toBe('done');
    expect(run.stderr).not.toContain(token);
  });
});
