// De-duplication compares a block's own code: the assembled module without its imports. Whole import statements
// go (tree-sitter spans), so a multi-line import copied verbatim leaves no continuation lines that would not parse.
import { describe, expect, it } from 'vitest';
import { extractBlocks } from '../../pipeline/assemble/extract.ts';
import { dedup } from '../../pipeline/dedup/dedup.ts';
import { dedupItemsOf, dedupSubjectOf } from '../../pipeline/run/dedup-items.ts';
import { indexTree } from '../helpers/corpus.ts';
import { py, tempDir } from '../helpers/tree.ts';

const FILES = {
  'pkg/__init__.py': '',
  'pkg/m.py': py`
    import torch
    from torch.nn import (
        Conv2d,
        BatchNorm2d,
    )
    from torch.nn.functional import relu, \
        gelu
    class Block(torch.nn.Module):
        """A docstring whose lines look like code:
    import os
    from x import (y,
    # not a comment
    """
        def __init__(self):
            super().__init__()
            self.conv = Conv2d(3, 4, 1)
            self.bn = BatchNorm2d(4)
        def forward(self, x):
            return gelu(relu(self.bn(self.conv(x))))
  `,
};

describe('own code for de-duplication', () => {
  it('strips whole multi-line imports and keeps docstrings intact', async () => {
    const { program, discovered, snapshots } = await indexTree(FILES);
    const block = discovered.blocks.find((b) => b.name === 'Block')!;
    const [extracted] = extractBlocks(program, [block], { outDir: tempDir(), labels: new Map(), write: false });
    expect(extracted.code).toContain('    BatchNorm2d,\n)');
    const [item] = await dedupItemsOf([dedupSubjectOf(block, snapshots[0], extracted, null)!]);
    // Continuation lines of the imports are gone with their statements...
    expect(item.code).not.toMatch(/^\s*(Conv2d,|BatchNorm2d,|\)|gelu)\s*$/m);
    expect(item.code).not.toMatch(/^import torch$/m);
    // ...and the docstring's lines that read like imports or comments stay, as the block's own text.
    expect(item.code).toContain('import os\nfrom x import (y,\n# not a comment\n');
    expect(item.code).toContain('class Block(torch.nn.Module):');
    const result = dedup([item]);
    expect(result.diagnostics.filter((d) => d.code === 'dedup-syntax-error')).toEqual([]);
  });
});
