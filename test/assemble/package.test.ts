// Several blocks extracted together are one package: each upstream module written once at its upstream path,
// shared classes defined once and imported, so blocks compose (`isinstance` holds) in real Python, with the
// fixture's own package blocked.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractPackage } from '../../pipeline/assemble/extract-package.ts';
import { indexTree } from '../helpers/corpus.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tree.ts';
import { cases } from '../resolve/cases.ts';

/**
 * Cases whose `run` checks a rename the standalone module needs and a package module does not (each upstream
 * module keeps its names): the check that holds in the package instead.
 */
const PACKAGE_RUN: Record<string, string> = {
  "PIL's Image and an internal Image class in one emitted module":
    'assert type(Block()(torch.ones(1))).__name__ == "Image"',
};

// A ViT and a transformer block that share `Block` (and `Mlp` through it), as DINO and SAM do.
const files = {
  'pkg/__init__.py': 'from .layers import Block\n',
  'pkg/layers.py': `import numpy as np
import torch
from torch import nn
from .utils import to_2tuple


def tag(cls):
    cls.tagged = True
    return cls


class Mlp(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(x)


@tag
class Block(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.size = to_2tuple(dim)
        self.scale = float(np.sqrt(dim))
        self.mlp = Mlp(dim)

    def forward(self, x):
        return x + self.mlp(x)
`,
  'pkg/utils.py': `def to_2tuple(x):
    return (x, x)


def unused():
    return 1
`,
  'pkg/models/__init__.py': `from .vit import ViT
`,
  'pkg/models/vit.py': `from torch import nn
from pkg.layers import Block as TBlock
from ..registry import register


@register
class ViT(nn.Module):
    def __init__(self, depth=2, dim=8):
        super().__init__()
        self.blocks = nn.Sequential(*[TBlock(dim) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)
`,
  'pkg/registry.py': `MODELS = {}


def register(cls):
    MODELS[cls.__name__] = cls
    return cls
`,
};

// Modules that import each other: `cyc/a.py` and `cyc/b.py` at import time and when called (one module in the
// package), `lazy/img.py` imports `lazy/ops.py` only inside a method, as upstream breaks such a cycle.
const cycles = {
  'pkg/__init__.py': '',
  'pkg/cyc/__init__.py': '',
  'pkg/cyc/a.py': `from torch import nn
from .b import helper, twin


class A(nn.Module):
    size = helper()

    def forward(self, x):
        return twin(x)
`,
  'pkg/cyc/b.py': `from pkg.cyc import a as amod


def helper():
    return 3


def twin(x):
    return x * 2 if not isinstance(x, amod.A) else x
`,
  // mmengine/model/utils.py: `torch` is bound last by the `try`, but `stack`'s annotations read the import before it.
  'pkg/late.py': `import torch
from torch import nn


def stack(xs: list[torch.Tensor]) -> torch.Tensor:
    return torch.stack(xs)


try:
    import torch.fx
    HAS_FX = True
except ImportError:
    HAS_FX = False


class Late(nn.Module):
    def forward(self, x):
        return stack([x])[0] * 2 if HAS_FX else x
`,
  'pkg/lazy/__init__.py': '',
  'pkg/lazy/img.py': `from torch import nn


class Img(nn.Module):
    def forward(self, x):
        from pkg.lazy.ops import double
        return double(x)
`,
  'pkg/lazy/ops.py': `from .img import Img


def double(x):
    return x if isinstance(x, Img) else x * 2
`,
};

describe('extract several blocks as one package', () => {
  it('writes each upstream module once, at its path; shared classes compose (isinstance holds)', async () => {
    const { program, discovered } = await indexTree(files);
    const outDir = tempDir('nnb-pkg-');
    const blocks = discovered.blocks.filter((b) => ['ViT', 'Block', 'Mlp'].includes(b.name));
    expect(blocks.map((b) => b.name).sort()).toEqual(['Block', 'Mlp', 'ViT']);
    const pkg = extractPackage(program, blocks, { outDir, labels: new Map() });
    expect(pkg.modules.map((m) => m.path)).toEqual([
      '__init__.py',
      'pkg/__init__.py',
      'pkg/layers.py',
      'pkg/models/__init__.py',
      'pkg/models/vit.py',
      'pkg/registry.py',
      'pkg/utils.py',
    ]);
    const byName = new Map(pkg.blocks.map((b) => [b.entry.className, b.entry]));
    expect(byName.get('Block')!.module).toBe('blocks.pkg.layers');
    expect(byName.get('ViT')!.module).toBe('blocks.pkg.models.vit');
    const layers = readFileSync(join(outDir, 'blocks/pkg/layers.py'), 'utf8');
    // Written once, verbatim (decorator kept), importing its helper from its sibling module.
    expect(layers.match(/^class Block\(/gm)).toHaveLength(1);
    expect(layers).toContain('@tag\nclass Block(nn.Module):');
    expect(layers).toContain('from .utils import to_2tuple');
    const vit = readFileSync(join(outDir, 'blocks/pkg/models/vit.py'), 'utf8');
    expect(vit).not.toContain('class Block');
    // The reference under its upstream alias becomes the definition's name, imported from its module.
    expect(vit).toContain('from ..layers import Block\n');
    // Each module keeps its own imports of outside names (one binding of the closures, made by two statements).
    expect(vit).toContain('from torch import nn\n');
    expect(vit).toContain('from ..registry import register');
    expect(readFileSync(join(outDir, 'blocks/pkg/utils.py'), 'utf8')).not.toContain('def unused');
    // Mlp needs no numpy, but its module imports it for Block: importing it needs numpy installed, as upstream.
    expect(byName.get('Mlp')!.requires.map((r) => r.name)).toEqual(['numpy', 'torch']);
    // Package folders that hold nothing of their own are empty packages.
    expect(readFileSync(join(outDir, 'blocks/pkg/models/__init__.py'), 'utf8')).not.toContain('import');

    const check = `
import importlib
vit_mod = importlib.import_module('blocks.pkg.models.vit')
layers = importlib.import_module('blocks.pkg.layers')
registry = importlib.import_module('blocks.pkg.registry')
vit = vit_mod.ViT()
assert isinstance(vit.blocks[0], layers.Block), type(vit.blocks[0])
assert isinstance(vit.blocks[0].mlp, layers.Mlp)
assert layers.Block.tagged and registry.MODELS['ViT'] is vit_mod.ViT
y = vit(torch.ones(2, 8)); y.sum().backward()
`;
    const results = importInFreshPython(
      [{ ...byName.get('ViT')!, run: check }, byName.get('Block')!, byName.get('Mlp')!],
      ['pkg'],
    );
    expect(Object.fromEntries(results)).toEqual({ 'blocks.pkg.models.vit': 'ok', 'blocks.pkg.layers': 'ok' });
  });

  it('a second extraction replaces the package it wrote, and refuses a folder it did not write', async () => {
    const { program, discovered } = await indexTree(files);
    const outDir = tempDir('nnb-pkg-');
    const all = discovered.blocks.filter((b) => ['ViT', 'Block'].includes(b.name));
    extractPackage(program, all, { outDir, labels: new Map() });
    expect(existsSync(join(outDir, 'blocks/pkg/models/vit.py'))).toBe(true);
    extractPackage(
      program,
      all.filter((b) => b.name === 'Block'),
      { outDir, labels: new Map() },
    );
    expect(existsSync(join(outDir, 'blocks/pkg/models/vit.py'))).toBe(false);
    mkdirSync(join(outDir, 'mine'));
    writeFileSync(join(outDir, 'mine', 'notes.txt'), 'keep me');
    expect(() => extractPackage(program, all, { outDir, labels: new Map(), packageName: 'mine' })).toThrow(
      /not a package nnblocks wrote/,
    );
    expect(readFileSync(join(outDir, 'mine', 'notes.txt'), 'utf8')).toBe('keep me');
  });

  it("modules that import each other at import time are one module; a method's own import stays lazy; an import a later try rebinds stays", async () => {
    const { program, discovered } = await indexTree(cycles);
    const outDir = tempDir('nnb-pkg-');
    const pkg = extractPackage(program, discovered.blocks, { outDir, labels: new Map() });
    expect(pkg.modules.map((m) => m.path)).toEqual([
      '__init__.py',
      'pkg/__init__.py',
      'pkg/cyc/__init__.py',
      'pkg/cyc/a.py',
      'pkg/late.py',
      'pkg/lazy/__init__.py',
      'pkg/lazy/img.py',
      'pkg/lazy/ops.py',
    ]);
    const a = readFileSync(join(outDir, 'blocks/pkg/cyc/a.py'), 'utf8');
    expect(a.split('\n')[0]).toBe('# pkg.cyc.a, pkg.cyc.b');
    const img = readFileSync(join(outDir, 'blocks/pkg/lazy/img.py'), 'utf8');
    // Imported from the package's own module where upstream imports it: in the method.
    expect(img).toContain('        from .ops import double\n');
    expect(img).not.toMatch(/^from \./m);
    const byName = new Map(pkg.blocks.map((b) => [b.entry.className, b.entry]));
    const results = importInFreshPython(
      [
        { ...byName.get('A')!, run: 'assert Block.size == 3 and Block()(torch.ones(1)).item() == 2' },
        { ...byName.get('Img')!, run: 'assert Block()(torch.ones(1)).item() == 2' },
        { ...byName.get('Late')!, run: 'assert Block()(torch.ones(1)).item() == 2' },
      ],
      ['pkg'],
    );
    expect(Object.fromEntries(results)).toEqual({
      'blocks.pkg.cyc.a': 'ok',
      'blocks.pkg.lazy.img': 'ok',
      'blocks.pkg.late': 'ok',
    });
    expect(readFileSync(join(outDir, 'blocks/pkg/late.py'), 'utf8')).toMatch(/^import torch$/m);
  });

  it('every resolver case block imports from one package per case', async () => {
    const failures: string[] = [];
    const items = [];
    for (const [i, c] of cases.entries()) {
      const { program, discovered } = await indexTree(c.files, `case${i}`);
      const [module, cls] = c.block.split(':');
      const block = discovered.blocks.find((b) => b.module === module && b.qualname === cls)!;
      const outDir = tempDir('nnb-pkgcase-');
      const pkg = extractPackage(program, [block], { outDir, labels: new Map(), packageName: `case${i}` });
      const [entry] = pkg.blocks;
      if (!entry.entry.module) failures.push(`${c.name}: ${entry.diagnostics.map((d) => d.message).join('; ')}`);
      else items.push({ ...entry.entry, case: c.name, run: PACKAGE_RUN[c.name] ?? c.run, expected: c.importError });
    }
    const results = importInFreshPython(items, ['pkg']);
    for (const e of items) {
      if (results.get(e.module) !== (e.expected ?? 'ok')) failures.push(`${e.case}: ${results.get(e.module)}`);
    }
    expect(failures).toEqual([]);
  });
});
