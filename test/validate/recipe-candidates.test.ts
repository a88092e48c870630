// Recipe candidates from usage (docs/validate.md, "Recipes"), mined from the usage fixture package through the real
// index: builders first (offline and quiet, small images for detectors), then literal construction sites smallest
// first with the constructor's positions named, then forward calls with literal tensor shapes as inputs.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClassFact } from '../../pipeline/parse/facts.ts';
import { cheapConfig, initParams, offline, usageRecipes } from '../../pipeline/validate/recipe-candidates.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { indexTree } from '../helpers/corpus.ts';
import { USAGE_TREE } from '../usage/fixture.ts';

let index: UsageIndex;
const classes = new Map<string, ClassFact>();

/** The constructor's positional names of `pkg.<name>`, through its bases, as the validate step reads them. */
function positional(name: string): string[] | null {
  const chain = [`pkg.blocks.${name}`, `pkg.net.${name}`, `pkg.registry.${name}`];
  const own = chain.map((q) => classes.get(q)).find(Boolean);
  const bases = name === 'Wide' ? [classes.get('pkg.blocks.Basic')] : [];
  return initParams([own, ...bases]);
}

beforeAll(async () => {
  const first = await indexTree(USAGE_TREE);
  index = buildUsageIndex(first.program, first.discovered.blocks);
  for (const m of first.index.modules)
    for (const c of m.facts.classes) if (m.module) classes.set(`${m.module}.${c.qualname}`, c);
});

describe('initParams', () => {
  it("reads the block's own positional parameters, without self", () => {
    expect(positional('Bottleneck')).toEqual(['inplanes', 'planes', 'stride', 'groups']);
  });

  it("falls back to the first base that defines __init__ (Head2 has none: Head's)", () => {
    expect(initParams([classes.get('pkg.registry.Head2'), classes.get('pkg.registry.Head')])).toEqual([
      'in_channels',
      'num_classes',
    ]);
  });

  it('is null when no class of the chain defines __init__', () => {
    expect(initParams([undefined])).toBeNull();
  });
});

describe('offline builder arguments', () => {
  it('turns weights off, pretrained off and the progress bar off, only for parameters with defaults', () => {
    expect(
      offline([
        { name: 'weights', hasDefault: true },
        { name: 'weights_backbone', hasDefault: true },
        { name: 'pretrained', hasDefault: true },
        { name: 'pretrained_backbone', hasDefault: true },
        { name: 'progress', hasDefault: true },
        { name: 'num_classes', hasDefault: true },
        { name: 'pretrained_required', hasDefault: false },
      ]),
    ).toEqual({
      weights: null,
      weights_backbone: null,
      pretrained: false,
      pretrained_backbone: false,
      progress: false,
    });
  });
});

describe('cheap builder configurations', () => {
  const forwards = [
    { name: 'weights', kind: 'keyword-only' },
    { name: 'kwargs', kind: 'var-keyword' },
  ];
  it('asks a builder that passes **kwargs on for small images, few proposals and detections, a 32-pixel ViT', () => {
    const detector = ['backbone', 'num_classes', 'min_size', 'max_size', 'rpn_pre_nms_top_n_test'];
    expect(cheapConfig(forwards, [...detector, 'rpn_post_nms_top_n_train', 'box_detections_per_img'])).toEqual({
      min_size: 64,
      max_size: 64,
      rpn_pre_nms_top_n_test: 10,
      rpn_post_nms_top_n_train: 10,
      box_detections_per_img: 10,
    });
    expect(cheapConfig(forwards, ['backbone', 'topk_candidates', 'detections_per_img'])).toEqual({
      topk_candidates: 10,
      detections_per_img: 10,
    });
    expect(cheapConfig(forwards, ['image_size', 'patch_size', 'num_layers', 'hidden_dim'])).toEqual({ image_size: 32 });
  });

  it('asks nothing of a builder without **kwargs, or when the constructor is unknown', () => {
    expect(cheapConfig([{ name: 'weights', kind: 'keyword-only' }], ['min_size', 'image_size'])).toEqual({});
    expect(cheapConfig(forwards, null)).toEqual({});
  });
});

describe('usageRecipes', () => {
  it('puts the builders first, with pretrained=False for `net50(*, pretrained=False, **kwargs)`', () => {
    const r = usageRecipes(index.usageOf('fx:pkg.net.Net'), ['net50', 'make_basic'], positional('Net'));
    expect(r.candidates.slice(0, 2)).toEqual([
      { origin: 'builder', builder: 'net50', kwargs: { pretrained: false } },
      { origin: 'builder', builder: 'make_basic' },
    ]);
  });

  it('turns literal construction sites into kwargs named by position, smallest configuration first', () => {
    const r = usageRecipes(index.usageOf('fx:pkg.blocks.Basic'), [], positional('Basic'));
    const sites = r.candidates.filter((c) => c.origin === 'usage').map((c) => c.kwargs);
    // `block(self.inplanes, planes, stride=1)` in Net._make_layer gives only `stride` (the rest is filled later);
    // of the complete ones, BLOCKS['basic'](32, 32, stride=2) is smaller than blocks.Basic(64, 128, stride=2).
    expect(sites[0]).toEqual({ stride: 1 });
    expect(sites[1]).toEqual({ inplanes: 32, planes: 32, stride: 2 });
    expect(sites).toContainEqual({ inplanes: 64, planes: 128, stride: 2 });
    const sizes = sites.map((k) => Object.values(k!).reduce((n: number, v) => n + Number(v), 0));
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
  });

  it('marks a site with non-literal arguments for filling by inference (`block(self.inplanes, planes, stride=1)`)', () => {
    const r = usageRecipes(index.usageOf('fx:pkg.blocks.Bottleneck'), [], positional('Bottleneck'));
    const filled = r.candidates.filter((c) => c.origin === 'usage' && c.fill);
    expect(filled.length).toBeGreaterThan(0);
    for (const c of filled) expect(Object.keys(c.kwargs ?? {}).length).toBeGreaterThan(0);
    // The literal site `B(3, 64, stride=2)` needs no filling.
    expect(r.candidates).toContainEqual({ origin: 'usage', kwargs: { inplanes: 3, planes: 64, stride: 2 } });
  });

  it('gives no site twice and skips references (`_net(B, ...)` builds nothing itself)', () => {
    const r = usageRecipes(index.usageOf('fx:pkg.blocks.Bottleneck'), [], positional('Bottleneck'));
    const keys = r.candidates.map((c) => JSON.stringify(c));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('puts the builders of models that hold the block last, offline and cheap like its own (`part`)', () => {
    const net50 = index.partBuilders('fx:pkg.blocks.Bottleneck')[0];
    const part = { builder: net50.name, module: net50.module, params: net50.params, positional: ['min_size'] };
    const r = usageRecipes(index.usageOf('fx:pkg.blocks.Bottleneck'), [], positional('Bottleneck'), [part]);
    expect(r.candidates.at(-1)).toEqual({
      origin: 'part',
      builder: 'net50',
      builderModule: 'pkg.net',
      kwargs: { pretrained: false },
      sizing: { min_size: 64 },
    });
    expect(r.candidates.filter((c) => c.origin === 'part')).toHaveLength(1);
  });

  it('takes forward calls made with literal float tensor shapes as inputs; others are not inputs', () => {
    // demo(): model = net50(); model(torch.randn(2, 3, 32, 32)).
    expect(usageRecipes(index.usageOf('fx:pkg.net.Net'), [], positional('Net')).inputs).toEqual([
      [{ shape: [2, 3, 32, 32], dtype: 'float32' }],
    ]);
    // self.encoder(y, torch.zeros(...), mask=None): a name and a keyword, so no complete input list.
    expect(usageRecipes(index.usageOf('fx:pkg.net.Encoder'), [], positional('Encoder')).inputs).toEqual([]);
  });
});
