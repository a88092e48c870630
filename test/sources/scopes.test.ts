// The two scopes of python and path sources: the whole distribution / folder is listed for resolution, the
// includes mark the discovery scope.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { testPython } from '../helpers/python.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

const ctx = quietContext();

function config(sources: object[]) {
  return resolveConfig(
    { name: 't', python: testPython(), cacheDir: tempDir('nnb-cache-'), sources },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
}

const scopeOf = (files: { path: string; discover?: false }[], path: string) =>
  files.find((f) => f.path === path) && (files.find((f) => f.path === path)!.discover ?? true);

describe('resolution scope of python and path sources', () => {
  it('lists the whole installed distribution; the includes mark the discovery scope', async () => {
    const c = config([{ id: 'tv', kind: 'python', distribution: 'torchvision', include: ['torchvision/ops/**/*.py'] }]);
    const [s] = (await fetchSources(c, ctx)).snapshots;
    expect(scopeOf(s.files, 'torchvision/ops/misc.py')).toBe(true);
    expect(scopeOf(s.files, 'torchvision/models/resnet.py')).toBe(false);
    expect(scopeOf(s.files, 'torchvision/__init__.py')).toBe(false);
    expect(s.files.length).toBeGreaterThan(120);
  });

  it('lists the whole folder of a path source, excludes included', async () => {
    const root = writeTree({
      'net/__init__.py': '',
      'net/blocks.py': 'X = 1\n',
      'net/tests/test_blocks.py': 'def test(): pass\n',
      'net/huge.py': 'Y = 2\n'.repeat(10),
    });
    const c = config([{ id: 'p', kind: 'path', path: root, include: ['net/*.py'], exclude: ['net/huge.py'] }]);
    const [s] = (await fetchSources(c, ctx)).snapshots;
    expect(s.files.map((f) => [f.path, f.discover ?? true])).toEqual([
      ['net/__init__.py', true],
      ['net/blocks.py', true],
      ['net/huge.py', false],
      ['net/tests/test_blocks.py', false],
    ]);
  });

  it('walks only folders a package can be named after, outside the includes', async () => {
    // A path source at a project root: its virtualenv and tool folders hold no importable module.
    const root = writeTree({
      'net/blocks.py': 'X = 1\n',
      'docs/conf.py': 'project = "x"\n',
      '.venv/lib/python3.11/site-packages/evil/__init__.py': 'E = 1\n',
      'my-tools/run.py': 'R = 1\n',
      'src-old/net/blocks.py': 'X = 0\n',
    });
    const c = config([{ id: 'p', kind: 'path', path: root, include: ['net/**/*.py', 'my-tools/*.py'] }]);
    const [s] = (await fetchSources(c, ctx)).snapshots;
    expect(s.files.map((f) => [f.path, f.discover ?? true])).toEqual([
      ['docs/conf.py', false],
      ['my-tools/run.py', true],
      ['net/blocks.py', true],
    ]);
  });

  it('keeps the size cap and every skip rule in the resolution scope', async () => {
    const root = writeTree({ 'net/blocks.py': 'X = 1\n', 'net/gen/table.py': 'T = 0\n'.repeat(100) });
    const c = resolveConfig(
      {
        name: 't',
        maxFileBytes: 100,
        cacheDir: tempDir('nnb-cache-'),
        sources: [{ id: 'p', kind: 'path', path: root, include: ['net/blocks.py'] }],
      },
      join(tempDir('nnb-proj-'), 'corpus.json'),
    );
    const [s] = (await fetchSources(c, ctx)).snapshots;
    expect(s.files.map((f) => f.path)).toEqual(['net/blocks.py']);
    expect(s.skipped).toEqual([
      { path: 'net/gen/table.py', reason: 'too-large', detail: '600 bytes > maxFileBytes 100' },
    ]);
  });
});
