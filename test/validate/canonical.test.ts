// Canonical configurations (docs/validate.md, "Recipes"): the parameter count the catalog publishes "at resnet50"
// is the one the original builder's model has. The build runs the real pipeline on the installed torchvision
// (builders assembled into the block's module and called in the sandbox); the reference is the installed package's
// own builder, called on the host in a plain python, `sum(p.numel())`. MACs need torch >= 2.1: under Debian's 1.13
// there are none, and nothing fails for it (the torch 2.x checks are in macs.test.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { testPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { skipBecause } from '../helpers/skip.ts';
import { tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

/** Parameter counts of the original builders' models, from the installed package itself. */
function originalCounts(builders: string[]): Record<string, number> {
  const script = [
    'import json, sys, torchvision.models as m',
    'print(json.dumps({b: sum(p.numel() for p in getattr(m, b)(weights=None).parameters()) for b in sys.argv[1:]}))',
  ].join('\n');
  return JSON.parse(execFileSync(testPython(), ['-c', script, ...builders], { encoding: 'utf8' }));
}

// The build and the reference both use the interpreter of a default config (the managed torch 2.14.1 environment).
describe('canonical parameter counts on the installed torchvision', () => {
  const blocks = new Map<string, BlockSpec>();
  let buildInfo: { sandbox?: { nativeLibraries?: string[] } };

  beforeAll(async () => {
    const config = writeConfig([
      {
        id: 'torchvision',
        kind: 'python',
        distribution: 'torchvision',
        include: [
          'torchvision/models/resnet.py',
          'torchvision/models/swin_transformer.py',
          'torchvision/models/efficientnet.py',
          'torchvision/models/vision_transformer.py',
        ],
        symbols: ['ResNet', 'SwinTransformer', 'EfficientNet', 'VisionTransformer'],
      },
    ]);
    const out = tempDir('nnb-canonical-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    buildInfo = JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8'));
    for (const f of readdirSync(join(out, 'blocks'))) {
      const spec = JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec;
      blocks.set(spec.name, spec);
    }
  }, 300_000);

  it.each([
    ['ResNet', ['resnet18', 'resnet50', 'resnext50_32x4d']],
    ['SwinTransformer', ['swin_t', 'swin_v2_t']],
    ['EfficientNet', ['efficientnet_b0', 'efficientnet_b3']],
    // Validated at `image_size=32` (the builder's sizing), counted at the builder's own 224 pixels.
    ['VisionTransformer', ['vit_b_16', 'vit_b_32']],
  ])('%s: the count at each builder equals the original builder model', (name, builders) => {
    const canonical = blocks.get(name)?.validation?.canonical ?? [];
    const published = Object.fromEntries(
      canonical.filter((c) => builders.includes(c.builder)).map((c) => [c.builder, c.params]),
    );
    expect(published).toEqual(originalCounts(builders));
  });

  it('publishes the figures the issue names: resnet50 25,557,032, swin_t 28,288,354, efficientnet_b0 5,288,548', () => {
    const at = (block: string, builder: string) =>
      blocks.get(block)?.validation?.canonical?.find((c) => c.builder === builder)?.params;
    expect(at('ResNet', 'resnet50')).toBe(25_557_032);
    expect(at('SwinTransformer', 'swin_t')).toBe(28_288_354);
    expect(at('EfficientNet', 'efficientnet_b0')).toBe(5_288_548);
  });

  it('publishes output shapes at the default input, computed on the meta device', () => {
    const at = (block: string, builder: string) =>
      blocks.get(block)?.validation?.canonical?.find((c) => c.builder === builder);
    expect(at('ResNet', 'resnet50')).toMatchObject({ input: [1, 3, 224, 224], outputs: [[1, 1000]] });
    expect(at('VisionTransformer', 'vit_b_16')).toMatchObject({ input: [1, 3, 224, 224], outputs: [[1, 1000]] });
    expect(at('EfficientNet', 'efficientnet_b3')).toMatchObject({ outputs: [[1, 1000]] });
  });

  it('publishes MACs only where torch can count them (>= 2.1), and fails nothing without', (ctx) => {
    const v = blocks.get('ResNet')?.validation;
    const r50 = v?.canonical?.find((c) => c.builder === 'resnet50');
    if (v?.torchVersion.startsWith('1.')) {
      expect(v.status).toBe('passed');
      expect(v.canonical?.filter((c) => c.macs !== undefined)).toEqual([]);
      return;
    }
    if (!r50?.input) return skipBecause(ctx, `no resnet50 figure under torch ${v?.torchVersion}`);
    expect(r50.macs).toBe(4_089_184_256); // torchvision's published 4.089 (GFLOPS by its name; MACs in fact)
  });

  it('validates a builder at its sizing (`image_size=32`) and says so in the recipe', () => {
    const v = blocks.get('VisionTransformer')?.validation;
    expect(v?.status).toBe('passed');
    if (v?.recipe?.origin === 'builder') expect(v.recipe.kwargs).toContainEqual({ name: 'image_size', value: 32 });
  });

  it("loads torchvision's compiled ops as runtime and publishes them as <package>/<file>, no host path", () => {
    // torchvision 0.29's ops library is `_C_stable.so` (built against torch's stable ABI); 0.14's `_C.<abi>.so`.
    expect(buildInfo.sandbox?.nativeLibraries).toEqual([
      expect.stringMatching(/^torchvision\/_C(_stable)?(\.[\w-]+)*\.so$/),
    ]);
  });
});
