// Composite recipes end to end (docs/validate.md, "Recipes", origin `part`): a head that only another module's
// model builds (`Head(backbone, n)` inside `Net.__init__`, `net()` a zero-argument builder of `nets.py`) is found by
// usage mining, gets `net` and its closure assembled into its own module, passes validation as `net().head`, and its
// published recipe replays, through the site's script on the extracted module, to the recorded checksum.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { partBuilders } from '../../pipeline/run/extract-step.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { usageOf } from '../../src/lib/usage-snippet.ts';
import { testPython } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  'pkg/__init__.py': '',
  // The head: it takes a module instance and a count, nothing inference makes; its forward wants a keyword too.
  'pkg/heads.py': py`
    import torch.nn as nn

    class Head(nn.Module):
        def __init__(self, backbone: nn.Module, n: int):
            super().__init__()
            self.fc = nn.Linear(backbone.conv.out_channels, n)
        def forward(self, features, *, scale):
            return self.fc(features.mean((2, 3))) * scale
  `,
  // The model that builds it, through a helper, and the zero-argument builder of that model.
  'pkg/nets.py': py`
    import torch.nn as nn
    from .heads import Head

    class Backbone(nn.Module):
        def __init__(self, width=8):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3, padding=1)
        def forward(self, x):
            return self.conv(x).relu()

    def make_head(backbone, n):
        return Head(backbone, n)

    class Net(nn.Module):
        def __init__(self, n=4):
            super().__init__()
            self.backbone = Backbone()
            self.head = make_head(self.backbone, n)
        def forward(self, x):
            return self.head(self.backbone(x), scale=2.0)

    def net(weights=None, progress=True):
        return Net()
  `,
  // A model whose forward only raises (a predictor calls its parts one by one, as ultralytics' SAM2Model): an
  // abstract block, nearer to the head than Net, and no part's parent.
  'pkg/predictors.py': py`
    import torch.nn as nn
    from .heads import Head
    from .nets import Backbone

    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = Backbone()
            self.head = Head(self.backbone, 2)
        def forward(self, x):
            raise NotImplementedError("use the predictor")

    def tracker():
        return Tracker()
  `,
};

describe('composite recipes in a build', () => {
  let config: string;
  let source: string;
  let out: string;
  const spec = (name: string): BlockSpec =>
    JSON.parse(readFileSync(join(out, 'blocks', `fx.pkg.${name}.json`), 'utf8')) as BlockSpec;

  beforeAll(async () => {
    source = gitRepo(TREE).dir;
    config = writeConfig([{ id: 'fx', kind: 'path', path: source }]);
    out = tempDir('nnb-parts-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 180_000);

  it('finds the builders whose model holds the block, through classes and helper functions', async () => {
    const { ctx, p } = await prepareRun(config);
    ctx.store.close();
    const block = (name: string) => p.discovered.blocks.find((b) => b.name === name)!;
    // Head <- make_head (a function) <- Net.__init__ (a class) <- net (a zero-argument builder of Net). Tracker is
    // nearer (Head is built in its __init__) but abstract: its forward only raises.
    expect(block('Tracker').abstract).toBe(true);
    expect(partBuilders(p, block('Head')).map((b) => [b.name, b.module, b.depth])).toEqual([['net', 'pkg.nets', 3]]);
    // Net has a builder of its own: it is a model, built by it, not a part.
    expect(partBuilders(p, block('Net'))).toEqual([]);
    // With the model left out of the catalog (`symbols`), the walk goes through its class all the same.
    const only = writeConfig([{ id: 'fx', kind: 'path', path: source, symbols: ['Head'] }]);
    const run = await prepareRun(only);
    run.ctx.store.close();
    const head = run.p.discovered.blocks.find((b) => b.name === 'Head')!;
    expect(run.p.discovered.blocks.map((b) => b.name)).toEqual(['Head']);
    // Tracker is no discovered block then, so nothing says it is abstract: it is offered, and the runner passes it
    // over when its build shows the forward (test/validate/part.test.ts).
    expect(partBuilders(run.p, head).map((b) => [b.name, b.blockId])).toEqual([
      ['tracker', 'fx:pkg.predictors.Tracker'],
      ['net', 'fx:pkg.nets.Net'],
    ]);
  });

  it('validates the head as the part of that model, with a schema-valid recipe', () => {
    expect(checkCatalog(out).errors).toEqual([]);
    const v = spec('heads.head').validation!;
    expect(v.status).toBe('passed');
    expect(v.fidelity).toBe('exact');
    expect(v.recipe).toMatchObject({
      origin: 'part',
      builder: 'net',
      builderModule: 'pkg.nets',
      path: 'head',
      kwargs: [
        { name: 'weights', value: null },
        { name: 'progress', value: false },
      ],
    });
    expect(v.outputs.map((o) => o.shape)).toEqual([[2, 4]]);
    expect(v.params).toBe(8 * 4 + 4);
  });

  it('replays to the recorded checksum through the site script, on the extracted module', async () => {
    const s = spec('heads.head');
    const dir = tempDir('nnb-parts-replay-');
    expect(await runCli(['extract', s.id, '--config', config, '--out', join(dir, 'blocks')], quiet)).toBe(0);
    const script = replayScript(s)!;
    expect(script).toContain("block = model.get_submodule('head')");
    expect(script).toContain('register_forward_pre_hook(grab, with_kwargs=True)');
    writeFileSync(join(dir, 'replay.py'), `${script}\nprint(float(out.double().abs().sum()))\n`);
    // The script checks its outputs against the record itself (and says so); the sum printed after is the last line.
    const printed = execFileSync(testPython(), ['-I', 'replay.py'], { cwd: dir, encoding: 'utf8' });
    const sum = printed.trim().split('\n').pop();
    expect(Number(sum)).toBeCloseTo(Number(s.validation!.outputs[0].checksum), 6);
  });

  it('says how to take it from the upstream package on the page ("Use it")', () => {
    expect(usageOf(spec('heads.head')).construct).toBe(
      [
        'from pkg.nets import net',
        "block = net(weights=None, progress=False).get_submodule('head')  # fed what the model passes it",
      ].join('\n'),
    );
  });
});
