// The harness table (pipeline/contract/harness.ts): which blocks that did not pass are shown as "not run
// automatically" and which as failed. Each row a real failure — torchvision 0.29.1's on torch 2.14.1 unless said —
// with its class, stage, exception and message, the verdict and why. Upstream's own faults stay failed.
import { describe, expect, it } from 'vitest';
import { harnessRule, HARNESS_RULES, isNotRun } from '../../pipeline/contract/harness.ts';

/** [class, stage, exception type, message, rule id or null (failed by default), why]. */
const cases: [string, string | null, string | null, string, string | null, string][] = [
  // The harness could not run it.
  [
    'needs-arguments',
    'build',
    'TypeError',
    "GeneralizedRCNN.__init__() missing 4 required positional arguments: 'backbone', 'rpn', 'roi_heads', and 'transform'",
    'needs-arguments',
    'a detector needs its parts: the harness has none',
  ],
  [
    'needs-arguments',
    'build',
    'AttributeError',
    "'RandomCropVideo' object has no attribute '_modules'",
    'needs-arguments',
    'a transform built with guessed arguments broke in its constructor',
  ],
  [
    'timeout',
    'forward',
    null,
    'killed at the deadline during forward without reporting a result',
    'time-limit',
    "timm's ViT-L at full size on a CPU: the budget, not the code",
  ],
  [
    'timeout',
    'build',
    null,
    'killed at the deadline during build without reporting a result',
    'time-limit',
    'building a large MaxxVit: the budget',
  ],
  [
    'timeout',
    'import',
    null,
    'killed at the deadline during import without reporting a result',
    null,
    'a module that hangs on import is its own doing',
  ],
  [
    'backward-error',
    'backward',
    'nnblocks_runner.search.OverBudget',
    "over its 7.9 s share of the block's time",
    'over-budget',
    'SSD: a search step ran out of its time share',
  ],
  [
    'memory',
    'forward',
    'torch.OutOfMemoryError',
    'CUDA out of memory',
    'memory-limit',
    "a large model past validation's memory limit",
  ],
  [
    'environment',
    null,
    'KeyError',
    "'getpwuid(): uid not found: 65534'",
    'environment',
    "the sandbox's user has no account entry",
  ],
  [
    'forward-error',
    'forward',
    'ValueError',
    'not enough values to unpack (expected 3, got 2)',
    'input-kind',
    "MViT's MultiscaleAttention: a tensor passed where the thw tuple was needed",
  ],
  [
    'forward-error',
    'forward',
    'AttributeError',
    "'Tensor' object has no attribute 'tensors'",
    'input-kind',
    'AnchorGenerator wants an ImageList, not a tensor',
  ],
  [
    'forward-error',
    'forward',
    'TypeError',
    "'int' object is not iterable",
    'input-kind',
    'RandomApply built with an int where transforms go',
  ],
  [
    'forward-error',
    'forward',
    'RuntimeError',
    'Given groups=1, weight of size [16, 48, 1, 5], expected input[2, 192, 32, 32] to have 48 channels, but got 192 channels instead',
    'input-shape',
    "RAFT's UpdateBlock: the probe's channels",
  ],
  [
    'forward-error',
    'forward',
    'RuntimeError',
    "shape '[2, 96, 8, 56, 56]' is invalid for input of size 12288",
    'input-shape',
    'MViT: the probe is not the clip it reshapes',
  ],
  [
    'forward-error',
    'forward',
    'RuntimeError',
    'Tensors must have same number of dimensions: got 3 and 4',
    'input-shape',
    'PositionalEncoding: a 4-d probe for a 3-d input',
  ],
  [
    'forward-error',
    'forward',
    'RuntimeError',
    'Given input size: (832x2x1x1). Calculated output size: (832x1x0x0). Output size is too small',
    'input-shape',
    'S3D: a probe too small for its pooling',
  ],
  [
    'forward-error',
    'forward',
    'RuntimeError',
    'Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 8]',
    'input-shape',
    'a 2-d probe for a convolution',
  ],
  [
    'forward-error',
    'forward',
    'TypeError',
    "forward() missing 1 required positional argument: 'mask'",
    'input-arity',
    'forward takes an input the probe did not give',
  ],
  [
    'forward-error',
    'forward',
    'AssertionError',
    'input feature has wrong size',
    'input-assertion',
    "Swin's own check of the probe's size",
  ],
  [
    'forward-error',
    'forward',
    'TypeError',
    'forward returned no tensor',
    'output-kind',
    'ExtraFPNBlock returns lists: nothing to check',
  ],
  // The code's own failure.
  [
    'forward-error',
    'forward',
    'RuntimeError',
    'this block always fails',
    null,
    'an error the block raises whatever the input',
  ],
  [
    'forward-error',
    'forward',
    'AttributeError',
    "'Block' object has no attribute 'proj'",
    null,
    'the block reads an attribute it never set: its bug',
  ],
  [
    'forward-error',
    'forward',
    'AttributeError',
    "module 'torch.nn.functional' has no attribute 'scaled_dot_product_attention_v2'",
    'api-missing',
    'an API the installed torch lacks',
  ],
  [
    'needs-arguments',
    'build',
    'AttributeError',
    "module 'torch' has no attribute '_six'",
    'api-missing',
    'the constructor uses a torch module that is gone: no argument helps',
  ],
  [
    'forward-error',
    'forward',
    'TypeError',
    "'NoneType' object is not subscriptable",
    null,
    'None where the block expected a value: not the kind of input the harness passes',
  ],
  [
    'backward-error',
    'backward',
    'RuntimeError',
    'no floating output depends on the parameters',
    null,
    'a backward check the block fails',
  ],
  [
    'native-extension',
    'import',
    'ImportError',
    'torchvision._C',
    null,
    'compiled ops missing: a failure of the assembled block (extract ships no library)',
  ],
  [
    'crashed',
    'forward',
    null,
    'killed by signal 11 during forward without reporting a result',
    null,
    'a segfault is never the harness',
  ],
  ['unresolved-name', 'import', 'NameError', "name 'TVTensor' is not defined", null, 'the resolver missed a name'],
];

describe('not run automatically, or failed', () => {
  for (const [cls, stage, type, message, rule, why] of cases) {
    it(`${rule ?? 'failed'}: ${why}`, () => {
      const facts = { failureClass: cls, reason: { stage, exceptionType: type, message } };
      expect(harnessRule(facts)?.id ?? null).toBe(rule);
      const expected = rule !== null && HARNESS_RULES.find((r) => r.id === rule)!.verdict === 'not-run';
      expect(isNotRun(facts)).toBe(expected);
    });
  }

  it('has a case for every rule', () => {
    const tested = new Set(cases.map((c) => c[4]));
    expect(HARNESS_RULES.map((r) => r.id).filter((id) => !tested.has(id))).toEqual([]);
  });

  it('says nothing of a record without a class or a reason: failed', () => {
    expect(isNotRun({})).toBe(false);
    expect(isNotRun({ failureClass: 'forward-error', reason: null })).toBe(false);
  });
});
