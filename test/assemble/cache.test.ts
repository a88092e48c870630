// Assembled modules are reused across runs while nothing they depend on changed: the files their closure read
// (re-export chains included), the set of modules in the corpus, the assembler itself. The index's kv table holds
// them; each case re-indexes the same folder into the same store, as a warm `nnblocks build` does.
import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractBlocks, type ExtractedBlock } from '../../pipeline/assemble/extract.ts';
import { Store } from '../../pipeline/index/store.ts';
import { indexFolders } from '../helpers/corpus.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

const files = {
  'pkg/__init__.py': '',
  'pkg/layers/__init__.py': 'from .a import Norm\n',
  'pkg/layers/a.py': 'from torch import nn\n\n\nclass Norm(nn.LayerNorm):\n    pass\n',
  'pkg/layers/b.py': 'from torch import nn\n\n\nclass Norm(nn.BatchNorm1d):\n    pass\n',
  'pkg/vit.py': `from torch import nn
from pkg.layers import Norm


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm(8)

    def forward(self, x):
        return self.norm(x)


def vit_tiny():
    return ViT()
`,
  'pkg/mlp.py': `from torch import nn


class Mlp(nn.Module):
    def forward(self, x):
        return x
`,
};

/**
 * Indexes `root` into `store` and extracts ViT and Mlp with the cache in the same store, into `root`/out; `reads`
 * collects the cache keys read.
 */
async function run(root: string, store: Store, reads: string[] = []): Promise<Map<string, ExtractedBlock>> {
  const { program, discovered } = await indexFolders([{ id: 'fx', root }], store);
  const blocks = discovered.blocks.filter((b) => b.name === 'ViT' || b.name === 'Mlp');
  const out = extractBlocks(program, blocks, {
    outDir: join(root, '..', `${root.split('/').pop()}-out`),
    labels: new Map(),
    // A builder: ViT's module holds it, and its core text (the module without it) is kept apart too.
    builders: (b) => (b.name === 'ViT' ? ['vit_tiny'] : []),
    cache: {
      get: (k) => (reads.push(k), store.kvGet('assembled', k)),
      put: (k, v) => store.kvPut('assembled', k, v),
    },
  });
  return new Map(out.map((e) => [e.entry.className, e]));
}

describe('reuse of assembled modules', () => {
  it('reuses every module of an unchanged corpus, identical to a fresh assembly', async () => {
    const root = writeTree(files);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const cold = await run(root, store);
    expect([...cold.values()].map((e) => e.reused ?? false)).toEqual([false, false]);
    const warm = await run(root, store);
    expect([...warm.values()].map((e) => e.reused)).toEqual([true, true]);
    for (const [name, e] of warm) {
      const { ms: _a, reused: _b, ...kept } = e;
      const { ms: _c, reused: _d, ...fresh } = cold.get(name)!;
      expect(kept).toEqual(fresh);
    }
    store.close();
  });

  it('assembles again a block whose re-export chain changed, and only it', async () => {
    // vit.py and a.py are unchanged; pkg/layers/__init__.py, which the lookup of Norm passes through, now
    // re-exports b's Norm: ViT's module must change although none of the files it copies from did.
    const root = writeTree(files);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const before = await run(root, store);
    expect(before.get('ViT')!.code).toContain('class Norm(nn.LayerNorm)');
    writeTree({ 'pkg/layers/__init__.py': 'from .b import Norm\n' }, root);
    const after = await run(root, store);
    expect(after.get('ViT')!.reused).toBeUndefined();
    expect(after.get('ViT')!.code).toContain('class Norm(nn.BatchNorm1d)');
    expect(after.get('Mlp')!.reused).toBe(true);
    store.close();
  });

  it('assembles everything again when a module is added (a new file may change what a name resolves to)', async () => {
    const root = writeTree(files);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    await run(root, store);
    writeTree({ 'pkg/extra.py': 'X = 1\n' }, root);
    const after = await run(root, store);
    expect([...after.values()].map((e) => e.reused ?? false)).toEqual([false, false]);
    store.close();
  });

  it('leaves the modules it wrote unread and untouched on a warm run, and writes again one edited or removed', async () => {
    const root = writeTree(files);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const cold = await run(root, store);
    const vit = cold.get('ViT')!.entry.file;
    const mlp = cold.get('Mlp')!.entry.file;
    const code = readFileSync(vit, 'utf8');
    const mtimes = [statSync(vit).mtimeMs, statSync(mlp).mtimeMs];
    const reads: string[] = [];
    const warm = await run(root, store, reads);
    // The texts are kept apart from the records: a warm run reads none of them until asked for one.
    expect(reads.filter((k) => k.startsWith('text:'))).toEqual([]);
    expect([statSync(vit).mtimeMs, statSync(mlp).mtimeMs]).toEqual(mtimes);
    expect(warm.get('ViT')!.code).toBe(code);
    expect(reads.filter((k) => k.startsWith('text:'))).toHaveLength(1);
    const core = warm.get('ViT')!.coreCode;
    expect(core).toBe(cold.get('ViT')!.coreCode);
    expect(core).not.toContain('def vit_tiny');
    expect(reads.filter((k) => k.startsWith('text:'))).toHaveLength(2);

    writeFileSync(vit, '# edited by hand\n');
    unlinkSync(mlp);
    await run(root, store);
    expect(readFileSync(vit, 'utf8')).toBe(code);
    expect(readFileSync(mlp, 'utf8')).toBe(cold.get('Mlp')!.code);
    store.close();
  });
});
