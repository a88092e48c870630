// Recipes a package's layout gives (docs/validate.md, "Recipes"; docs/config.md, "Validate"), end to end on a fixture
// shaped like Segment Anything: the model class in `pkg/modeling/model.py`, its zero-argument builder in the sibling
// `pkg/build_model.py` (SAM's `build_sam.py`), a decoder that takes a transformer *instance* (SAM's MaskDecoder), and a
// position embedding whose forward takes a `size` *tuple* (SAM's PositionEmbeddingRandom). The builder becomes the
// model's recipe; config overrides build the instance and pass the tuple; each recipe replays, through the site's
// script on the extracted module, to its recorded checksum.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { overrideClasses, partBuilders, siblingBuilders } from '../../pipeline/run/extract-step.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { testPython } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  // As SAM's package: the builders exported at the top, the modeling classes one package down.
  'pkg/__init__.py': 'from .build_model import build_model_small, build_model_tiny\n',
  'pkg/build_model.py': py`
    from .modeling import Decoder, Encoder, Mixer, Model

    def build_model_small(checkpoint=None):
        return _build(dim=8, depth=2, checkpoint=checkpoint)

    def build_model_tiny(checkpoint=None):
        return _build(dim=4, depth=1, checkpoint=checkpoint)

    def _build(dim, depth, checkpoint=None):
        model = Model(
            encoder=Encoder(dim=dim, depth=depth),
            decoder=Decoder(transformer=Mixer(depth=depth, dim=dim), transformer_dim=dim),
        )
        model.eval()
        if checkpoint is not None:
            raise ValueError("no checkpoints in a fixture")
        return model
  `,
  'pkg/modeling/__init__.py': py`
    from .model import Model
    from .encoder import Encoder
    from .decoder import Decoder
    from .mixer import Mixer
    from .embed import PositionEmbedding
  `,
  'pkg/modeling/model.py': py`
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, encoder: nn.Module, decoder: nn.Module):
            super().__init__()
            self.encoder = encoder
            self.decoder = decoder
        def forward(self, x):
            return self.decoder(self.encoder(x))
  `,
  'pkg/modeling/encoder.py': py`
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self, dim: int, depth: int):
            super().__init__()
            self.layers = nn.Sequential(*[nn.Linear(dim, dim) for _ in range(depth)])
        def forward(self, x):
            return self.layers(x)
  `,
  'pkg/modeling/mixer.py': py`
    import torch.nn as nn

    class Mixer(nn.Module):
        def __init__(self, depth: int, dim: int, norm: nn.Module = None):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
            self.norm = norm if norm is not None else nn.Identity()
        def forward(self, x):
            for layer in self.layers:
                x = layer(x).relu()
            return self.norm(x)
  `,
  // It takes a module instance nothing infers, as SAM's MaskDecoder takes its TwoWayTransformer.
  'pkg/modeling/decoder.py': py`
    import torch.nn as nn

    class Decoder(nn.Module):
        def __init__(self, *, transformer: nn.Module, transformer_dim: int):
            super().__init__()
            self.transformer = transformer
            self.out = nn.Linear(transformer_dim, 2)
        def forward(self, tokens):
            return self.out(self.transformer(tokens))
  `,
  // Its forward takes a size tuple, as SAM's PositionEmbeddingRandom does; a list will not do.
  'pkg/modeling/embed.py': py`
    from typing import Tuple
    import torch
    import torch.nn as nn

    class PositionEmbedding(nn.Module):
        def __init__(self, num_pos_feats: int = 4):
            super().__init__()
            self.register_buffer("gaussian", torch.randn(2, num_pos_feats))
            self.scale = nn.Parameter(torch.ones(1))
        def forward(self, size: Tuple[int, int]):
            if not isinstance(size, tuple):
                raise TypeError(f"size must be a tuple, not {type(size).__name__}")
            h, w = size
            grid = torch.ones(h, w)
            coords = torch.stack([grid.cumsum(1) / w, grid.cumsum(0) / h], -1) @ self.gaussian
            return torch.cat([coords.sin(), coords.cos()], -1).permute(2, 0, 1) * self.scale
  `,
};

/** SAM's MaskDecoder(transformer=TwoWayTransformer(...)) and PositionEmbeddingRandom()(size=(8, 8)), in this package. */
const OVERRIDES = {
  Decoder: {
    kwargs: {
      transformer_dim: 8,
      transformer: {
        class: '.Mixer',
        kwargs: {
          depth: 2,
          dim: 8,
          norm: { class: 'torch.nn.LayerNorm', kwargs: { normalized_shape: { tuple: [8] } } },
        },
      },
    },
    inputs: [{ shape: [2, 5, 8], dtype: 'float32' }],
  },
  PositionEmbedding: { kwargs: {}, inputs: [{ shape: [], dtype: 'int64', value: { tuple: [8, 8] } }] },
};

describe('recipes from the package: sibling builders, instance and tuple overrides', () => {
  let config: string;
  let out: string;
  const spec = (name: string): BlockSpec =>
    JSON.parse(readFileSync(join(out, 'blocks', `fx.pkg.modeling.${name}.json`), 'utf8')) as BlockSpec;

  beforeAll(async () => {
    const source = gitRepo(TREE).dir;
    config = writeConfig([{ id: 'fx', kind: 'path', path: source }], { validate: { overrides: OVERRIDES } });
    out = tempDir('nnb-pkg-recipes-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 300_000);

  it('finds the builders of a block in a sibling module of its package, and the classes an override names', async () => {
    const { ctx, p } = await prepareRun(config);
    ctx.store.close();
    const block = (name: string) => p.discovered.blocks.find((b) => b.name === name)!;
    // Model's module has no builder; `pkg/build_model.py` has two, through a helper, as SAM's build_sam.py.
    expect(siblingBuilders(p, block('Model')).map((f) => [f.name, f.module])).toEqual([
      ['build_model_small', 'pkg.build_model'],
      ['build_model_tiny', 'pkg.build_model'],
    ]);
    // A model's own builders are not the builders of a model that holds it.
    expect(partBuilders(p, block('Model'))).toEqual([]);
    // The decoder is still a part of the model those builders make; it has no builder of its own.
    expect(siblingBuilders(p, block('Decoder'))).toEqual([]);
    expect(partBuilders(p, block('Decoder')).map((f) => f.name)).toEqual(['build_model_small', 'build_model_tiny']);
    expect(overrideClasses(p, block('Decoder'), OVERRIDES.Decoder)).toEqual([
      { path: 'pkg/modeling/mixer.py', name: 'Mixer' },
    ]);
  });

  it('validates the model through its sibling builder, fidelity through the original package', () => {
    expect(checkCatalog(out).errors).toEqual([]);
    const v = spec('model.model').validation!;
    expect(v.status).toBe('passed');
    // The smaller of the two first, as for any builders (ordered by their canonical counts).
    expect(v.recipe).toMatchObject({ origin: 'builder', builder: 'build_model_tiny' });
    expect(v.recipe!.builderModule).toBeUndefined();
    expect(v.fidelity).toBe('exact');
    expect(v.canonical?.map((c) => c.builder)).toEqual(['build_model_small', 'build_model_tiny']);
  });

  it('builds an override instance, nested instance and tuple included, from a sibling module', () => {
    const v = spec('decoder.decoder').validation!;
    expect(v.status).toBe('passed');
    expect(v.fidelity).toBe('exact');
    expect(v.recipe).toMatchObject({
      origin: 'override',
      kwargs: [{ name: 'transformer_dim', value: 8 }],
      calls: [
        {
          name: 'transformer',
          target: '.Mixer',
          kwargs: [
            { name: 'depth', value: 2 },
            { name: 'dim', value: 8 },
            {
              name: 'norm',
              value: { call: 'torch.nn.LayerNorm', kwargs: [{ name: 'normalized_shape', value: { tuple: [8] } }] },
            },
          ],
        },
      ],
    });
    expect(v.outputs.map((o) => o.shape)).toEqual([[2, 5, 2]]);
    // Two Linear(8, 8), the LayerNorm's 16, the head's Linear(8, 2).
    expect(v.params).toBe(2 * 72 + 16 + 18);
  });

  it('passes a tuple input as a tuple', () => {
    const v = spec('embed.positionembedding').validation!;
    expect(v.status).toBe('passed');
    expect(v.recipe!.inputs).toEqual([{ shape: [], dtype: 'int64', value: { tuple: [8, 8] } }]);
    expect(v.outputs.map((o) => o.shape)).toEqual([[8, 8, 8]]);
  });

  it('replays each to its recorded checksum through the site script, on the extracted module', async () => {
    const dir = tempDir('nnb-pkg-replay-');
    const specs = ['model.model', 'decoder.decoder', 'embed.positionembedding'].map(spec);
    // The page's command extracts one block: a standalone module, holding its builders (here three at once, so
    // `--standalone`: several blocks are otherwise one package, where a sibling builder stays in its own module).
    expect(
      await runCli(
        ['extract', ...specs.map((s) => s.id), '--standalone', '--config', config, '--out', join(dir, 'blocks')],
        quiet,
      ),
    ).toBe(0);
    const scripts = specs.map((s) => replayScript(s)!);
    expect(scripts[0]).toContain("model = getattr(module, 'build_model_tiny')(**kwargs)");
    expect(scripts[1]).toContain(
      "'transformer': getattr(module, 'Mixer')(depth=2, dim=8, norm=getattr(importlib.import_module('torch.nn'), 'LayerNorm')(normalized_shape=(8,))),",
    );
    expect(scripts[2]).toContain('x0 = (8, 8)');
    for (const [i, s] of specs.entries()) {
      writeFileSync(join(dir, `replay${i}.py`), `${scripts[i]}\nprint(float(out.double().abs().sum()))\n`);
      // The script checks its outputs against the record itself (and says so); the sum printed after is the last line.
      const printed = execFileSync(testPython(), ['-I', `replay${i}.py`], { cwd: dir, encoding: 'utf8' });
      const sum = printed.trim().split('\n').pop();
      expect(Number(sum), s.id).toBeCloseTo(Number(s.validation!.outputs[0].checksum), 6);
    }
  });
});
