// The warm worker (nnblocks_runner/warm.py; docs/validate.md, "Stages"): the worker imports torch._dynamo once, with
// triton held off, so a block's child that enters the FLOP counter or torch.utils.checkpoint does not import it again;
// and a meta-device probe gets empty meta tensors, not CPU draws moved to meta. Checked in real torch, and end to end
// through a real sandboxed worker: the child a block runs in has torch._dynamo already and no triton.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { testRuntimeRoots } from '../helpers/python.ts';
import { writeTree } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems, inRunner, reportingBlock, torch2 } from './helpers.ts';

describe('the warm worker', () => {
  it('imports torch._dynamo without triton, after which counting a forward imports next to nothing', (ctx) => {
    if (!torch2()) return ctx.skip(); // torch 1.13 has neither torch._dynamo nor the counter
    const out = inRunner<{ done: string[]; triton: boolean; added: number; macs: number }>([
      'from nnblocks_runner import flops',
      'from nnblocks_runner.warm import warm',
      'done = warm()',
      'before = len(sys.modules)',
      'm = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU()).to("meta")',
      'out, macs = flops.counted(m, [1, 3, 16, 16])',
      'print(json.dumps({"done": done, "triton": sys.modules.get("triton") is not None,',
      '                  "added": len(sys.modules) - before, "macs": macs}))',
    ]);
    expect(out.done).toEqual(['torch._dynamo', 'torch.fx.experimental.symbolic_shapes']);
    expect(out.triton).toBe(false);
    expect(out.macs).toBe(8 * 3 * 9 * 14 * 14);
    // Without the warm-up, the counter's first use imported torch._dynamo here: some 900 modules.
    expect(out.added).toBeLessThan(20);
  });

  it('gives a meta probe empty tensors of the shapes and dtypes make_inputs draws', () => {
    const out = inRunner<{ meta: unknown; real: unknown; devices: string[] }>([
      'from nnblocks_runner.twins import meta_inputs',
      'from nnblocks_runner.replay import make_inputs',
      'specs = [{"shape": [2, 3], "dtype": "float32"}, {"shape": [4], "dtype": "int64", "high": 5},',
      '         {"shape": [1, 2], "dtype": "float16", "list": 2}, {"shape": [3], "dtype": "float32", "keys": ["a"]},',
      '         {"value": 7}]',
      'def form(x):',
      '    if isinstance(x, torch.Tensor): return [list(x.shape), str(x.dtype)]',
      '    if isinstance(x, dict): return {k: form(v) for k, v in x.items()}',
      '    if isinstance(x, list): return [form(v) for v in x]',
      '    return x',
      'meta = meta_inputs(specs, 0)',
      'real = make_inputs(specs, 0, "cpu")',
      'devices = sorted({t.device.type for t in [meta[0], meta[1], *meta[2], meta[3]["a"]]})',
      'print(json.dumps({"meta": form(meta), "real": form(real), "devices": devices}))',
    ]);
    expect(out.meta).toEqual(out.real);
    expect(out.devices).toEqual(['meta']);
  });

  it("reaches every block's child: torch._dynamo is there already, triton is not", async (ctx) => {
    if (!torch2()) return ctx.skip();
    // The block's output says what its child found at import: 1 for torch._dynamo, 2 for triton.
    const { items } = fixtureItems({
      seen: reportingBlock(`
import sys
FOUND = ("torch._dynamo" in sys.modules) + 2 * (sys.modules.get("triton") is not None)
`),
    });
    const rec = byName(await validateBlocks(items, baseOptions({ workers: 1 }))).seen;
    expect(rec.status, rec.failureDetail ?? '').toBe('passed');
    expect(rec.outputs[0].checksum).toBe(1);
  });

  it("answers platform's processor in the worker: a library asking at import (h5py) spawns no `uname -p`", async () => {
    // Python asks `uname -p` in a subprocess the first time; a block's sandbox refuses one as a violation.
    const { items } = fixtureItems({
      asks: reportingBlock('import platform\nFOUND = float(isinstance(platform.uname().processor, str))'),
    });
    const rec = byName(await validateBlocks(items, baseOptions({ workers: 1 }))).asks;
    expect(rec.status, rec.failureDetail ?? '').toBe('passed');
    expect(rec.outputs[0].checksum).toBe(1);
  });

  it("preloads torchvision in every source's workers, also when the runtime's originals include it", async (ctx) => {
    const site = testRuntimeRoots().find((r) => existsSync(join(r, 'torchvision', '__init__.py')));
    if (!site) return ctx.skip(); // torchvision is a companion only where the runtime has it
    // One block's original is torchvision's (a runtime original, imported by the runtime's workers); the other's is
    // in a checkout, so it runs on a worker of that import root, whose child must find torchvision imported too.
    const block = reportingBlock('import sys\nFOUND = float("torchvision" in sys.modules)');
    const { root, items } = fixtureItems({
      runtime: {
        code: block,
        original: { importRoot: site, module: 'torchvision.ops.misc', className: 'SqueezeExcitation' },
      },
      checkout: { code: block },
    });
    items[1].original = { importRoot: root, module: 'runtime', className: 'Block' };
    const recs = byName(await validateBlocks(items, baseOptions({ workers: 1 })));
    expect(recs.runtime.outputs[0]?.checksum).toBe(1);
    expect(recs.checkout.status, recs.checkout.failureDetail ?? '').toBe('passed');
    expect(recs.checkout.outputs[0].checksum).toBe(1);
  });

  it("preloads the libraries a root's blocks import for that root's workers only", async () => {
    // An installed library (a package in a site folder of the environment) that one checkout's blocks import: the
    // workers of that checkout's root import it before any block; another root's workers do not.
    const site = writeTree({ 'seaborn/__init__.py': 'import os\nLOADED_BY = os.getpid()\n' });
    const block = reportingBlock('import sys\nFOUND = float("seaborn" in sys.modules)');
    const { root: plotting, items: withLibrary } = fixtureItems({ plots: { code: block } });
    const { items: without } = fixtureItems({ plain: { code: block } });
    withLibrary[0].original = { importRoot: plotting, module: 'plots', className: 'Block' };
    without[0].original = { importRoot: without[0].importRoot, module: 'plain', className: 'Block' };
    const recs = byName(
      await validateBlocks(
        [...withLibrary, ...without],
        baseOptions({
          workers: 1,
          sites: [...testRuntimeRoots(), site],
          pythonRoots: [site], // shown read-only in the sandbox, as a requirements layer is
          libraryImports: new Map([[plotting, ['seaborn']]]),
        }),
      ),
    );
    expect(recs.plots.status, recs.plots.failureDetail ?? '').toBe('passed');
    expect(recs.plots.outputs[0].checksum).toBe(1);
    expect(recs.plain.status, recs.plain.failureDetail ?? '').toBe('passed');
    expect(recs.plain.outputs[0].checksum).toBe(0);
  });
});
