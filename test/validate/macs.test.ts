// MACs at builder configurations (docs/validate.md, "Canonical configurations"), from the runner's side, with real
// torch processes and no mocks:
// - torchvision 0.29.1 under torch 2.x: the real pipeline publishes resnet50's, mobilenet_v3_large's and vit_b_16's
//   MACs, which match torchvision's own published `_ops`; and `_ops` is half of torch's FLOP count, i.e. MACs;
// - hostile blocks: what a block does to the counter moves its own figure at most, never past the bounds, and never
//   leaves the counter (or a mode of its own) on the dispatch stack for its later stages;
// - torch 1.13 (Debian's, no torch.utils.flop_counter): no field, nothing fails.
// The torch 2.x tests use the tests' interpreter (`testPython()`: the managed environment, torch 2.14.1 with
// torchvision 0.29.1, or $NNBLOCKS_PYTHON), sandboxed like any validation; they are skipped, saying why, when it has
// no torch >= 2.1 with torchvision.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { debianPython, testPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { skipBecause } from '../helpers/skip.ts';
import { py, tempDir } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const DEBIAN = debianPython();
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

/** The tests' interpreter when its torch has a FLOP counter and it has torchvision. */
function torch2Python(): string | null {
  const p = testPython();
  try {
    execFileSync(p, ['-c', 'import torch.utils.flop_counter, torchvision.models'], { stdio: 'ignore' });
    return p;
  } catch {
    return null; // torch < 2.1, or no torchvision
  }
}
const TORCH2 = torch2Python();
const NO_TORCH2 = `${testPython()} has no torch >= 2.1 with torchvision (npm test's setup makes the managed environment)`;

/** The models the issue names, with their weights enums (whose meta carries torchvision's published `_ops`). */
const MODELS = [
  ['resnet.ResNet', 'resnet50', 'ResNet50_Weights'],
  ['mobilenetv3.MobileNetV3', 'mobilenet_v3_large', 'MobileNet_V3_Large_Weights'],
  ['vision_transformer.VisionTransformer', 'vit_b_16', 'ViT_B_16_Weights'],
] as const;
const RUNNER_DIR = fileURLToPath(new URL('../../pipeline/validate/python/', import.meta.url));

interface Measured {
  /** The runner's canonical figure (search.canonical) of the installed package's class at the builder. */
  figure: { builder: string; params: number; input?: number[]; outputs?: number[][]; macs?: number };
  /** torchvision's published `_ops` (GFLOPS by its name) of the model's IMAGENET1K_V1 weights. */
  published: number;
  /** torch's FLOP count of the original builder's model at 224 pixels (meta device), to tell what `_ops` counts. */
  flops: number;
}

/**
 * The runner's figures for each model, computed by its own `canonical` on the installed package's classes, beside
 * the package's published figure and torch's plain FLOP count. The time caps are raised: they are the machine's
 * business (a loaded machine skips a slow count), the figure is this test's.
 */
function measure(python: string): Record<string, Measured> {
  const script = py`
    import importlib, json, sys, time
    sys.path.insert(0, sys.argv[1])
    from nnblocks_runner import canonical, infer
    import torch, torchvision.models as M
    from torch.utils.flop_counter import FlopCounterMode
    canonical.CANONICAL_BUILD_S = canonical.CANONICAL_MACS_S = 120.0
    out = {}
    for cls, builder, weights in json.loads(sys.argv[2]):
        module, name = cls.rsplit(".", 1)
        block = getattr(importlib.import_module("torchvision.models." + module), name)
        builders = [infer.candidate({"weights": None, "progress": False}, (), "builder", builder)]
        [figure] = canonical.canonical(block, builders, 0, time.monotonic() + 300)
        m = getattr(M, builder)().to("meta").eval()
        counter = FlopCounterMode(display=False)
        with torch.no_grad(), counter:
            m(torch.empty(1, 3, 224, 224, device="meta"))
        published = getattr(M, weights).IMAGENET1K_V1.meta["_ops"]
        out[builder] = {"figure": figure, "published": published, "flops": counter.get_total_flops()}
    print(json.dumps(out))
  `;
  return JSON.parse(
    execFileSync(python, ['-I', '-c', script, RUNNER_DIR, JSON.stringify(MODELS)], {
      encoding: 'utf8',
      timeout: 600_000,
    }),
  );
}

describe('MACs of torchvision 0.29.1 builders, against its published figures', () => {
  let got: Record<string, Measured>;

  beforeAll(() => {
    if (TORCH2) got = measure(TORCH2);
  }, 600_000);

  it.for(MODELS)('%s: %s within 2% of the published figure, and equal to it at its 3 decimals', ([, builder], ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    const { figure, published } = got[builder];
    expect(figure).toMatchObject({ builder, input: [1, 3, 224, 224], macs: expect.any(Number) });
    const giga = figure.macs! / 1e9;
    expect(Math.abs(giga / published - 1)).toBeLessThan(0.02);
    expect(giga).toBeCloseTo(published, 3); // resnet50 4.089184, published 4.089
  });

  it("is half of torch's FLOP count, which is what torchvision's `_ops` is: MACs, not FLOPs", (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    for (const [, builder] of MODELS) {
      const { figure, published, flops } = got[builder];
      expect(figure.macs, builder).toBe(flops / 2);
      expect(flops / 2 / 1e9, builder).toBeCloseTo(published, 3);
      expect(flops / 1e9 / published, builder).toBeCloseTo(2, 2);
    }
  });
});

describe('the real pipeline on torchvision 0.29.1', () => {
  it('publishes the MACs in the catalog, each with its input, resnet50 exactly', async (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    const config = writeConfig(
      [
        {
          id: 'torchvision',
          kind: 'python',
          distribution: 'torchvision',
          include: ['torchvision/models/resnet.py'],
          symbols: ['ResNet'],
        },
      ],
      process.env.NNBLOCKS_PYTHON ? { python: TORCH2 } : {},
    );
    const out = tempDir('nnb-macs-');
    // The build checks every catalog file against schemas/catalog/ before it returns 0.
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    const spec = readdirSync(join(out, 'blocks'))
      .map((f) => JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec)
      .find((s) => s.name === 'ResNet');
    const canonical = spec?.validation?.canonical ?? [];
    expect(canonical.find((c) => c.builder === 'resnet50')).toMatchObject({
      params: 25_557_032,
      input: [1, 3, 224, 224],
      macs: 4_089_184_256,
    });
    for (const c of canonical) if (c.macs !== undefined) expect(c.input, c.builder).toBeDefined();
    expect(checkCatalog(out).errors).toEqual([]);
  }, 400_000);
});

/**
 * A builder `make` of a small convolutional model. `top`: module-level lines after the imports; `forward`: one line
 * run before its honest work. (Joined as lines: `py` dedents once, after interpolation.)
 */
const model = (imports: string[], forward: string, top: string[] = []) =>
  [
    'import torch, torch.nn as nn',
    ...imports,
    // torch 2.x imports torch.fx's symbolic shapes and dynamo on a process's first meta-device forward (seconds on
    // a loaded machine): done here, at import, so the canonical share's 5 s caps don't depend on the machine's load.
    'torch.nn.Linear(2, 2).to("meta")(torch.empty(1, 2, device="meta")).mean()',
    ...top,
    'class Block(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.conv = nn.Conv2d(3, 8, 3)',
    '        self.fc = nn.Linear(8, 10)',
    '    def forward(self, x):',
    `        ${forward}`,
    '        return self.fc(self.conv(x).mean((2, 3)))',
    'def make():',
    '    return Block()',
    '',
  ].join('\n');
/** Its parameters: the convolution's weight and bias, the linear's. */
const PARAMS = 8 * 3 * 3 * 3 + 8 + 8 * 10 + 10;
const HONEST = 8 * 3 * 3 * 3 * 222 * 222 + 8 * 10;
const COUNTING = 'from torch.utils._python_dispatch import _get_current_dispatch_mode';
/** True while the forward runs under the runner's counter (flops.py `_Counting`). */
const counting = 'type(_get_current_dispatch_mode()).__name__ == "_Counting"';

const HOSTILE = {
  honest: model([], 'pass'),
  // Rewrites torch's formula table and the counter's total at import, before anything is counted.
  patcher: model(['import torch.utils.flop_counter as fc'], 'pass', [
    'fc.flop_registry[torch.ops.aten.convolution] = lambda *a, **k: 10**12',
    'fc.FlopCounterMode.get_total_flops = lambda self: 2',
  ]),
  // Reaches the mode it runs under and adds 1000 MACs to its own count: a lie about itself, believed.
  liar: model([COUNTING], `if ${counting}: _get_current_dispatch_mode().flops += 2000`),
  // A matrix product of 2^90 multiply-adds on the meta device (free there): past any plausible count.
  huge: model([], 'if x.is_meta: torch.empty(2**30, 2**30, device="meta") @ torch.empty(2**30, 2**30, device="meta")'),
  // Sleeps while counted: the count's time cap (1 s) stops it.
  slow: model(['import time', COUNTING], `if ${counting}: time.sleep(8)`),
  // Pushes two modes that refuse every op and leaves them (the counter's exit pops the top one, whichever it is):
  // its later forwards would fail if one stayed.
  leaver: model(
    ['from torch.utils._python_dispatch import TorchDispatchMode', COUNTING],
    `if ${counting}: Poison().__enter__(); Poison().__enter__()`,
    [
      'class Poison(TorchDispatchMode):',
      '    def __torch_dispatch__(self, func, types, args=(), kwargs=None):',
      '        raise RuntimeError("poisoned")',
    ],
  ),
  // Pops the counter off the stack mid-forward: the count can't close.
  popper: model([COUNTING], `if ${counting}: torch._C._pop_torch_dispatch_stack(None)`),
};

describe('hostile blocks and the counter', () => {
  let rec: Record<string, ValidationRecord>;
  const fig = (name: string) => rec[name].canonical?.[0];

  beforeAll(async () => {
    if (!TORCH2) return;
    const { items } = fixtureItems(
      Object.fromEntries(
        Object.entries(HOSTILE).map(([name, code]) => [
          name,
          { code, usage: [{ origin: 'builder', builder: 'make' }] },
        ]),
      ),
    );
    // One worker: every block's child forks from the same one; what an earlier block patched died with its child.
    // The default 60 s a block: its canonical share (20%) must hold torch 2.x's first meta-device forward in each
    // child, which imports torch.fx's symbolic shapes (sympy): seconds on a loaded machine.
    const opts = baseOptions({ python: TORCH2, workers: 1, timeoutMs: 60_000 });
    rec = byName(await validateBlocks(items, opts));
  }, 300_000);

  it('counts an honest block, and a block that rewrote the formulas and the total gets the honest figure', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    expect(fig('honest')).toEqual({
      builder: 'make',
      params: PARAMS,
      input: [1, 3, 224, 224],
      outputs: [[1, 10]],
      macs: HONEST,
    });
    expect(fig('patcher')?.macs).toBe(HONEST);
  });

  it('lets a block lie about itself, within bounds; a figure past them is left out', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    expect(fig('liar')?.macs).toBe(HONEST + 1000);
    expect(fig('huge')).toMatchObject({ input: [1, 3, 224, 224], outputs: [[1, 10]] });
    expect(fig('huge')).not.toHaveProperty('macs');
  });

  it('leaves the figure out when counting runs long or cannot close; the rest of the figure stays', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    for (const name of ['slow', 'popper']) {
      expect(fig(name), name).toMatchObject({ params: PARAMS, input: [1, 3, 224, 224], outputs: [[1, 10]] });
      expect(fig(name), name).not.toHaveProperty('macs');
    }
  });

  it('cuts the dispatch stack back after counting, so no mode is left for the later stages', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    // The leaver's own mode failed its counted forward (no figure); left on the stack it would fail every later one.
    expect(fig('leaver')).toMatchObject({ input: [1, 3, 224, 224], outputs: [[1, 10]] });
    expect(fig('leaver')).not.toHaveProperty('macs');
    for (const [name, r] of Object.entries(rec)) expect(r.status, `${name}: ${r.failureDetail}`).toBe('passed');
  });
});

// Configurations are built on the meta device where the constructor allows it (no storage, no fills); a constructor
// that reads a value (`.item()` of a tensor it made) can't run there and is built on the CPU instead, same figures.
describe('configurations built on the meta device, or on the CPU when the constructor reads a value', () => {
  let rec: Record<string, ValidationRecord>;

  beforeAll(async () => {
    if (!TORCH2) return;
    const reads = model([], 'pass').replace(
      '        self.conv = nn.Conv2d(3, 8, 3)',
      '        self.conv = nn.Conv2d(3, int(torch.linspace(0, 16, 3)[1].item()), 3)',
    );
    // A forward that hands a view of a parameter to a submodule (timm's CaiT, its class token expanded to the
    // batch): torch's FlopCounterMode refused it ("Expected gradient function to be set", from its module tracker's
    // hooks under no_grad), and the figure had no `macs`.
    const token = model([], 't = self.proj(self.token.expand(1, -1))')
      .replace(
        '        self.fc = nn.Linear(8, 10)',
        '        self.fc = nn.Linear(8, 10)\n        self.token = nn.Parameter(torch.zeros(1, 8))\n        self.proj = nn.Linear(8, 8)',
      )
      .replace('return self.fc(self.conv(x).mean((2, 3)))', 'return self.fc(self.conv(x).mean((2, 3)) + t)');
    const { items } = fixtureItems({
      reads: { code: reads, usage: [{ origin: 'builder', builder: 'make' }] },
      honest: { code: model([], 'pass'), usage: [{ origin: 'builder', builder: 'make' }] },
      handed: { code: token, usage: [{ origin: 'builder', builder: 'make' }] },
    });
    rec = byName(await validateBlocks(items, baseOptions({ python: TORCH2, workers: 1, timeoutMs: 60_000 })));
  }, 300_000);

  it('gives both the same count, shapes and MACs', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    const expected = { builder: 'make', params: PARAMS, input: [1, 3, 224, 224], outputs: [[1, 10]], macs: HONEST };
    expect(rec.reads.canonical?.[0]).toEqual(expected);
    expect(rec.honest.canonical?.[0]).toEqual(expected);
    expect(rec.reads.status).toBe('passed');
  });

  it('counts a forward that hands a view of a parameter to a submodule', (ctx) => {
    if (!TORCH2) return skipBecause(ctx, NO_TORCH2);
    expect(rec.handed.canonical?.[0]).toEqual({
      builder: 'make',
      params: PARAMS + 8 + 8 * 8 + 8,
      input: [1, 3, 224, 224],
      outputs: [[1, 10]],
      macs: HONEST + 8 * 8,
    });
    expect(rec.handed.status).toBe('passed');
  });
});

describe('torch 1.13, which has no FLOP counter', () => {
  it('publishes the other figures and no MACs, and the block passes', async (ctx) => {
    let version: string;
    try {
      version = execFileSync(DEBIAN, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).trim();
    } catch {
      return skipBecause(ctx, `${DEBIAN} does not import torch`);
    }
    if (!version.startsWith('1.')) return skipBecause(ctx, `${DEBIAN} has torch ${version}, not 1.x`);
    const { items } = fixtureItems({
      honest: { code: HOSTILE.honest, usage: [{ origin: 'builder', builder: 'make' }] },
    });
    const [r] = await validateBlocks(items, baseOptions({ python: DEBIAN, workers: 1 }));
    expect(r.status).toBe('passed');
    expect(r.torchVersion).toMatch(/^1\./);
    expect(r.canonical).toEqual([{ builder: 'make', params: PARAMS, input: [1, 3, 224, 224], outputs: [[1, 10]] }]);
  }, 120_000);
});
