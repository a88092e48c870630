// Empty discovery is said, not a quiet zero: an include glob that names no file of its source is an
// `include-matches-nothing` warning, and a source in which no block is found a `no-blocks` warning, through the
// real sources → index → discover steps on inline fixture trees.
import { describe, expect, it } from 'vitest';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { py, writeTree } from '../helpers/tree.ts';

const BLOCK = py`
  import torch.nn as nn
  class Proj(nn.Module):
      def forward(self, x):
          return x
`;

async function diagnosticsOf(sources: object[]) {
  const { ctx, p } = await prepareRun(writeConfig(sources));
  ctx.store.close();
  return { blocks: p.discovered.blocks, diagnostics: p.diagnostics };
}

describe('empty discovery', () => {
  it('an include that matches no file is a warning naming the glob; the other includes still count', async () => {
    const root = writeTree({ 'net/__init__.py': '', 'net/blocks.py': BLOCK });
    const { blocks, diagnostics } = await diagnosticsOf([
      { id: 'p', kind: 'path', path: root, include: ['net/**/*.py', 'modles/**/*.py'] },
    ]);
    expect(blocks.map((b) => b.id)).toEqual(['p:net.blocks.Proj']);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'include-matches-nothing',
        severity: 'warning',
        stage: 'sources',
        source: 'p',
        message: 'include "modles/**/*.py" matches no Python file of the source',
        hint: expect.stringContaining('correct the glob'),
      }),
    ]);
  });

  it('a source with no nn.Module is a no-blocks warning with what was searched', async () => {
    const plain = writeTree({ 'lib/__init__.py': '', 'lib/util.py': 'class Config:\n    pass\n' });
    const ok = writeTree({ 'net/__init__.py': '', 'net/blocks.py': BLOCK });
    const { diagnostics } = await diagnosticsOf([
      { id: 'plain', kind: 'path', path: plain },
      { id: 'ok', kind: 'path', path: ok },
    ]);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'no-blocks',
        severity: 'warning',
        stage: 'discover',
        source: 'plain',
        message:
          'no block found: 2 Python modules in the discovery scope, 1 class, none a torch.nn.Module with a forward',
        hint: expect.stringContaining('include/exclude and symbols'),
      }),
    ]);
  });

  it('says so when the symbols left every block out', async () => {
    const root = writeTree({ 'net/__init__.py': '', 'net/blocks.py': BLOCK });
    const { diagnostics } = await diagnosticsOf([{ id: 'p', kind: 'path', path: root, symbols: ['Attention*'] }]);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'no-blocks',
        'no block found: 2 Python modules in the discovery scope, 1 class, none a torch.nn.Module with a forward ' +
          "that the source's symbols (Attention*) match",
      ],
    ]);
  });
});
