// Composite recipes with module instances end to end (docs/validate.md, "Recipes", origin `instance`, and config
// dicts of construction sites): a detector that takes a `backbone` instance, reads `backbone.num_channels` and
// calls it, is built with the block of its source that offers that attribute (not the one that does not); an
// OpenMMLab-style classifier that builds its `backbone` and `neck` through a tiny registry gets the config dicts a
// config file of the corpus gives it, and one with no such site gets a registered class that fits, by name. Through
// the real build, sandboxed validation, and the site's replay script on the extracted module.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { blockInstances } from '../../pipeline/run/extract-step.ts';
import { instanceCombinations } from '../../pipeline/run/instance-choices.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { testPython } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  'pkg/__init__.py': '',
  'pkg/backbones.py': py`
    import torch.nn as nn

    class TinyBackbone(nn.Module):
        def __init__(self, in_channels, width=8):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, width, 3, padding=1)
            self.num_channels = width
        def forward(self, x):
            return self.conv(x).relu()

    # Offers no num_channels: it does not fit the detector's contract, though its name says backbone.
    class DecoyBackbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)
        def forward(self, x):
            return self.conv(x)
  `,
  // Takes a module instance: reads an attribute off it in __init__, calls it (through self.body) in forward.
  'pkg/detector.py': py`
    import torch.nn as nn

    class Detector(nn.Module):
        def __init__(self, backbone, num_classes):
            super().__init__()
            self.body = backbone
            self.cls = nn.Conv2d(backbone.num_channels, num_classes, 1)
        def forward(self, x):
            return self.cls(self.body(x))
  `,
  // Reads `out_dim` off its encoder, which no block of the source sets: no instance fits, and no number is guessed.
  'pkg/wrapper.py': py`
    import torch.nn as nn

    class Wrapper(nn.Module):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder
            self.fc = nn.Linear(self.encoder.out_dim, 2)
        def forward(self, x):
            return self.fc(self.encoder(x))
  `,
  // OpenMMLab style: a registry, classes that register themselves, classifiers that build from config dicts.
  'pkg/registry.py': py`
    class Registry:
        def __init__(self):
            self.classes = {}
        def register_module(self, name=None):
            def add(cls):
                self.classes[name or cls.__name__] = cls
                return cls
            return add
        def build(self, cfg):
            cfg = dict(cfg)
            return self.classes[cfg.pop("type")](**cfg)

    MODELS = Registry()
  `,
  'pkg/mm.py': py`
    import torch.nn as nn
    from .registry import MODELS

    @MODELS.register_module()
    class ConvNet(nn.Module):
        def __init__(self, depth, out_channels=8):
            super().__init__()
            assert depth in (18, 34), "depth must be 18 or 34"
            self.out_channels = out_channels
            self.conv = nn.Conv2d(3, out_channels, 3, padding=1)
        def forward(self, x):
            return self.conv(x)

    @MODELS.register_module()
    class GlobalPool(nn.Module):
        def forward(self, x):
            return x.mean((2, 3))

    @MODELS.register_module()
    class Classifier(nn.Module):
        def __init__(self, backbone, neck, num_classes=10):
            super().__init__()
            self.backbone = MODELS.build(backbone)
            self.neck = MODELS.build(neck)
            self.fc = nn.Linear(self.backbone.out_channels, num_classes)
        def forward(self, x):
            return self.fc(self.neck(self.backbone(x)))

    # No config of the corpus builds it: a registered class whose name shares the parameter's is named.
    class PoolHead(nn.Module):
        def __init__(self, pool):
            super().__init__()
            self.pool = MODELS.build(pool)
        def forward(self, x):
            return self.pool(x) * 2
  `,
  'pkg/configs.py': py`
    model = dict(type="Classifier", backbone=dict(type="ConvNet", depth=18), neck=dict(type="GlobalPool"))
  `,
};

describe('composite recipes with module instances in a build', () => {
  let config: string;
  let out: string;
  const spec = (name: string): BlockSpec =>
    JSON.parse(readFileSync(join(out, 'blocks', `fx.pkg.${name}.json`), 'utf8')) as BlockSpec;

  beforeAll(async () => {
    config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    out = tempDir('nnb-instances-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 240_000);

  it('reads the contract a block asks of its modules and picks the blocks that fit it', async () => {
    const { ctx, p } = await prepareRun(config);
    ctx.store.close();
    const block = (name: string) => p.discovered.blocks.find((b) => b.name === name)!;
    // `backbone.num_channels` and `self.body(x)`: TinyBackbone sets num_channels, DecoyBackbone does not.
    const detector = blockInstances(p, block('Detector'));
    expect(detector).toEqual([
      {
        param: 'backbone',
        config: false,
        choices: [
          {
            path: 'pkg/backbones.py',
            module: 'pkg.backbones',
            name: 'TinyBackbone',
            blockId: 'fx:pkg.backbones.TinyBackbone',
          },
        ],
      },
    ]);
    expect(instanceCombinations(detector)).toEqual([{ backbone: { class: '.TinyBackbone', module: 'pkg.backbones' } }]);
    // `MODELS.build(pool)`: a config; GlobalPool is registered and its name shares `pool`.
    expect(blockInstances(p, block('PoolHead'))).toMatchObject([
      { param: 'pool', config: true, choices: [{ name: 'GlobalPool' }] },
    ]);
    // A block that takes no module has no slot; one whose contract no block fits has a slot without choices.
    expect(blockInstances(p, block('TinyBackbone'))).toEqual([]);
    expect(blockInstances(p, block('Wrapper'))).toEqual([{ param: 'encoder', config: false, choices: [] }]);
  });

  it('validates the detector with an instance of the block that fits, and says which', () => {
    expect(checkCatalog(out).errors).toEqual([]);
    const v = spec('detector.detector').validation!;
    expect(v.status).toBe('passed');
    expect(v.recipe?.origin).toBe('instance');
    expect(v.recipe?.calls).toMatchObject([{ name: 'backbone', target: '.TinyBackbone' }]);
    expect(v.recipe?.kwargs.map((k) => k.name)).toEqual(['num_classes']);
    // The original is built with the original package's TinyBackbone (`pkg.backbones`, which `pkg` does not export).
    expect(v.fidelity).toBe('exact');
  });

  it('builds the classifier from the config dicts of the corpus, through its registry', () => {
    const v = spec('mm.classifier').validation!;
    expect(v.status).toBe('passed');
    expect(v.recipe?.origin).toBe('usage');
    // depth=18 from the config file: inference's guess (2) fails ConvNet's assertion.
    expect(v.recipe?.calls).toEqual([
      {
        name: 'backbone',
        target: 'builtins.dict',
        kwargs: [
          { name: 'type', value: 'ConvNet' },
          { name: 'depth', value: 18 },
        ],
      },
      { name: 'neck', target: 'builtins.dict', kwargs: [{ name: 'type', value: 'GlobalPool' }] },
    ]);
    expect(v.outputs.map((o) => o.shape)).toEqual([[2, 10]]);
    expect(v.fidelity).toBe('exact');
  });

  it('names a registered class that fits where no config of the corpus builds the block', () => {
    const v = spec('mm.poolhead').validation!;
    expect(v.status).toBe('passed');
    expect(v.recipe?.origin).toBe('instance');
    expect(v.recipe?.calls).toEqual([
      { name: 'pool', target: 'builtins.dict', kwargs: [{ name: 'type', value: 'GlobalPool' }] },
    ]);
    expect(v.fidelity).toBe('exact');
  });

  it('names a module parameter no block fits as missing, instead of guessing a number for it', () => {
    const v = spec('wrapper.wrapper').validation!;
    expect(v.status).toBe('not-run');
    expect(v.failureClass).toBe('needs-arguments');
    expect(v.reason?.missing).toEqual(['encoder']);
  });

  it('replays the instance recipe to the recorded checksum on the extracted module', async () => {
    for (const name of ['detector.detector', 'mm.classifier']) {
      const s = spec(name);
      const dir = tempDir('nnb-instances-replay-');
      expect(await runCli(['extract', s.id, '--config', config, '--out', join(dir, 'blocks')], quiet)).toBe(0);
      const script = replayScript(s)!;
      expect(script).toMatch(name === 'mm.classifier' ? /import_module\('builtins'\), 'dict'\)/ : /'TinyBackbone'/);
      writeFileSync(join(dir, 'replay.py'), `${script}\nprint(float(out.double().abs().sum()))\n`);
      const printed = execFileSync(testPython(), ['-I', 'replay.py'], { cwd: dir, encoding: 'utf8' });
      // float32 sums on another thread count: the same to a relative 1e-6.
      const recorded = Number(s.validation!.outputs[0].checksum);
      expect(Math.abs(Number(printed.trim().split('\n').pop()) - recorded) / recorded).toBeLessThan(1e-6);
    }
  }, 60_000);
});
