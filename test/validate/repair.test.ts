// Error-guided input repair (pipeline/validate/python/nnblocks_runner/repair.py) through the real runner, sandbox
// and torch: a block whose first registered layers don't say the width its forward reads is tried again at the width
// its own error names (a matrix product, a convolution, a normalisation layer, a broadcast), and its recipe is that
// input.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems, inRunner } from './helpers.ts';

const fixtures = {
  // A box head as mmdet registers it: the classifiers first, the shared layer over the flattened RoI (256 x 7 x 7
  // = 12,544 features) last, so every probe reads the classifiers' 16.
  matmul: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.cls = nn.Linear(16, 3)
            self.reg = nn.Linear(16, 4)
            self.shared = nn.Linear(256 * 7 * 7, 16)
        def forward(self, x):
            x = self.shared(x.flatten(1))
            return self.cls(x), self.reg(x)
  `,
  // A decode head as mmseg registers it: the classifier over `channels` first, the layers over `in_channels` after,
  // more of them than the probes read.
  conv: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_seg = nn.Conv2d(4, 2, 1)
            self.norm = nn.BatchNorm2d(4)
            self.mid = nn.Conv2d(4, 4, 3, padding=1)
            self.pre = nn.Conv2d(24, 4, 1)
        def forward(self, x):
            return self.conv_seg(self.mid(self.norm(self.pre(x))))
  `,
  // A positional table of fixed length, and no layer to read it from.
  broadcast: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Parameter(torch.randn(1, 11, 16))
        def forward(self, x):
            return x + self.table
  `,
  // A group norm past more layers than the probes read, over a width no layer before it has.
  groupNorm: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Conv2d(4, 2, 1)
            self.side = nn.Conv2d(5, 4, 1)
            self.norm = nn.GroupNorm(2, 6)
            self.proj = nn.Conv2d(6, 4, 1)
        def forward(self, x):
            return self.head(self.proj(self.norm(x)))
  `,
  // A functional layer norm over a width only its own parameters hold.
  layerNorm: py`
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(10))
            self.bias = nn.Parameter(torch.zeros(10))
        def forward(self, x):
            return F.layer_norm(x, (10,), self.weight, self.bias)
  `,
  // Asserts on its input and nothing else says the width: no layer reads the channels, and the AssertionError has no
  // message. The assert itself says it (asserted.py).
  assertAxis: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.in_channels = 7
            self.scale = nn.Parameter(torch.ones(7))
        def forward(self, x):
            assert x.dim() == 4 and x.shape[1] == self.in_channels
            return x * self.scale.view(1, -1, 1, 1)
  `,
  // A neck as OpenMMLab writes them: a list of feature maps, as many as the levels it was built for (one shared
  // layer, so no per-level layers say how many).
  assertLevels: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.num_levels = 3
            self.conv = nn.Conv2d(4, 2, 1)
        def forward(self, inputs):
            assert isinstance(inputs, (list, tuple))
            assert len(inputs) == self.num_levels
            return [self.conv(x) for x in inputs]
  `,
  // Fed by one of its own probes ([2, 16, 16], flattened to 256) after one that fails with a repairable error
  // ([2, 16]): the probe keeps its turn, and the recipe is the probe, as before there was any repair.
  probeFirst: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.cls = nn.Linear(16, 3)
            self.reg = nn.Linear(16, 4)
            self.body = nn.Linear(256, 16)
        def forward(self, x):
            x = self.body(x.flatten(1))
            return self.cls(x), self.reg(x)
  `,
};

describe('error-guided input repair', () => {
  let r: Record<string, ValidationRecord>;
  beforeAll(async () => {
    const { items } = fixtureItems(fixtures);
    r = byName(await validateBlocks(items, baseOptions()));
  }, 240_000);

  it('takes the width a matrix product names', () => {
    expect(r.matmul.status, r.matmul.failureDetail ?? undefined).toBe('passed');
    expect(r.matmul.recipe?.inputs).toEqual([{ shape: [2, 12544], dtype: 'float32' }]);
  });

  it('takes the channels a convolution names', () => {
    expect(r.conv.status, r.conv.failureDetail ?? undefined).toBe('passed');
    expect(r.conv.recipe?.inputs?.[0]).toMatchObject({ shape: [2, 24, expect.any(Number), expect.any(Number)] });
  });

  it("takes the widths normalisation layers name: a group norm's channels, a layer norm's features", () => {
    expect(r.groupNorm.status, r.groupNorm.failureDetail ?? undefined).toBe('passed');
    expect((r.groupNorm.recipe?.inputs?.[0] as { shape: number[] }).shape[1]).toBe(6);
    expect(r.layerNorm.status, r.layerNorm.failureDetail ?? undefined).toBe('passed');
    expect((r.layerNorm.recipe?.inputs?.[0] as { shape: number[] }).shape.at(-1)).toBe(10);
  });

  it("comes after the candidate's own inputs: a block one of them feeds keeps that recipe", () => {
    expect(r.probeFirst.status, r.probeFirst.failureDetail ?? undefined).toBe('passed');
    expect(r.probeFirst.recipe?.inputs).toEqual([{ shape: [2, 16, 16], dtype: 'float32' }]);
  });

  it('satisfies an assert on the input: its rank and an axis the block holds, a list of as many levels as it has', () => {
    expect(r.assertAxis.status, r.assertAxis.failureDetail ?? undefined).toBe('passed');
    const shape = (r.assertAxis.recipe?.inputs?.[0] as { shape: number[] }).shape;
    expect([shape.length, shape[1]]).toEqual([4, 7]);
    expect(r.assertLevels.status, r.assertLevels.failureDetail ?? undefined).toBe('passed');
    expect(r.assertLevels.recipe?.inputs?.[0]).toMatchObject({
      shape: [2, 4, expect.any(Number), expect.any(Number)],
      list: 3,
    });
  });

  it('takes the length a broadcast names', () => {
    expect(r.broadcast.status, r.broadcast.failureDetail ?? undefined).toBe('passed');
    const shape = (r.broadcast.recipe?.inputs?.[0] as { shape: number[] }).shape;
    expect(shape.slice(-2)).toEqual([11, 16]);
  });
});

describe('repair.repaired, the rules alone', () => {
  const image = { shape: [2, 3, 32, 32], dtype: 'float32' };
  const edges = { shape: [2, 8], dtype: 'int64', high: 32 };
  const mask = { shape: [2, 8], dtype: 'int64', high: 2 };
  const PERMUTE = (got: number, want: number) =>
    `permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = ${got} is not equal to len(dims) = ${want}`;
  const meta =
    'Attempting to broadcast a dimension of length 16 at -1! Mismatching argument at index 1 had torch.Size([1, 11, 16]); but expected shape should be broadcastable to [2, 3, 32, 32]';
  // Every case's answer from one interpreter (each start imports torch): [specs, message] in, repaired specs out.
  const cases: [unknown[], string][] = [
    [[{ shape: [2, 16], dtype: 'float32' }], 'a and b must have same reduction dim, but got [2, 16] X [300, 16].'],
    [[image], meta],
    [[image, edges], 'mat1 and mat2 shapes cannot be multiplied (192x32 and 3x32)'],
    [[image], 'mat1 and mat2 shapes cannot be multiplied (192x32 and 12544x32)'],
    [[image], 'Boolean value of Tensor with more than one value is ambiguous'],
    [[image, mask], 'running_mean should contain 3 elements not 8'],
    [[{ shape: [2, 768], dtype: 'float32' }, mask], 'not enough values to unpack (expected 3, got 2)'],
    [[image, image], 'too many values to unpack (expected 2)'],
    [[image], 'not enough values to unpack (expected 4, got 3)'],
    [[{ shape: [2, 16], dtype: 'float32' }], PERMUTE(3, 4)],
    [[image], PERMUTE(4, 3)],
    [[image], PERMUTE(4, 7)],
  ];
  let answers: unknown[];
  beforeAll(() => {
    answers = inRunner<unknown[]>([
      'from nnblocks_runner import repair',
      `cases = json.loads(${JSON.stringify(JSON.stringify(cases))})`,
      'print(json.dumps([repair.repaired(specs, RuntimeError(message)) for specs, message in cases]))',
    ]);
  });

  it("reads the meta twin's messages as the CPU's", () => {
    expect(answers[0]).toEqual([{ shape: [2, 300], dtype: 'float32' }]);
    expect(answers[1]).toEqual([{ shape: [2, 3, 32, 16], dtype: 'float32' }]);
  });

  it('changes nothing beside indices into another input, nor past 2^21 elements, nor on other errors', () => {
    expect(answers[2]).toBeNull();
    expect(answers[3]).toBeNull();
    expect(answers[4]).toBeNull();
    // A 0/1 mask is no index: the floating input beside it still changes.
    expect(answers[5]).toEqual([{ ...image, shape: [2, 8, 32, 32] }, mask]);
  });

  it('gives inputs the rank a shape unpacking wants: a row becomes tokens, an image drops trailing axes', () => {
    expect(answers[6]).toEqual([{ shape: [2, 16, 768], dtype: 'float32' }, mask]);
    expect(answers[7]).toEqual([
      { ...image, shape: [2, 3] },
      { ...image, shape: [2, 3] },
    ]);
    // No input has the rank the unpacking got: the shape unpacked is not an input's.
    expect(answers[8]).toBeNull();
  });

  it('gives inputs the axes a permute of them lacked, or takes away those it had too many, up to 5', () => {
    expect(answers[9]).toEqual([{ shape: [2, 16, 16], dtype: 'float32' }]);
    expect(answers[10]).toEqual([{ ...image, shape: [2, 3, 32] }]);
    expect(answers[11]).toBeNull();
  });
});

describe('asserted.repaired, the rules alone', () => {
  // Each case: a forward asserting on its inputs, the specs it first gets, and the specs after each repair until it
  // runs (or a repair gives up: null).
  const module = [
    'import torch',
    'class Loss(torch.nn.Module):',
    '    def forward(self, pred, target):',
    '        assert pred.size() == target.size()',
    '        return (pred - target).abs().mean()',
    'class Rank(torch.nn.Module):',
    '    def forward(self, x):',
    '        assert x.ndim == 3, "tokens"',
    '        return x',
    'class Other(torch.nn.Module):',
    '    def forward(self, x):',
    '        assert x.shape[2:] == (5, 5)',
    '        return x',
    'class Raised(torch.nn.Module):',
    '    def forward(self, x):',
    '        raise AssertionError()',
  ];
  const cases: [string, unknown[]][] = [
    [
      'Loss',
      [
        { shape: [2, 16], dtype: 'float32' },
        { shape: [2, 8], dtype: 'float32' },
      ],
    ],
    [
      'Loss',
      [
        { shape: [2, 8], dtype: 'float32' },
        { shape: [2, 16], dtype: 'int64', high: 2 },
      ],
    ],
    ['Rank', [{ shape: [2, 3, 32, 32], dtype: 'float32' }]],
    ['Other', [{ shape: [2, 3, 32, 32], dtype: 'float32' }]],
    ['Raised', [{ shape: [2, 3], dtype: 'float32' }]],
  ];
  let answers: unknown[][];
  beforeAll(() => {
    answers = inRunner<unknown[][]>([
      'import importlib.util, os, tempfile',
      'from nnblocks_runner import repair',
      'from nnblocks_runner.replay import make_inputs',
      'path = os.path.join(tempfile.mkdtemp(), "blocks.py")',
      `open(path, "w").write(${JSON.stringify(module.join('\n'))})`,
      'spec = importlib.util.spec_from_file_location("blocks", path)',
      'blocks = importlib.util.module_from_spec(spec)',
      'spec.loader.exec_module(blocks)',
      `cases = json.loads(${JSON.stringify(JSON.stringify(cases))})`,
      'out = []',
      'for name, specs in cases:',
      '    steps = []',
      '    for _ in range(3):',
      '        try:',
      '            getattr(blocks, name)()(*make_inputs(specs, 0, "cpu"))',
      '            break',
      '        except AssertionError as e:',
      '            specs = repair.repaired(specs, e)',
      '            steps.append(specs)',
      '            if specs is None:',
      '                break',
      '    out.append(steps)',
      'print(json.dumps(out))',
    ]);
  });

  it("gives the later of two compared inputs the earlier one's shape, its dtype kept", () => {
    expect(answers[0]).toEqual([
      [
        { shape: [2, 16], dtype: 'float32' },
        { shape: [2, 16], dtype: 'float32' },
      ],
    ]);
    expect(answers[1]).toEqual([
      [
        { shape: [2, 8], dtype: 'float32' },
        { shape: [2, 8], dtype: 'int64', high: 2 },
      ],
    ]);
  });

  it('gives an input the rank asserted, trailing axes dropped', () => {
    expect(answers[2]).toEqual([[{ shape: [2, 3, 32], dtype: 'float32' }]]);
  });

  it('gives up on asserts of other forms and on an AssertionError raised by hand', () => {
    expect(answers[3]).toEqual([null]);
    expect(answers[4]).toEqual([null]);
  });
});
