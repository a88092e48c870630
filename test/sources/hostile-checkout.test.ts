// A `path` source's git checkout is hostile: any key of its config (and of files the config includes, and of a
// repository a `.git` file points at) can name a program git runs — `gpg.program` under `log.showSignature`,
// `core.fsmonitor`, `core.pager`, `diff.external`, a promisor remote's `uploadpack`. Every attack writes a marker
// (holding the environments it could read) when it runs: the markers must stay absent, the secret of the test's
// environment must appear nowhere, and the source must still report its commit, date and dirtiness.
import { execFileSync } from 'node:child_process';
import { renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { markers, SIGNED_DATE, signHead } from '../helpers/markers.ts';
import { gitIn, gitRepo, tempDir } from '../helpers/tree.ts';

const ctx = quietContext();
const CANARY = `nnb-secret-${process.pid}-checkout`;
beforeEach(() => void (process.env.NNBLOCKS_CANARY = CANARY));
afterEach(() => void delete process.env.NNBLOCKS_CANARY);

const FIXTURE = {
  'pkg/__init__.py': '',
  'pkg/blocks.py': 'import torch.nn as nn\nclass Block(nn.Module):\n    pass\n',
};
const DATE = SIGNED_DATE;

async function snapshotOf(path: string, repository?: string) {
  const c = resolveConfig(
    {
      name: 't',
      cacheDir: tempDir('nnb-cache-'),
      sources: [{ id: 'fx', kind: 'path', path, ...(repository ? { repository } : {}) }],
    },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
  const { snapshots } = await fetchSources(c, ctx);
  expect(JSON.stringify(snapshots)).not.toContain(CANARY);
  return snapshots[0];
}

/** Config that runs `script` on `git show`, `git status` or anything that pages or diffs. */
const ARMED = (script: string) => [
  '[gpg]',
  `\tprogram = ${script}`,
  '[gpg "ssh"]',
  `\tprogram = ${script}`,
  '[log]',
  '\tshowSignature = true',
  '[core]',
  `\tfsmonitor = ${script}`,
  `\tpager = ${script}`,
  `\tsshCommand = ${script}`,
  '[diff]',
  `\texternal = ${script}`,
  '[pager]',
  `\tshow = ${script}`,
  `\tstatus = ${script}`,
  '',
];

describe('a path source’s git checkout', () => {
  it('runs no gpg.program under log.showSignature (the root-on-the-host attack) and still reads the date', async () => {
    const m = markers();
    const repo = gitRepo({ ...FIXTURE, 'evil.sh': `#!/bin/sh\nexec '${m.script('gpg')}'\n` });
    execFileSync('chmod', ['+x', join(repo.dir, 'evil.sh')]);
    gitIn(repo.dir, 'commit', '-qam', 'x'); // evil.sh as an executable, committed: the tree is clean
    gitIn(repo.dir, 'config', 'gpg.program', './evil.sh');
    gitIn(repo.dir, 'config', 'log.showSignature', 'true');
    const commit = signHead(repo.dir);

    const s = await snapshotOf(repo.dir);
    expect(m.fired()).toEqual([]);
    expect(s).toMatchObject({ status: 'fetched', commit, commitDate: DATE, dirty: false });
    expect(s.diagnostics).toEqual([]);
  });

  it('reads no config the checkout includes (include.path, includeIf) and runs none of its programs', async () => {
    const m = markers();
    const repo = gitRepo(FIXTURE);
    const commit = signHead(repo.dir);
    writeFileSync(join(repo.dir, '.git', 'armed.cfg'), ARMED(m.script('included')).join('\n'));
    gitIn(repo.dir, 'pack-refs', '--all'); // the branch is then read from packed-refs
    gitIn(repo.dir, 'config', 'include.path', 'armed.cfg');
    gitIn(repo.dir, 'config', 'includeIf.gitdir:/.path', join(repo.dir, '.git', 'armed.cfg'));
    // A file with a new mtime: the status must look at it (an fsmonitor or a diff would run here).
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(repo.dir, 'pkg', 'blocks.py'), later, later);

    const s = await snapshotOf(repo.dir);
    expect(m.fired()).toEqual([]);
    expect(s).toMatchObject({ commit, commitDate: DATE, dirty: false });
  });

  it('follows a .git file to its repository without reading that repository’s config', async () => {
    const m = markers();
    const real = gitRepo(FIXTURE);
    const commit = signHead(real.dir);
    writeFileSync(join(real.dir, '.git', 'config'), ARMED(m.script('gitfile-target')).join('\n'), { flag: 'a' });
    // The checkout's files, with a .git FILE naming where its repository lives (as `git worktree` and submodules do).
    const checkout = tempDir('nnb-gitfile-');
    execFileSync('cp', ['-r', join(real.dir, 'pkg'), checkout]);
    writeFileSync(join(checkout, '.git'), `gitdir: ${join(real.dir, '.git')}\n`);

    const s = await snapshotOf(checkout);
    expect(m.fired()).toEqual([]);
    expect(s).toMatchObject({ commit, commitDate: DATE, dirty: false, hidden: ['.git'] });
  });

  it('records a linked worktree’s own HEAD and dirtiness (commondir followed as data)', async () => {
    const main = gitRepo(FIXTURE);
    const wt = join(tempDir('nnb-wt-'), 'side');
    gitIn(main.dir, 'worktree', 'add', '-q', '-b', 'side', wt);
    writeFileSync(join(wt, 'pkg', 'extra.py'), 'X = 1\n');
    gitIn(wt, 'add', '-A');
    gitIn(wt, 'commit', '-qm', 'side');
    const side = gitIn(wt, 'rev-parse', 'HEAD');
    expect(await snapshotOf(wt)).toMatchObject({ commit: side, dirty: false, hidden: ['.git'] });
    writeFileSync(join(wt, 'pkg', 'blocks.py'), 'changed = 1\n');
    expect(await snapshotOf(wt)).toMatchObject({ commit: side, dirty: true });
  });

  it('never fetches a missing commit from a promisor remote (partialClone + uploadpack)', async () => {
    const m = markers();
    const repo = gitRepo(FIXTURE);
    const elsewhere = gitRepo({ 'x.py': '' });
    gitIn(repo.dir, 'config', 'core.repositoryformatversion', '1');
    gitIn(repo.dir, 'config', 'extensions.partialClone', 'origin');
    gitIn(repo.dir, 'config', 'remote.origin.url', `file://${elsewhere.dir}`);
    gitIn(repo.dir, 'config', 'remote.origin.promisor', 'true');
    // The file transport runs upload-pack through the shell.
    gitIn(repo.dir, 'config', 'remote.origin.uploadpack', `${m.script('upload-pack')} </dev/null; git-upload-pack`);
    // HEAD names a commit the repository does not have: git would fetch it lazily from the promisor remote.
    const loose = join(repo.dir, '.git', 'objects', repo.commit.slice(0, 2), repo.commit.slice(2));
    renameSync(loose, `${loose}.gone`);

    const s = await snapshotOf(repo.dir);
    expect(m.fired()).toEqual([]);
    expect(s.status).toBe('fetched');
    expect(s.commitDate).toBeUndefined();
  });

  it('keeps the checkout’s config out of the way when the folder is below the checkout’s top', async () => {
    const m = markers();
    const repo = gitRepo({ ...FIXTURE, 'docs/x.txt': 'd\n' });
    const commit = signHead(repo.dir);
    writeFileSync(join(repo.dir, '.git', 'config'), ARMED(m.script('subfolder')).join('\n'), { flag: 'a' });
    writeFileSync(join(repo.dir, 'docs', 'x.txt'), 'changed outside the folder\n');

    const s = await snapshotOf(join(repo.dir, 'pkg'));
    expect(m.fired()).toEqual([]);
    // Dirtiness is about the folder: a change elsewhere in the checkout does not count.
    expect(s).toMatchObject({ commit, commitDate: DATE, dirty: false });
    expect(s.hidden).toBeUndefined(); // the .git is above the root: nothing of it is under the folder
  });

  it('hides a .git file and the repository it points at inside the folder', async () => {
    const real = gitRepo(FIXTURE);
    const store = join(real.dir, '.store');
    renameSync(join(real.dir, '.git'), store);
    writeFileSync(join(real.dir, '.git'), 'gitdir: .store\n');
    const s = await snapshotOf(real.dir);
    expect(s).toMatchObject({ commit: real.commit, hidden: ['.git', '.store'] });
  });

  it('reads the origin as data: credentials stripped, insteadOf rewrites and core.worktree ignored', async () => {
    const repo = gitRepo(FIXTURE);
    const elsewhere = tempDir('nnb-elsewhere-');
    writeFileSync(join(elsewhere, 'junk.py'), 'X = 1\n');
    gitIn(repo.dir, 'config', 'remote.origin.url', 'https://user:tok3n@github.com/owner/repo.git');
    gitIn(repo.dir, 'config', 'url.https://evil.example/.insteadOf', 'https://user:tok3n@github.com/');
    gitIn(repo.dir, 'config', 'core.worktree', elsewhere); // git would take the status of that folder
    const s = await snapshotOf(repo.dir);
    expect(s).toMatchObject({ commit: repo.commit, dirty: false, repository: 'https://github.com/owner/repo' });
    expect(s.diagnostics).toEqual([expect.objectContaining({ code: 'url-credentials' })]);
    expect(JSON.stringify(s)).not.toContain('tok3n');
  });

  it("takes the config's `repository` over an origin that names no forge (a clone of a local mirror)", async () => {
    const repo = gitRepo(FIXTURE);
    gitIn(repo.dir, 'config', 'remote.origin.url', '/srv/mirrors/detr');
    expect((await snapshotOf(repo.dir)).repository).toBeUndefined();
    const s = await snapshotOf(repo.dir, 'https://github.com/facebookresearch/detr');
    expect(s).toMatchObject({ commit: repo.commit, repository: 'https://github.com/facebookresearch/detr' });
  });

  it('reads a sha256 repository (the object format is the one config value that must carry over)', async () => {
    const dir = tempDir('nnb-sha256-');
    gitIn(dir, 'init', '-q', '--object-format=sha256', '-b', 'main');
    writeFileSync(join(dir, 'm.py'), 'A = 1\n');
    gitIn(dir, 'add', '-A');
    gitIn(dir, 'commit', '-qm', 'x');
    const commit = gitIn(dir, 'rev-parse', 'HEAD');
    expect(commit).toMatch(/^[0-9a-f]{64}$/);
    expect(await snapshotOf(dir)).toMatchObject({ commit, dirty: false, commitDate: expect.stringMatching(/^\d{4}-/) });
  });

  it('follows HEAD only to ref names below refs/: `ref: refs/../../x` leads nowhere', async () => {
    const repo = gitRepo(FIXTURE);
    writeFileSync(join(repo.dir, '.git', 'HEAD'), 'ref: refs/heads/../../../../../../../etc/hostname\n');
    const s = await snapshotOf(repo.dir);
    expect(s.status).toBe('fetched');
    expect(s.commit).toBeUndefined();
  });
});
