// The validate stage end to end on ordinary blocks: real runner.py, real bubblewrap, real torch.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { execFileSync } from 'node:child_process';
import { testPython } from '../helpers/python.ts';
import { py, writeTree } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

// An "upstream package" for fidelity and for the blocked-import case.
const upstream = writeTree({
  'upstream_pkg/__init__.py': '',
  'upstream_pkg/layers.py': py`
    import torch.nn as nn
    class Stem(nn.Module):
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        def forward(self, x):
            return self.conv(x).relu()
    def helper(x):
        return x * 2
  `,
});

const STEM = py`
  import torch.nn as nn
  class Stem(nn.Module):
      def __init__(self, in_channels, out_channels):
          super().__init__()
          self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
      def forward(self, x):
          return self.conv(x).relu()
`;

/** Where the installed torchvision lives (an original of an installed distribution: the workers preload it). */
const DIST = execFileSync(
  testPython(),
  ['-c', 'import os, torchvision; print(os.path.dirname(os.path.dirname(torchvision.__file__)))'],
  { encoding: 'utf8' },
).trim();
const INSTALLED = { importRoot: DIST, module: 'torchvision.ops.misc', className: 'Permute' };

const fixtures = {
  conv: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels=3, out_channels=8):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
            self.bn = nn.BatchNorm2d(out_channels)
        def forward(self, x):
            return self.bn(self.conv(x)).relu()
  `,
  linear: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(12, 24)
            self.fc2 = nn.Linear(24, 5)
            self.unused = nn.Linear(3, 3)
        def forward(self, x):
            return self.fc2(self.fc1(x).relu())
  `,
  embedding: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 8)
            self.norm = nn.LayerNorm(8)
        def forward(self, tokens):
            return self.norm(self.emb(tokens))
  `,
  needsArgs: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels: int, dim: int, num_heads: int, num_classes: int, use_bias: bool):
            super().__init__()
            assert dim % num_heads == 0
            self.proj = nn.Conv2d(in_channels, dim, 1, bias=use_bias)
            self.head = nn.Linear(dim, num_classes)
        def forward(self, x):
            return self.head(self.proj(x).mean((2, 3)))
  `,
  twoInputs: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(16, 16)
        def forward(self, x, y):
            return self.q(x) + y
  `,
  blockedImport: py`
    import torch.nn as nn
    from upstream_pkg.layers import helper
    class Block(nn.Module):
        def forward(self, x):
            return helper(x)
  `,
  // An import that fails is the corpus's (missing-module), a distribution's (blocked) or an extension's.
  absentDependency: py`
    import torch.nn as nn
    import nnb_absent_q
    from nnb_other_absent_q import helper
    class Block(nn.Module):
        def forward(self, x):
            return helper(x)
  `,
  corpusModule: py`
    import torch.nn as nn
    from nnb_corpus_q.layers import helper
    class Block(nn.Module):
        def forward(self, x):
            return helper(x)
  `,
  declaredNative: py`
    import torch.nn as nn
    import NnbDeformAttnQ
    class Block(nn.Module):
        def forward(self, x):
            return NnbDeformAttnQ.run(x)
  `,
  blockedNative: py`
    import torch.nn as nn
    from upstream_pkg import _C
    class Block(nn.Module):
        def forward(self, x):
            return _C.run(x)
  `,
  unresolved: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = MissingActivation()
        def forward(self, x):
            return self.act(x)
  `,
  forwardError: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
        def forward(self, x):
            raise ValueError("shape mismatch on purpose")
  `,
  syntax: 'import torch.nn as nn\nclass Block(nn.Module):\n    def forward(self, x)\n        return x\n',
  compile: py`
    import torch.nn as nn
    class Block(nn.Module):
        def forward(self, x):
            return x
    return 1
  `,
  overridden: {
    code: py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self, width):
              super().__init__()
              self.fc = nn.Linear(width, 2)
          def forward(self, x):
              return self.fc(x)
    `,
    overrides: { kwargs: { width: 7 }, inputs: [{ shape: [3, 7], dtype: 'float32' }] },
  },
  builder: {
    // Needs a `widths` list nobody can guess; its source's builders show how it is built.
    code: py`
      import torch.nn as nn
      class Net(nn.Module):
          def __init__(self, widths, num_classes=10):
              super().__init__()
              layers, c = [], 3
              for w in widths:
                  layers += [nn.Conv2d(c, w, 3, padding=1), nn.ReLU()]
                  c = w
              self.features = nn.Sequential(*layers)
              self.head = nn.Linear(c, num_classes)
          def forward(self, x):
              return self.head(self.features(x).mean((2, 3)))
      def net_small():
          return Net([8, 16])
      def net_large(num_classes=10):
          return Net([32, 64, 128], num_classes)
      def not_a_net():
          return nn.Linear(2, 2)
    `,
    className: 'Net',
    usage: [
      { origin: 'builder' as const, builder: 'not_a_net' },
      { origin: 'builder' as const, builder: 'net_large' },
      { origin: 'builder' as const, builder: 'net_small' },
    ],
  },
  stem: {
    code: STEM,
    className: 'Stem',
    original: { importRoot: upstream, module: 'upstream_pkg.layers', className: 'Stem' },
  },
  stemChanged: {
    code: STEM.replace('padding=1', 'padding=1, bias=False'),
    className: 'Stem',
    original: { importRoot: upstream, module: 'upstream_pkg.layers', className: 'Stem' },
  },

  // Our own few lines with the behaviour of torchvision's `Permute`, checked against the installed original.
  permute: {
    code: py`
      import torch.nn as nn
      class Permute(nn.Module):
          def __init__(self, dims):
              super().__init__()
              self.order = list(dims)
          def forward(self, x):
              return x.permute(*self.order)
    `,
    className: 'Permute',
    blocked: ['torchvision'],
    original: INSTALLED,
    overrides: { kwargs: { dims: [0, 2, 3, 1] }, inputs: [{ shape: [2, 3, 4, 5], dtype: 'float32' }] },
  },
  // The worker imported torchvision before this block: while it runs, torchvision is neither in sys.modules nor
  // importable (its package is blocked), and the Blocker holds the preloaded modules for fidelity.
  preloaded: {
    code: py`
      import sys
      import torch.nn as nn
      class Block(nn.Module):
          def forward(self, x):
              if any(n.split(".")[0] == "torchvision" for n in sys.modules):
                  raise RuntimeError("torchvision is in sys.modules while the block runs")
              if not [f for f in sys.meta_path if "torchvision" in (getattr(f, "stash", None) or {})]:
                  raise RuntimeError("the worker did not preload torchvision")
              try:
                  import torchvision
              except ModuleNotFoundError:
                  return x * 2
              raise RuntimeError("torchvision imported although its package is blocked")
    `,
    blocked: ['torchvision'],
    original: INSTALLED,
    overrides: { inputs: [{ shape: [2, 3], dtype: 'float32' }] },
  },
  // A builder whose forward takes half the first round's 5 s share is set aside; inference's small one passes.
  setAside: {
    code: py`
      import time
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self, width, slow=False):
              super().__init__()
              self.fc = nn.Linear(width, width)
              self.slow = slow
          def forward(self, x):
              if self.slow:
                  time.sleep(2.6)
              return self.fc(x)
      def big():
          return Block(8, slow=True)
    `,
    usage: [{ origin: 'builder' as const, builder: 'big' }],
  },
  // A construction site at production width (25 M parameters) waits for the second round; inference's passes.
  wideSite: {
    code: py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self, width):
              super().__init__()
              self.fc = nn.Linear(width, width)
          def forward(self, x):
              return self.fc(x)
    `,
    usage: [{ origin: 'usage' as const, kwargs: { width: 5000 } }],
  },
  // A guessed count the constructor turns into work (16 levels of a recursive tree): the first inferred guess builds
  // for 4 s, over inference's share of a build (15% of the 20 s budget); the bigger guesses after it are skipped and
  // the smaller one (8, 2 s) passes. Without the share, 16 would build and pass.
  slowGuess: py`
    import time
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, width: int):
            super().__init__()
            time.sleep(width * 0.25)
            self.fc = nn.Linear(width, width)
        def forward(self, x):
            return self.fc(x)
  `,
  // Says which inputs reached a real forward: after the first one fails, the meta-device probe refuses the next
  // wrong shape without a real forward (or a rebuild), and the fitting one runs for real.
  metaProbe: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 4)
        def forward(self, x):
            if x.device.type != "meta":
                print("real", tuple(x.shape))
            return self.fc(x)
  `,
  // A forward that shrinks its window to a smaller input, then fails (Hugging Face's SwinLayer): the meta twin made
  // after the first failure, and each check on it, must not keep the shrunk window, or the fitting input is refused.
  shrinkingWindow: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.window = 224
            self.conv = nn.Conv2d(3, 4, 3)
        def forward(self, x):
            if x.shape[-1] < self.window:
                self.window = x.shape[-1]
            if x.shape[-1] != 224 or self.window != 224:
                raise ValueError(f"window {self.window} does not fit width {x.shape[-1]}")
            return self.conv(x)
  `,
  // A lazy layer: a failed forward materialises its parameters and sets `num_features` to match; put back, the
  // number would contradict them and the twin would refuse the input that fits (torch's LazyInstanceNorm3d).
  lazyNorm: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LazyInstanceNorm3d()
        def forward(self, x):
            return self.norm(x)
  `,
  // The same slow builder as the only way to build the block: the second round comes back to it and it passes.
  onlyBuilder: {
    code: py`
      import time
      import torch.nn as nn
      class Slow(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(8, 8)
          def forward(self, x):
              time.sleep(2.6)
              return self.fc(x)
      class Block(nn.Module):
          def __init__(self, features: nn.Module):
              super().__init__()
              self.features = features
          def forward(self, x):
              return self.features(x).relu()
      def big():
          return Block(Slow())
    `,
    usage: [{ origin: 'builder' as const, builder: 'big' }],
  },
};

let rec: Record<string, ValidationRecord>;
const progress: number[] = [];

beforeAll(async () => {
  const { items } = fixtureItems(fixtures);
  const probe = items.find((it) => it.id === 'fixture:metaProbe')!;
  probe.usageInputs = [[{ shape: [2, 5], dtype: 'float32' }], [{ shape: [2, 7], dtype: 'float32' }]];
  const records = await validateBlocks(
    items,
    baseOptions({
      onProgress: (done) => progress.push(done),
      corpusPackages: ['nnb_corpus_q'],
      nativeModules: ['NnbDeformAttnQ'],
    }),
  );
  rec = byName(records);
});

describe('validateBlocks on ordinary blocks', () => {
  it('passes a Conv block with a replayable recipe', () => {
    const r = rec.conv;
    expect(r.status).toBe('passed');
    expect(r.failureClass).toBeNull();
    expect(r.stages.map((s) => `${s.stage}:${s.status}`)).toEqual([
      'parse:passed',
      'compile:passed',
      'import:passed',
      'build:passed',
      'forward:passed',
      'backward:passed',
    ]);
    // Conv2d in_channels read off the built module; batch 2; constructor defaults kept.
    expect(r.recipe).toEqual({
      seed: 0,
      origin: 'inference',
      kwargs: {},
      inputs: [{ shape: [2, 3, 32, 32], dtype: 'float32' }],
    });
    expect(r.outputs).toEqual([
      { shape: [2, 8, 32, 32], dtype: 'float32', checksum: expect.any(Number), projection: expect.any(Number) },
    ]);
    expect(r.params).toBe(3 * 8 * 9 + 8 + 8 + 8);
    expect(r.buffers).toBe(8 + 8 + 1); // running mean, var, num_batches_tracked
    expect(r.gradients).toEqual({ withGrad: 4, without: 0, mode: 'train' });
    expect(r.device).toBe('cpu');
    expect(r.torchVersion).toMatch(/^\d+\.\d+/);
    expect(r.moduleTree?.children.conv).toEqual({
      type: 'torch.nn.Conv2d',
      params: { weight: [8, 3, 3, 3], bias: [8] },
      children: {},
    });
    expect(r.peakMemoryBytes).toBeGreaterThanOrEqual(0);
    expect(r.cached).toBe(false);
  });

  it('probes a Linear block by in_features and reports parameters that got no gradient', () => {
    expect(rec.linear.status).toBe('passed');
    expect(rec.linear.recipe?.inputs).toEqual([{ shape: [2, 12], dtype: 'float32' }]);
    expect(rec.linear.outputs[0].shape).toEqual([2, 5]);
    expect(rec.linear.gradients).toEqual({ withGrad: 4, without: 2, mode: 'train' }); // `unused` never runs
  });

  it('feeds an Embedding block integer tokens below num_embeddings', () => {
    expect(rec.embedding.status).toBe('passed');
    expect(rec.embedding.recipe?.inputs).toEqual([{ shape: [2, 16], dtype: 'int64', high: 50 }]);
    expect(rec.embedding.outputs[0]).toMatchObject({ shape: [2, 16, 8], dtype: 'float32' });
  });

  it('infers constructor arguments from names and annotations', () => {
    expect(rec.needsArgs.status).toBe('passed');
    expect(rec.needsArgs.recipe?.kwargs).toEqual({
      in_channels: 3,
      dim: 16,
      num_heads: 2,
      num_classes: 10,
      use_bias: false,
    });
    expect(rec.needsArgs.outputs[0].shape).toEqual([2, 10]);
  });

  it('gives every required forward argument a tensor', () => {
    expect(rec.twoInputs.status).toBe('passed');
    expect(rec.twoInputs.recipe?.inputs).toHaveLength(2);
  });

  it('builds through a builder of its source before guessing, and counts the params of every builder configuration', () => {
    const r = rec.builder;
    expect(r.status).toBe('passed');
    // not_a_net() builds a Linear, not this block: skipped; net_small() is the smallest configuration, tried first.
    expect(r.recipe).toMatchObject({ origin: 'builder', builder: 'net_small', kwargs: {} });
    const conv = (i: number, o: number) => i * o * 9 + o;
    expect(r.params).toBe(conv(3, 8) + conv(8, 16) + 16 * 10 + 10);
    const at224 = { input: [1, 3, 224, 224], outputs: [[1, 10]] };
    // Multiply-adds at 224 pixels (convolutions at full size, padding 1, then the head), where torch counts them.
    const macs = (widths: number[]) =>
      widths.reduce((sum, w, i) => sum + (i ? widths[i - 1] : 3) * w * 9 * 224 * 224, 0) + widths.at(-1)! * 10;
    const counted = r.canonical?.some((c) => c.macs !== undefined);
    expect(r.canonical).toEqual([
      // Output shapes at the default 224-pixel input, from a meta-device forward; MACs with torch >= 2.1.
      {
        builder: 'net_large',
        params: conv(3, 32) + conv(32, 64) + conv(64, 128) + 128 * 10 + 10,
        ...at224,
        ...(counted ? { macs: macs([32, 64, 128]) } : {}),
      },
      {
        builder: 'net_small',
        params: conv(3, 8) + conv(8, 16) + 16 * 10 + 10,
        ...at224,
        ...(counted ? { macs: macs([8, 16]) } : {}),
      },
    ]);
  });

  it('uses per-block overrides instead of inference', () => {
    expect(rec.overridden.status).toBe('passed');
    expect(rec.overridden.recipe).toEqual({
      seed: 0,
      origin: 'override',
      kwargs: { width: 7 },
      inputs: [{ shape: [3, 7], dtype: 'float32' }],
    });
  });

  it('classifies an import of a blocked upstream package as missing-module, naming what was asked for', () => {
    expect(rec.blockedImport).toMatchObject({
      status: 'failed',
      failureClass: 'missing-module',
      failureDetail: 'upstream_pkg.layers',
    });
    expect(rec.blockedImport.stages.at(-1)).toMatchObject({ stage: 'import', status: 'failed' });
  });

  it('blocks a block whose only problem is distributions that are not installed, naming them all', () => {
    expect(rec.absentDependency).toMatchObject({
      status: 'blocked',
      failureClass: 'missing-dependency',
      failureDetail: 'nnb_absent_q, nnb_other_absent_q',
    });
  });

  it('fails, not blocks, a block missing a package of the corpus (our resolver missed it)', () => {
    // The same import error as a missing distribution's; only the corpus's package list tells them apart.
    expect([rec.corpusModule, rec.absentDependency].map((r) => [r.status, r.failureClass])).toEqual([
      ['failed', 'missing-module'],
      ['blocked', 'missing-dependency'],
    ]);
    expect(rec.corpusModule.failureDetail).toBe('nnb_corpus_q');
  });

  it('classifies compiled extensions as native-extension: declared by a setup.py, or `from pkg import _C`', () => {
    expect(rec.declaredNative).toMatchObject({
      status: 'failed',
      failureClass: 'native-extension',
      failureDetail: 'NnbDeformAttnQ',
    });
    expect(rec.blockedNative).toMatchObject({
      status: 'failed',
      failureClass: 'native-extension',
      failureDetail: 'upstream_pkg._C',
    });
  });

  it('classifies an unbound name as unresolved-name, naming it', () => {
    expect(rec.unresolved).toMatchObject({
      status: 'failed',
      failureClass: 'unresolved-name',
      failureDetail: 'MissingActivation',
    });
  });

  it('classifies a raising forward as forward-error with a trimmed error', () => {
    expect(rec.forwardError).toMatchObject({ status: 'failed', failureClass: 'forward-error' });
    expect(rec.forwardError.stages.at(-1)?.error).toContain('shape mismatch on purpose');
  });

  it('classifies syntax and compile errors by the stage that caught them', () => {
    expect(rec.syntax).toMatchObject({ status: 'failed', failureClass: 'syntax' });
    expect(rec.compile).toMatchObject({ status: 'failed', failureClass: 'compile' });
    expect(rec.compile.stages.map((s) => s.stage)).toEqual(['parse', 'compile']);
  });

  it('replays the recipe on the original class: identical, or differs with the reason', () => {
    expect(rec.stem.status).toBe('passed');
    expect(rec.stem.fidelity).toEqual({ status: 'identical' });
    expect(rec.stemChanged.status).toBe('passed');
    expect(rec.stemChanged.fidelity.status).toBe('differs');
    expect(rec.stemChanged.fidelity.reason).toContain('parameter count');
    expect(rec.conv.fidelity.status).toBe('n/a');
  });

  it('sets a slow builder aside for the smaller candidates, and comes back to it when nothing else builds', () => {
    expect(rec.setAside.status).toBe('passed');
    expect(rec.setAside.recipe).toMatchObject({ origin: 'inference', kwargs: { width: 16 } });
    expect(rec.wideSite.recipe).toMatchObject({ origin: 'inference', kwargs: { width: 16 } });
    expect(rec.onlyBuilder.status).toBe('passed');
    expect(rec.onlyBuilder.recipe).toMatchObject({ origin: 'builder', builder: 'big' });
    expect(rec.onlyBuilder.gradients).toMatchObject({ withGrad: 2, mode: 'train' });
  });

  it('holds an inferred build to its share and skips the bigger guesses after one that ran over', () => {
    expect(rec.slowGuess.status, JSON.stringify(rec.slowGuess.stages)).toBe('passed');
    expect(rec.slowGuess.recipe).toMatchObject({ origin: 'inference', kwargs: { width: 8 } });
  });

  it('checks further inputs on the meta device once a forward failed, and runs for real only those that fit', () => {
    const r = rec.metaProbe;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 12], dtype: 'float32' }]);
    expect(r.stdoutTail).toContain('real (2, 5)');
    expect(r.stdoutTail).not.toContain('real (2, 7)');
  });

  it('checks inputs on a meta twin whose plain attributes a failed forward or check changed put back', () => {
    const r = rec.shrinkingWindow;
    expect(r.status, JSON.stringify(r.stages)).toBe('passed');
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 3, 224, 224], dtype: 'float32' }]);
    // A lazy layer's attributes stay as its forward left them, in step with the parameters it materialised.
    expect(rec.lazyNorm.status, JSON.stringify(rec.lazyNorm.stages)).toBe('passed');
  });

  it("preloads an installed distribution's original once, refuses it to the block, and replays on it", () => {
    expect(rec.preloaded.status).toBe('passed');
    expect(rec.preloaded.stages.at(-1)?.error).toBeUndefined();
    expect(rec.permute.status).toBe('passed');
    expect(rec.permute.fidelity).toEqual({ status: 'identical' });
  });

  it('reports progress once per block', () => {
    expect(progress).toEqual(Array.from({ length: Object.keys(fixtures).length }, (_, i) => i + 1));
  });
});
