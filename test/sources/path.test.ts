// path sources and hostile trees: symlinks never lead out of the root, special and oversized files are skipped and
// recorded, src/ layouts are detected, and a git checkout's commit and dirtiness are recorded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { walkSource } from '../../pipeline/sources/walk.ts';
import { gitRepo, tempDir, writeTree } from '../helpers/tree.ts';

const ctx = quietContext();

async function snapshotOf(
  source: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  cacheDir = tempDir('nnb-cache-'),
) {
  const c = resolveConfig(
    { name: 't', cacheDir, sources: [{ id: 'fx', kind: 'path', ...source }], ...extra },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
  return (await fetchSources(c, ctx)).snapshots[0];
}

describe('hostile trees', () => {
  it('a symlink out of the source root is skipped and recorded, never followed', async () => {
    const outside = writeTree({ 'secret.py': 'TOKEN = "x"\n', 'dir/evil.py': 'import os\n' });
    const root = writeTree({ 'pkg/__init__.py': '', 'pkg/real.py': 'A = 1\n' });
    symlinkSync(join(outside, 'secret.py'), join(root, 'pkg', 'leak.py'));
    symlinkSync(join(outside, 'dir'), join(root, 'pkg', 'linked'));
    symlinkSync('../../../../../../../../etc/passwd', join(root, 'pkg', 'passwd.py'));
    symlinkSync('real.py', join(root, 'pkg', 'alias.py')); // inside the root: fine to read
    const s = await snapshotOf({ path: root });
    expect(s.files.map((f) => f.path)).toEqual(['pkg/__init__.py', 'pkg/alias.py', 'pkg/real.py']);
    expect(s.skipped).toEqual([
      { path: 'pkg/leak.py', reason: 'symlink-escape', detail: join(outside, 'secret.py') },
      { path: 'pkg/linked', reason: 'symlink-escape', detail: join(outside, 'dir') },
      { path: 'pkg/passwd.py', reason: 'symlink-escape', detail: '/etc/passwd' },
    ]);
  });

  it('files over maxFileBytes are skipped with their size; non-regular files are skipped', async () => {
    const root = writeTree({ 'small.py': 'A = 1\n', 'generated_table.py': `T = "${'x'.repeat(5000)}"\n` });
    execFileSync('mkfifo', [join(root, 'pipe.py')]); // reading a fifo would hang the walk
    const s = await snapshotOf({ path: root }, { maxFileBytes: 1000 });
    expect(s.files).toEqual([{ path: 'small.py', size: 6 }]);
    expect(s.skipped).toEqual([
      { path: 'generated_table.py', reason: 'too-large', detail: '5007 bytes > maxFileBytes 1000' },
      { path: 'pipe.py', reason: 'not-regular', detail: 'fifo, socket or device' },
    ]);
  });
});

describe('listing', () => {
  it('lists each file once when the entries to walk overlap (`pkg/sub` and `pkg`, a repeat)', () => {
    const root = writeTree({ 'pkg/__init__.py': '', 'pkg/sub/__init__.py': '', 'pkg/sub/m.py': 'A = 1\n' });
    const walked = walkSource(root, {
      include: ['**/*.py'],
      exclude: [],
      maxFileBytes: 1e6,
      tops: ['pkg/sub', 'pkg', 'pkg'],
    });
    expect(walked.files.map((f) => f.path)).toEqual(['pkg/__init__.py', 'pkg/sub/__init__.py', 'pkg/sub/m.py']);
  });
});

describe('path sources', () => {
  it('include/exclude select files; a src/ layout sets the import root; the license file is read', async () => {
    const root = writeTree({
      LICENSE: 'Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/\n',
      'src/lib/__init__.py': '',
      'src/lib/layers/conv.py': 'C = 1\n',
      'src/lib/layers/test_conv.py': 'def test(): pass\n',
      'src/lib/data.txt': 'not code\n',
      'setup.py': 'from setuptools import setup\n',
    });
    const s = await snapshotOf({
      path: root,
      include: ['src/**/*.py'],
      exclude: ['**/test_*.py'],
      domain: 'vision',
      priority: 2,
      symbols: ['Conv*'],
    });
    expect(s).toMatchObject({
      status: 'fetched',
      root,
      importRoot: join(root, 'src'),
      domain: 'vision',
      priority: 2,
      symbols: ['Conv*'],
    });
    // The excluded test module is below the import root: listed for resolution, not discovery. setup.py is
    // neither included nor importable (above the import root): not listed.
    expect(s.files.map((f) => [f.path, f.discover ?? true])).toEqual([
      ['src/lib/__init__.py', true],
      ['src/lib/layers/conv.py', true],
      ['src/lib/layers/test_conv.py', false],
    ]);
    expect(s.license).toEqual({ spdx: 'Apache-2.0', method: 'LICENSE file (Apache-2.0 text)', file: 'LICENSE' });
    expect(s.commit).toBeUndefined();
  });

  it('a configured importRoot wins over detection', async () => {
    const root = writeTree({ 'python/pkg/__init__.py': '', 'python/pkg/m.py': '' });
    expect((await snapshotOf({ path: root, importRoot: 'python' })).importRoot).toBe(join(root, 'python'));
  });

  it('a git checkout records its commit and whether it is dirty; the status follows changes', async () => {
    const repo = gitRepo({ 'pkg/__init__.py': '', 'pkg/m.py': 'A = 1\n' });
    const cache = tempDir('nnb-cache-');
    const clean = await snapshotOf({ path: repo.dir }, {}, cache);
    expect(clean).toMatchObject({ status: 'fetched', commit: repo.commit, dirty: false });
    expect(clean.commitDate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await snapshotOf({ path: repo.dir }, {}, cache)).status).toBe('unchanged');
    writeFileSync(join(repo.dir, 'pkg', 'm.py'), 'A = 2\n');
    expect(await snapshotOf({ path: repo.dir }, {}, cache)).toMatchObject({
      status: 'updated',
      commit: repo.commit,
      dirty: true,
    });
  });

  it('a same-size change in the second of the commit is dirty: the copied index keeps its mtime (racy git)', async () => {
    const repo = gitRepo({ 'pkg/__init__.py': '', 'pkg/m.py': 'A = 1\n' });
    const file = join(repo.dir, 'pkg', 'm.py');
    // The commit, the edit and the index all in one second long past, as a fast script makes them: git's stat data
    // match (the index is refreshed to the old mtime first), and only the index's own mtime tells git to compare
    // the contents. A copy of the index dated now would vouch for the edit.
    const past = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, past, past);
    execFileSync('git', ['-C', repo.dir, 'update-index', '--refresh'], { stdio: 'ignore' });
    writeFileSync(file, 'A = 2\n');
    utimesSync(file, past, past);
    utimesSync(join(repo.dir, '.git', 'index'), past, past);
    expect(await snapshotOf({ path: repo.dir }, {}, tempDir('nnb-cache-'))).toMatchObject({ dirty: true });
  });

  it('a folder that vanished after loading the config is a failed source, not a crash', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'pkg'));
    const c = resolveConfig(
      { name: 't', cacheDir: tempDir(), sources: [{ id: 'fx', kind: 'path', path: join(root, 'pkg') }] },
      join(root, 'corpus.json'),
    );
    execFileSync('rm', ['-r', join(root, 'pkg')]);
    const { snapshots, diagnostics } = await fetchSources(c, ctx);
    expect(snapshots[0].status).toBe('failed');
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'source-missing', source: 'fx' })]);
  });
});
