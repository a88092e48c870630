// The originals' bytecode (docs/validate.md, "Bytecode of the originals"): the build compiles the packages of its own
// git checkouts with the validation environment's Python before the workers start, so that fidelity's import of an
// original reads bytecode instead of compiling the package in every block's child. What an upstream tree plants
// (a symlinked folder, a symlinked source, a `__pycache__` that links elsewhere) is never followed; a user's folder
// and a path outside the cache are never written to; a second run compiles nothing.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPartial } from '../../pipeline/run/build.ts';
import type { PartialBuild } from '../../pipeline/run/partial.ts';
import { openRun, type RunContext } from '../../pipeline/run/prepare.ts';
import { bytecodeRoots, compileBytecode } from '../../pipeline/validate/bytecode.ts';
import { testPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

const pycs = (dir: string) => (existsSync(join(dir, '__pycache__')) ? readdirSync(join(dir, '__pycache__')) : []);

describe('bytecodeRoots: which package folders are compiled', () => {
  it("takes each git source's packages below the cache, and nothing else", () => {
    const cache = tempDir('nnb-cache-');
    const root = writeTree({ 'pkg/__init__.py': '', 'solo.py': '' }, join(cache, 'sources', 'a'));
    const outside = writeTree({ 'pkg/__init__.py': '' });
    symlinkSync(join(outside, 'pkg'), join(root, 'linked'));
    const git = (importRoot: string, packages: string[]) => ({ kind: 'git', importRoot, packages });
    expect(
      bytecodeRoots(
        [
          git(root, ['pkg', 'solo', 'linked', 'missing', '../escape']),
          { kind: 'path', importRoot: root, packages: ['pkg'] }, // a user's folder: never written to
          git(outside, ['pkg']), // a git source whose tree is not the cache's
        ],
        cache,
      ),
    ).toEqual([join(root, 'pkg'), join(root, 'solo.py')].sort());
  });
});

describe('compileBytecode on a tree that plants links', () => {
  let root: string;
  let elsewhere: string;
  let first: Awaited<ReturnType<typeof compileBytecode>>;
  let second: Awaited<ReturnType<typeof compileBytecode>>;

  beforeAll(async () => {
    elsewhere = writeTree({ 'secret.py': 'TOKEN = "not for the sandbox"\n', 'sub/c.py': 'C = 1\n' });
    root = writeTree({
      'pkg/__init__.py': 'from .a import A\n',
      'pkg/a.py': 'A = 1\n',
      'pkg/deep/b.py': 'B = 2\n',
      'pkg/broken.py': 'def (:\n', // a syntax error: left to the import, as always
      'pkg/evil/e.py': 'E = 3\n',
    });
    symlinkSync(join(elsewhere, 'sub'), join(root, 'pkg', 'linked')); // a folder elsewhere
    symlinkSync(join(elsewhere, 'secret.py'), join(root, 'pkg', 'peek.py')); // a host file read through a link
    const target = join(elsewhere, 'cachedir');
    mkdirSync(target);
    symlinkSync(target, join(root, 'pkg', 'evil', '__pycache__')); // our bytecode written through a link
    first = await compileBytecode(testPython(), [join(root, 'pkg')]);
    second = await compileBytecode(testPython(), [join(root, 'pkg')]);
  }, 60_000);

  it('compiles the real sources beside them, and reports what it did', () => {
    expect(pycs(join(root, 'pkg')).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^__init__\.cpython-\d+\.pyc$/), expect.stringMatching(/^a\./)]),
    );
    expect(pycs(join(root, 'pkg', 'deep'))).toHaveLength(1);
    // __init__, a, deep/b, broken, evil/e: five sources; broken does not compile, evil/e is refused.
    expect(first).toMatchObject({ files: 5, compiled: 3, failed: 2 });
  });

  it('follows no link: nothing read through one, nothing written through one', () => {
    expect(pycs(join(root, 'pkg')).some((f) => f.startsWith('peek.'))).toBe(false);
    expect(readdirSync(join(elsewhere, 'cachedir'))).toEqual([]);
    expect(existsSync(join(elsewhere, 'sub', '__pycache__'))).toBe(false);
  });

  it('compiles nothing again when the sources have not changed', () => {
    expect(second).toMatchObject({ files: 5, compiled: 0, failed: 2 });
  });

  it('is best effort: no interpreter is no bytecode, not an error', async () => {
    expect(await compileBytecode('/nonexistent/python', [join(root, 'pkg')])).toBeNull();
    expect(await compileBytecode(testPython(), [])).toBeNull();
  });
});

describe("a build compiles its git checkout's packages before validation", () => {
  let ctx: RunContext;
  let partial: PartialBuild;
  let local: string;

  beforeAll(async () => {
    const tree = {
      'net/__init__.py': 'from .blocks import Scale\n',
      'net/blocks.py': py`
        import torch
        import torch.nn as nn

        class Scale(nn.Module):
            def __init__(self, c=8):
                super().__init__()
                self.fc = nn.Linear(c, c)

            def forward(self, x):
                return torch.relu(self.fc(x))
      `,
    };
    local = writeTree({ 'mynet/__init__.py': '', 'mynet/blocks.py': tree['net/blocks.py'] });
    const config = writeConfig([
      { id: 'net', kind: 'git', url: `file://${gitRepo(tree).dir}`, ref: 'main' },
      { id: 'mine', kind: 'path', path: local },
    ]);
    ctx = openRun(config);
    ({ partial } = await buildPartial(ctx, { outDir: tempDir('nnb-cat-') }));
  }, 240_000);
  afterAll(() => ctx?.store.close());

  it("the checkout's package has bytecode, and fidelity still compares with the original", () => {
    const snap = partial.snapshots.find((s) => s.id === 'net')!;
    expect(pycs(join(snap.importRoot, 'net')).some((f) => f.startsWith('blocks.'))).toBe(true);
    const spec = partial.specs.find((s) => s.id === 'net:net.blocks.Scale')!;
    expect(spec.validation, JSON.stringify(spec.validation)).toMatchObject({ status: 'passed' });
    expect(spec.validation?.fidelity).toBe('exact');
  });

  it("a user's folder gets none", () => {
    expect(partial.specs.find((s) => s.id === 'mine:mynet.blocks.Scale')?.validation?.status).toBe('passed');
    expect(existsSync(join(local, 'mynet', '__pycache__'))).toBe(false);
  });
});

// A file written after the first compile gets its bytecode on the next; one edited since is compiled again.
describe('compileBytecode keeps up with edits', () => {
  it('compiles a new or changed source, and only those', async () => {
    const root = writeTree({ 'pkg/__init__.py': '', 'pkg/a.py': 'A = 1\n' });
    await compileBytecode(testPython(), [join(root, 'pkg')]);
    writeFileSync(join(root, 'pkg', 'b.py'), 'B = 1\n');
    writeFileSync(join(root, 'pkg', 'a.py'), 'A = 22\n');
    expect(await compileBytecode(testPython(), [join(root, 'pkg')])).toMatchObject({ files: 3, compiled: 2 });
  });
});
