// Composite recipes in the runner (docs/validate.md, "Recipes", origin `part`): a block only a bigger model builds
// is found in the model a builder of its module makes (exact class, first in `named_modules()` order), fed what the
// model's forward passes it (positional and keyword arguments, taken with a pre-hook), and replayed the same way on
// the original for fidelity. Real runner.py, real bubblewrap, real torch; the fixtures are our own few lines.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { RecipeCandidate, ValidationRecord } from '../../pipeline/validate/types.ts';
import { py, writeTree } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

// A head that takes a module instance (its backbone) and a count: nothing inference makes. Only `Net` builds it,
// and calls it with a keyword argument; `net()` is a zero-argument builder of the module. `Wrapped` holds a
// subclass of Head only, which is another block.
const MODELS = py`
  import torch
  import torch.nn as nn

  class Backbone(nn.Module):
      def __init__(self):
          super().__init__()
          self.conv = nn.Conv2d(3, 8, 3, padding=1)
      def forward(self, x):
          return self.conv(x).relu()

  class Head(nn.Module):
      def __init__(self, backbone: nn.Module, n: int):
          super().__init__()
          self.fc = nn.Linear(backbone.conv.out_channels, n)
      def forward(self, features, *, scale):
          return self.fc(features.mean((2, 3))) * scale

  class SubHead(Head):
      pass

  class Net(nn.Module):
      def __init__(self, n=4):
          super().__init__()
          self.backbone = Backbone()
          self.head = Head(self.backbone, n)
      def forward(self, x):
          return self.head(self.backbone(x), scale=2.0)

  class Wrapped(nn.Module):
      def __init__(self):
          super().__init__()
          self.backbone = Backbone()
          self.head = SubHead(self.backbone, 3)
      def forward(self, x):
          return self.head(self.backbone(x), scale=1.0)

  class Holder(nn.Module):
      def __init__(self):
          super().__init__()
          self.backbone = Backbone()
          self.head = Head(self.backbone, 2)

  def net(weights=None):
      return Net()

  class Raiser(Holder):
      def forward(self, x):
          """Use the predictor."""
          raise NotImplementedError("use the predictor's methods")

  def holder(weights=None):
      return Holder()

  def raiser(weights=None):
      return Raiser()

  def wrapped():
      return Wrapped()
`;

const upstream = writeTree({ 'upstream_parts/__init__.py': '', 'upstream_parts/models.py': MODELS });
const part = (builder: string): RecipeCandidate => ({
  origin: 'part',
  builder,
  builderModule: 'upstream_parts.models',
  kwargs: { weights: null },
});

describe('composite recipes', () => {
  let r: Record<string, ValidationRecord>;

  beforeAll(async () => {
    const { items } = fixtureItems({
      head: {
        code: MODELS,
        className: 'Head',
        blocked: ['upstream_parts'],
        usage: [part('net')],
        original: { importRoot: upstream, module: 'upstream_parts.models', className: 'Head' },
      },
      // The only model offered holds a Head but has no forward to reach it through (nn.Module's, which raises).
      noForward: { code: MODELS, className: 'Head', usage: [part('holder')] },
      // ... nor one whose forward only raises (ultralytics' SAM2Model points to its predictor).
      raisingForward: { code: MODELS, className: 'Head', usage: [part('raiser')] },
      // The only model offered holds a subclass: not a Head, so no part recipe.
      onlySubclass: { code: MODELS, className: 'Head', usage: [{ ...part('wrapped'), kwargs: {} }] },
      // A builder's model that no probe feeds (a final pooling over 16 frames of 100 pixels, as S3D's): tried again
      // after inference at the larger geometries, the smallest its meta-device twin takes.
      video: {
        code: py`
          import torch.nn as nn
          class Block(nn.Module):
              def __init__(self, width):
                  super().__init__()
                  self.conv = nn.Conv3d(3, width, 3, padding=1)
                  self.pool = nn.AvgPool3d((16, 100, 100))
              def forward(self, x):
                  return self.pool(self.conv(x)).flatten(1)
          def video():
              return Block(4)
        `,
        usage: [{ origin: 'builder', builder: 'video' }],
      },
      // A block whose model holds two: the first in named_modules() order is the one.
      twice: {
        code: py`
          import torch.nn as nn
          class Block(nn.Module):
              def __init__(self, width: nn.Module):
                  super().__init__()
                  self.fc = nn.Linear(4, 4)
              def forward(self, x):
                  return self.fc(x)
          class Pair(nn.Module):
              def __init__(self):
                  super().__init__()
                  self.first = nn.Sequential(nn.Linear(4, 4), Block(None))
                  self.second = Block(None)
              def forward(self, x):
                  return self.second(self.first(x))
          def pair():
              return Pair()
        `,
        usage: [{ origin: 'part', builder: 'pair', builderModule: 'pkg.pairs' }],
      },
    });
    r = byName(await validateBlocks(items, baseOptions({ timeoutMs: 40_000 })));
  }, 120_000);

  it('builds the block as the part of the model and feeds it what the model passes, keywords included', () => {
    const head = r.head;
    expect(head.failureDetail).toBeNull();
    expect(head.status).toBe('passed');
    expect(head.recipe).toMatchObject({
      origin: 'part',
      builder: 'net',
      builderModule: 'upstream_parts.models',
      path: 'head',
      kwargs: { weights: null },
    });
    // The inputs are the model's (an image); the outputs, counts and tree are the head's: fc(8 -> 4).
    expect(head.recipe!.inputs[0]).toMatchObject({ dtype: 'float32', shape: [2, 3, 32, 32] });
    expect(head.outputs.map((o) => o.shape)).toEqual([[2, 4]]);
    expect(head.params).toBe(8 * 4 + 4);
    expect(head.moduleTree?.type).toMatch(/\.Head$/);
    expect(head.gradients).toMatchObject({ withGrad: 2, without: 0, mode: 'train' });
    // Replayed on the original: the builder of the original package, the same path, the same inputs.
    expect(head.fidelity).toEqual({ status: 'identical' });
  });

  it("tries a builder no probe fed at a larger input its model takes, after inference's guesses", () => {
    expect(r.video.status).toBe('passed');
    expect(r.video.recipe).toMatchObject({ origin: 'builder', inputs: [{ shape: [1, 3, 16, 112, 112] }] });
  });

  it('passes over a model without a forward of its own, or whose forward only raises: nothing builds the block then', () => {
    expect(r.noForward.status).toBe('failed');
    expect(r.noForward.recipe).toBeNull();
    // Without the check the Holder built, and its forward (nn.Module's) failed: a `forward-error` of no use.
    expect(r.noForward.stages.map((s) => s.stage)).not.toContain('forward');
    expect(r.noForward.failureClass).toBe('needs-arguments');
    expect(r.raisingForward.stages.map((s) => s.stage)).not.toContain('forward');
    expect(r.raisingForward.failureClass).toBe('needs-arguments');
  });

  it('takes only a submodule of exactly the block class, the first one', () => {
    expect(r.onlySubclass.status).toBe('failed');
    expect(r.onlySubclass.recipe).toBeNull();
    // `width: nn.Module` is nothing inference makes; the first Block is inside a Sequential, at an index.
    expect(r.twice.status).toBe('passed');
    expect(r.twice.recipe).toMatchObject({ origin: 'part', builder: 'pair', path: 'first.1' });
  });
});
