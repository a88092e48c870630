// git sources against real fixture repositories cloned through file:// URLs: first fetch, ref updates, pinned
// commits, unreachable URLs with stale reuse, refs missing upstream, and two runs sharing one cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { gitIn, gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

const MIT = 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy...\n';

const FIXTURE = {
  LICENSE: MIT,
  'README.md': '# fixture\n',
  'pkg/__init__.py': '',
  'pkg/blocks.py': py`
    import torch.nn as nn
    class Block(nn.Module):
        def forward(self, x):
            return x
  `,
  'pkg/tests/test_blocks.py': 'def test(): pass\n',
  'weights/model.bin': Buffer.alloc(4096, 1), // not code: the sparse checkout leaves it out
};

function commitFile(repo: string, path: string, content: string): string {
  writeTree({ [path]: content }, repo);
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', `add ${path}`);
  return gitIn(repo, 'rev-parse', 'HEAD');
}

function config(sources: object[], cacheDir = tempDir('nnb-cache-')) {
  return resolveConfig({ name: 't', cacheDir, sources }, join(tempDir('nnb-proj-'), 'corpus.json'));
}

const ctx = quietContext();
const fetchHeadTime = (cacheDir: string, id: string) =>
  statSync(join(cacheDir, 'sources', id, 'tree', '.git', 'FETCH_HEAD')).mtimeMs;

describe('git sources', () => {
  it('removes the partial folders of first fetches killed earlier', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    // What a first fetch killed by SIGKILL leaves behind (its pid is in the name; nothing removes it otherwise).
    const stale = join(c.cacheDir, 'sources', 'fx', 'tree.partial-999999');
    mkdirSync(join(stale, 'pkg'), { recursive: true });
    expect((await fetchSources(c, ctx)).snapshots[0].status).toBe('fetched');
    expect(existsSync(stale)).toBe(false);
  });

  it('first fetch: shallow, code only, commit recorded, globs applied, license read', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', exclude: ['**/tests/**'] }]);
    const { snapshots, diagnostics } = await fetchSources(c, ctx);
    expect(diagnostics).toEqual([]);
    const s = snapshots[0];
    expect(s).toMatchObject({
      id: 'fx',
      kind: 'git',
      status: 'fetched',
      commit: repo.commit,
      ref: 'main',
      url: `file://${repo.dir}`,
      priority: 1,
    });
    // Excluded from discovery, still there for resolution: the checkout holds every Python file.
    expect(s.files.map((f) => [f.path, f.discover ?? true])).toEqual([
      ['pkg/__init__.py', true],
      ['pkg/blocks.py', true],
      ['pkg/tests/test_blocks.py', false],
    ]);
    expect(s.license).toEqual({ spdx: 'MIT', method: 'LICENSE file (MIT text)', file: 'LICENSE' });
    expect(s.root).toBe(join(c.cacheDir, 'sources', 'fx', 'tree'));
    expect(s.importRoot).toBe(s.root);
    expect(existsSync(join(s.root, 'weights', 'model.bin'))).toBe(false);
    expect(existsSync(join(s.root, 'README.md'))).toBe(true);
    expect(gitIn(s.root, 'rev-parse', '--is-shallow-repository')).toBe('true');
    // The commit's own date, as the origin repository tells it: a citation's year comes from it.
    expect(s.commitDate).toBe(gitIn(repo.dir, 'show', '-s', '--format=%cI', repo.commit));
    expect(s.commitDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)$/);
  });

  it('a mirror names the public repository it copies: provenance cites that, not the local path', async () => {
    const repo = gitRepo(FIXTURE);
    const mirror = { id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' };
    const named = config([{ ...mirror, repository: 'https://github.com/example/fixture.git' }]);
    expect((await fetchSources(named, ctx)).snapshots[0]).toMatchObject({
      url: `file://${repo.dir}`,
      repository: 'https://github.com/example/fixture',
    });
    expect((await fetchSources(config([mirror]), ctx)).snapshots[0].repository).toBeUndefined();
  });

  it('a branch is fetched again only when it moved', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    const fetchedAt = fetchHeadTime(c.cacheDir, 'fx');

    // Unchanged branch: ls-remote says the same commit, so nothing is fetched (FETCH_HEAD untouched).
    const again = await fetchSources(c, ctx);
    expect(again.snapshots[0]).toMatchObject({ status: 'unchanged', commit: repo.commit });
    expect(fetchHeadTime(c.cacheDir, 'fx')).toBe(fetchedAt);

    // A new commit on the branch: the next run updates to it.
    const next = commitFile(repo.dir, 'pkg/extra.py', 'X = 1\n');
    const updated = await fetchSources(c, ctx);
    expect(updated.snapshots[0]).toMatchObject({ status: 'updated', commit: next });
    expect(updated.snapshots[0].files.map((f) => f.path)).toContain('pkg/extra.py');
  });

  it('a tag resolves to the commit it points at (annotated tags peeled)', async () => {
    const repo = gitRepo(FIXTURE);
    gitIn(repo.dir, 'tag', '-a', 'v1.0', '-m', 'release');
    commitFile(repo.dir, 'pkg/later.py', 'Y = 2\n');
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'v1.0' }]);
    expect((await fetchSources(c, ctx)).snapshots[0]).toMatchObject({ status: 'fetched', commit: repo.commit });
    expect((await fetchSources(c, ctx)).snapshots[0]).toMatchObject({ status: 'unchanged', commit: repo.commit });
  });

  it('a pinned commit is never refetched: the second run works with the upstream gone', async () => {
    const repo = gitRepo(FIXTURE);
    commitFile(repo.dir, 'pkg/later.py', 'Y = 2\n');
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: repo.commit }]);
    const first = await fetchSources(c, ctx);
    expect(first.snapshots[0]).toMatchObject({ status: 'fetched', commit: repo.commit });
    expect(first.snapshots[0].files.map((f) => f.path)).not.toContain('pkg/later.py');
    renameSync(repo.dir, `${repo.dir}-moved`); // any network access would now fail
    const second = await fetchSources(c, ctx);
    expect(second.snapshots[0]).toMatchObject({ status: 'unchanged', commit: repo.commit, diagnostics: [] });
  });

  it('an unreachable URL is a diagnostic with git’s error; the other sources proceed', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([
      { id: 'gone', kind: 'git', url: `file://${tempDir()}/no-such-repo`, ref: 'main' },
      { id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' },
    ]);
    const { snapshots, diagnostics } = await fetchSources(c, ctx);
    expect(snapshots.map((s) => s.status)).toEqual(['failed', 'fetched']);
    expect(snapshots[0].files).toEqual([]);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'source-unreachable',
        severity: 'error',
        source: 'gone',
        stage: 'sources',
        message: expect.stringMatching(/does not appear to be a git repository/),
        hint: expect.stringContaining('check the URL'),
      }),
    ]);
  });

  it('an earlier copy is reused and marked stale when the upstream becomes unreachable', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    renameSync(repo.dir, `${repo.dir}-moved`);
    const { snapshots } = await fetchSources(c, ctx);
    expect(snapshots[0]).toMatchObject({ status: 'stale', commit: repo.commit });
    expect(snapshots[0].files.map((f) => f.path)).toContain('pkg/blocks.py');
    expect(snapshots[0].diagnostics).toEqual([
      expect.objectContaining({
        code: 'source-unreachable',
        severity: 'warning',
        hint: expect.stringContaining('earlier copy is used'),
      }),
    ]);
  });

  it('a ref that does not exist upstream fails the source, even with an earlier copy (not stale)', async () => {
    // A misspelt ref after an earlier fetch once built the catalog from the old commit, status stale, exit 0.
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    const misspelt = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'mian' }], c.cacheDir);
    const { snapshots } = await fetchSources(misspelt, ctx);
    expect(snapshots[0]).toMatchObject({ status: 'failed', files: [] });
    expect(snapshots[0].commit).toBeUndefined();
    expect(snapshots[0].diagnostics).toEqual([
      expect.objectContaining({
        code: 'source-ref-missing',
        severity: 'error',
        message: expect.stringContaining('has no branch, tag or commit "mian"'),
        hint: expect.stringContaining('correct `ref`'),
      }),
    ]);
    // The copy is kept: the corrected ref finds it again without a new fetch.
    expect((await fetchSources(c, ctx)).snapshots[0]).toMatchObject({ status: 'unchanged', commit: repo.commit });
  });

  it('a ref missing on the first fetch, or a pinned commit the remote lacks, is source-ref-missing too', async () => {
    const repo = gitRepo(FIXTURE);
    const first = await fetchSources(config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'nope' }]), ctx);
    expect(first.snapshots[0]).toMatchObject({
      status: 'failed',
      diagnostics: [expect.objectContaining({ code: 'source-ref-missing', severity: 'error' })],
    });
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    await fetchSources(c, ctx);
    const sha = '0123456789abcdef0123456789abcdef01234567';
    const pinned = await fetchSources(
      config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: sha }], c.cacheDir),
      ctx,
    );
    expect(pinned.snapshots[0]).toMatchObject({
      status: 'failed',
      diagnostics: [expect.objectContaining({ code: 'source-ref-missing', message: expect.stringContaining(sha) })],
    });
  });

  it('two concurrent runs on one cache both succeed (one waits for the other’s lock)', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    const [a, b] = await Promise.all([fetchSources(c, ctx), fetchSources(c, ctx)]);
    expect([a.snapshots[0].status, b.snapshots[0].status].sort()).toEqual(['fetched', 'unchanged']);
    expect(a.snapshots[0].commit).toBe(repo.commit);
    expect(b.snapshots[0].files).toEqual(a.snapshots[0].files);
    expect(existsSync(join(c.cacheDir, 'sources', 'fx', '.lock'))).toBe(false);
  });

  it('a lock left by a dead process is taken over', async () => {
    const repo = gitRepo(FIXTURE);
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main' }]);
    const dead = spawnSync('true').pid!; // a pid that has exited
    writeTree(
      {
        'sources/fx/.lock': JSON.stringify({
          pid: dead,
          host: (await import('node:os')).hostname(),
          at: '2020-01-01T00:00:00Z',
        }),
      },
      c.cacheDir,
    );
    expect((await fetchSources(c, ctx)).snapshots[0].status).toBe('fetched');
  });

  it('the includes decide discovery only; a configured import root re-applies the sparse checkout', async () => {
    const repo = gitRepo({ ...FIXTURE, 'other/mod.py': 'Z = 3\n' });
    const c = config([{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', include: ['pkg/**/*.py'] }]);
    const first = await fetchSources(c, ctx);
    const other = (r: typeof first) => r.snapshots[0].files.find((f) => f.path === 'other/mod.py');
    // Outside the includes, inside the import root: checked out and listed for resolution.
    expect(existsSync(join(first.snapshots[0].root, 'other', 'mod.py'))).toBe(true);
    expect(other(first)).toMatchObject({ discover: false });
    const wider = config(
      [{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', include: ['pkg/**/*.py', 'other/*.py'] }],
      c.cacheDir,
    );
    const second = await fetchSources(wider, ctx);
    expect(second.snapshots[0]).toMatchObject({ status: 'unchanged', commit: repo.commit });
    expect(other(second)?.discover).toBeUndefined();
    // An import root bounds the resolution scope: the checkout narrows to it (plus the includes' folders).
    const rooted = config(
      [{ id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', include: ['pkg/**/*.py'], importRoot: 'pkg' }],
      c.cacheDir,
    );
    const third = await fetchSources(rooted, ctx);
    expect(third.snapshots[0]).toMatchObject({ status: 'updated', commit: repo.commit });
    expect(existsSync(join(third.snapshots[0].root, 'other', 'mod.py'))).toBe(false);
    expect(other(third)).toBeUndefined();
  });
});
