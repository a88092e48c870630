// A file nested deeper than the walker follows (50,000 nested lambdas overflowed the stack and the whole file was
// dropped as `parse-crashed`): the file is indexed and stored with a `nesting-too-deep` diagnostic, its other
// statements and every other file proceed to discovery, extraction and a real import. docs/index.md, "Parse".
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractBlocks } from '../../pipeline/assemble/extract.ts';
import { quietContext } from '../../pipeline/contract/context.ts';
import { indexSources } from '../../pipeline/index/index.ts';
import { Store } from '../../pipeline/index/store.ts';
import { folderSnapshot, indexFolders } from '../helpers/corpus.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

const BLOCK = (name: string) => py`
  class ${name}(nn.Module):
      def forward(self, x):
          return x
`;

describe('deeply nested input', () => {
  it('50,000 nested lambdas: a diagnostic for that file, the file recorded, the build proceeds', async () => {
    const root = writeTree({
      'pkg/__init__.py': '',
      'pkg/deep.py': `import torch.nn as nn\nX = ${'lambda: '.repeat(50_000)}1\n${BLOCK('AfterDeep')}`,
      'pkg/fine.py': `import torch.nn as nn\n${BLOCK('Fine')}`,
    });
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const { index, program, discovered } = await indexFolders([{ id: 'fx', root }], store);
    expect(index.diagnostics).toEqual([
      expect.objectContaining({ code: 'nesting-too-deep', severity: 'error', source: 'fx', path: 'pkg/deep.py' }),
    ]);
    // Recorded: the file is a module of the index, and its facts are stored (a re-run parses nothing).
    expect(index.modules.map((m) => m.module)).toEqual(['pkg', 'pkg.deep', 'pkg.fine']);
    const again = await indexSources([folderSnapshot('fx', root)], store, quietContext(), { threads: 1 });
    expect(again.stats).toMatchObject({ parsed: 0, reused: 3 });
    store.close();
    expect(discovered.blocks.map((b) => b.id)).toEqual(['fx:pkg.deep.AfterDeep', 'fx:pkg.fine.Fine']);
    const out = extractBlocks(program, discovered.blocks, { outDir: tempDir('nnb-out-'), labels: new Map() });
    for (const o of out) expect(o.code).not.toContain('lambda');
    const results = importInFreshPython(
      out.map((o) => o.entry),
      ['pkg'],
    );
    expect([...results.values()]).toEqual(['ok', 'ok']);
  });
});
