// git run on hostile repositories: a `path` source's own .git/config (filters, fsmonitor, hooks) and a cached copy
// with hooks or config planted in it must never make git run a command. Every attack writes a marker file when it
// runs; the markers must stay absent while the honest part of the fetch still succeeds.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { markers } from '../helpers/markers.ts';
import { gitIn, gitRepo, tempDir, writeTree } from '../helpers/tree.ts';

const ctx = quietContext();

function config(sources: object[], cacheDir = tempDir('nnb-cache-')) {
  return resolveConfig({ name: 't', cacheDir, sources }, join(tempDir('nnb-proj-'), 'corpus.json'));
}

function plantHook(gitDir: string, hook: string, script: string) {
  writeFileSync(join(gitDir, 'hooks', hook), `#!/bin/sh\nexec '${script}' </dev/null\n`);
  chmodSync(join(gitDir, 'hooks', hook), 0o755);
}

const FIXTURE = {
  'pkg/__init__.py': '',
  'pkg/blocks.py': 'import torch.nn as nn\nclass Block(nn.Module):\n    pass\n',
};

describe('a path source’s own git config', () => {
  it('runs no clean filter, fsmonitor or hook of the checkout while recording commit and dirtiness', async () => {
    const m = markers();
    const repo = gitRepo({ ...FIXTURE, '.gitattributes': '*.py filter=x\n*.txt filter=y\n', 'data.txt': 'd\n' });
    gitIn(repo.dir, 'config', 'filter.x.clean', m.script('clean-filter'));
    gitIn(repo.dir, 'config', 'filter.x.process', m.script('process-filter'));
    gitIn(repo.dir, 'config', 'filter.x.required', 'true');
    // A driver defined in an included file is still one git would run.
    writeFileSync(join(repo.dir, '.git', 'extra.cfg'), `[filter "y"]\n\tclean = ${m.script('included-filter')}\n`);
    gitIn(repo.dir, 'config', 'include.path', 'extra.cfg');
    gitIn(repo.dir, 'config', 'core.fsmonitor', m.script('fsmonitor'));
    gitIn(repo.dir, 'config', 'core.hooksPath', join(repo.dir, '.git', 'hooks'));
    for (const hook of ['post-index-change', 'reference-transaction', 'post-checkout'])
      plantHook(join(repo.dir, '.git'), hook, m.script(hook));
    // Same size, new mtime: git can only tell whether the files changed by hashing them through the filter.
    const later = new Date(Date.now() + 60_000);
    for (const f of ['pkg/blocks.py', 'data.txt']) utimesSync(join(repo.dir, f), later, later);

    const { snapshots, diagnostics } = await fetchSources(config([{ id: 'fx', kind: 'path', path: repo.dir }]), ctx);
    expect(m.fired()).toEqual([]);
    expect(diagnostics).toEqual([]);
    expect(snapshots[0]).toMatchObject({ status: 'fetched', commit: repo.commit, dirty: false });
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['pkg/__init__.py', 'pkg/blocks.py']);
  });
});

describe('a cached git copy', () => {
  it('runs no hook planted in its .git/hooks on the next fetch', async () => {
    const m = markers();
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    expect((await fetchSources(c, ctx)).snapshots[0].status).toBe('fetched');
    const gitDir = join(c.cacheDir, 'sources', 'fx', 'tree', '.git');
    const hooks = ['post-checkout', 'post-merge', 'reference-transaction', 'pre-auto-gc', 'post-index-change'];
    execFileSync('mkdir', ['-p', join(gitDir, 'hooks')]);
    for (const hook of hooks) plantHook(gitDir, hook, m.script(hook));

    writeTree({ 'pkg/extra.py': 'X = 1\n' }, repo.dir);
    gitIn(repo.dir, 'add', '-A');
    gitIn(repo.dir, 'commit', '-q', '-m', 'more');
    const updated = await fetchSources(c, ctx);
    expect(updated.snapshots[0].status).toBe('updated');
    expect(updated.snapshots[0].files.map((f) => f.path)).toContain('pkg/extra.py');
    // The import root changes: `sparse-checkout set` on the copy runs no hook either.
    const wider = config(
      [{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', include: ['pkg/**/*.py'], importRoot: 'pkg' }],
      c.cacheDir,
    );
    expect((await fetchSources(wider, ctx)).snapshots[0].status).toBe('updated');
    expect(m.fired()).toEqual([]);
  });

  it('has its planted .git/config replaced before git reads it: no upload-pack, smudge filter or other remote', async () => {
    const m = markers();
    const repo = gitRepo(FIXTURE);
    const elsewhere = gitRepo({ 'pkg/__init__.py': '', 'pkg/planted.py': 'EVIL = 1\n' });
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    const gitDir = join(c.cacheDir, 'sources', 'fx', 'tree', '.git');
    const planted = [
      '[remote "origin"]',
      // The file transport runs upload-pack through the shell.
      `\tuploadpack = ${m.script('upload-pack')} </dev/null; git-upload-pack`,
      `\turl = file://${elsewhere.dir}`,
      '[filter "x"]',
      `\tsmudge = ${m.script('smudge-filter')}`,
      `\tclean = ${m.script('clean-filter')}`,
      '[core]',
      `\tfsmonitor = ${m.script('fsmonitor')}`,
      `\tsshCommand = ${m.script('ssh-command')}`,
      '',
    ].join('\n');
    writeFileSync(join(gitDir, 'config'), readFileSync(join(gitDir, 'config'), 'utf8') + planted);
    writeFileSync(join(gitDir, 'info', 'attributes'), '* filter=x\n');

    writeTree({ 'pkg/extra.py': 'X = 1\n' }, repo.dir);
    gitIn(repo.dir, 'add', '-A');
    gitIn(repo.dir, 'commit', '-q', '-m', 'more');
    const { snapshots } = await fetchSources(c, ctx);
    expect(m.fired()).toEqual([]);
    expect(snapshots[0]).toMatchObject({ status: 'updated', commit: gitIn(repo.dir, 'rev-parse', 'HEAD') });
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['pkg/__init__.py', 'pkg/blocks.py', 'pkg/extra.py']);
    expect(readFileSync(join(gitDir, 'config'), 'utf8')).not.toContain(elsewhere.dir);
    expect(existsSync(join(c.cacheDir, 'sources', 'fx', 'tree', 'pkg', 'planted.py'))).toBe(false);
  });

  it('reads no config through a planted commondir (git takes a worktree’s config from there)', async () => {
    const m = markers();
    const repo = gitRepo(FIXTURE);
    const elsewhere = gitRepo({ 'pkg/__init__.py': '', 'pkg/planted.py': 'EVIL = 1\n' });
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    const gitDir = join(c.cacheDir, 'sources', 'fx', 'tree', '.git');
    // A repository of the attacker's whose config git would read instead of the one we rewrite.
    const common = tempDir('nnb-common-');
    execFileSync('cp', ['-r', `${gitDir}/.`, common]);
    const planted = [
      '[remote "origin"]',
      `\tuploadpack = ${m.script('upload-pack')} </dev/null; git-upload-pack`,
      `\turl = file://${elsewhere.dir}`,
      '[core]',
      `\tfsmonitor = ${m.script('fsmonitor')}`,
      '',
    ].join('\n');
    writeFileSync(join(common, 'config'), readFileSync(join(common, 'config'), 'utf8') + planted);
    writeFileSync(join(gitDir, 'commondir'), `${common}\n`);

    writeTree({ 'pkg/extra.py': 'X = 1\n' }, repo.dir);
    gitIn(repo.dir, 'add', '-A');
    gitIn(repo.dir, 'commit', '-q', '-m', 'more');
    const { snapshots } = await fetchSources(c, ctx);
    expect(m.fired()).toEqual([]);
    expect(snapshots[0]).toMatchObject({
      status: 'updated',
      commit: gitIn(repo.dir, 'rev-parse', 'HEAD'),
      hidden: ['.git'],
    });
    expect(existsSync(join(c.cacheDir, 'sources', 'fx', 'tree', 'pkg', 'planted.py'))).toBe(false);
  });
});
