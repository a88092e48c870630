// Memory tiers (docs/validate.md, "Memory tiers"; pipeline/validate/pool.ts): with workers side by side, a block may
// add 2 GiB; one that meets that limit is run again alone under the full limit, and only that record is kept. So a
// block's record is the same whatever ran beside it: checked with one worker (no tiers) against two, on a block that
// needs more than the shared tier and one that no tier holds. Real runner, real sandbox; `torch.empty` reserves
// address space without touching it. (Upstream code that catches its own memory error and carries on is the one
// case a tier can change: nothing outside the block sees that error; docs/validate.md says so.)
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const OVER_SHARED = 'torch.empty(650_000_000)'; // 2.6 GB of float32: over the 2 GiB shared tier, under 4 GiB

const fixtures = {
  needsMore: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            scratch = ${OVER_SHARED}
            self.scale = nn.Parameter(torch.ones(1))
            del scratch
        def forward(self, x):
            return x * self.scale
  `,
  tooBig: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.scratch = torch.empty(2_000_000_000)  # 8 GB: over the full limit too
        def forward(self, x):
            return x
  `,
  small: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, width=4):
            super().__init__()
            self.fc = nn.Linear(width, width)
        def forward(self, x):
            return self.fc(x)
  `,
};

describe('memory tiers: a block that needs more than the shared tier runs again alone', () => {
  let one: Record<string, ValidationRecord>;
  let two: Record<string, ValidationRecord>;

  beforeAll(async () => {
    const { items } = fixtureItems(fixtures);
    two = byName(await validateBlocks(items, baseOptions({ workers: 2 })));
    one = byName(await validateBlocks(items, baseOptions({ workers: 1 })));
  }, 240_000);

  it('passes a block that needs more than the shared tier, under the full limit', () => {
    expect(two.needsMore.status).toBe('passed');
    expect(two.small.status).toBe('passed');
    expect(two.needsMore.outputs).toEqual(one.needsMore.outputs);
  });

  it('fails a block over the full limit as memory, the same with one worker or two', () => {
    expect(two.tooBig).toMatchObject({ status: 'failed', failureClass: 'memory' });
    expect(one.tooBig).toMatchObject({ status: 'failed', failureClass: 'memory' });
    expect(two.tooBig.failureDetail).toBe(one.tooBig.failureDetail);
  });
});
