// MACs at builder configurations (`validation.canonical[].macs`) from the catalog to the page: the block schema
// refuses a forged figure (huge, negative, fractional, without its input), the catalog's schema and the runner's
// record state one rule (CANONICAL_MACS), and the helpers the block page and the method table use format it
// ("4.1 GMACs at 224 px") and leave out what is not a figure. The runner's side is test/validate/macs.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { isMacs } from '../../pipeline/contract/rules.ts';
import { CANONICAL_MACS } from '../../pipeline/contract/validation.ts';
import { macs } from '../../src/lib/format.ts';
import { canonicalFigures, inputAt } from '../../src/lib/run-values.ts';
import { makeCatalog } from '../site/fixtures/make-catalog.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-macs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the MACs format', () => {
  it.each([
    [0, '0 MACs'],
    [1, '1 MAC'],
    [999, '999 MACs'],
    [1000, '1.0 kMACs'],
    [1_505_280, '1.5 MMACs'],
    [216_589_760, '217 MMACs'], // mobilenet_v3_large: no decimal from 100 of a unit up
    [1_814_073_344, '1.8 GMACs'], // resnet18
    [4_089_184_256, '4.1 GMACs'], // resnet50
    [17_563_828_224, '17.6 GMACs'], // vit_b_16
    [999_960_000, '1.0 GMACs'], // the unit is picked after rounding: never '1000 MMACs'
    [99_950_000, '100 MMACs'],
    [Number.MAX_SAFE_INTEGER, '9.0 PMACs'], // the largest figure the schema allows
  ])('%d → %s', (n, text) => expect(macs(n)).toBe(text));

  it('says pixels for one square image, the shape for anything else', () => {
    expect(inputAt([1, 3, 224, 224])).toBe('224 px');
    expect(inputAt([1, 1, 28, 28])).toBe('28 px');
    expect(inputAt([1, 3, 224, 320])).toBe('[1, 3, 224, 320]');
    expect(inputAt([2, 3, 224, 224])).toBe('[2, 3, 224, 224]'); // a batch of two: twice the MACs of one image
    expect(inputAt([1, 64, 14, 14])).toBe('[1, 64, 14, 14]'); // a feature map, not an image
    expect(inputAt([1, 3, 16, 112, 112])).toBe('[1, 3, 16, 112, 112]'); // a video clip
  });
});

describe('figures at builder configurations as the pages show them', () => {
  it('puts MACs beside the parameters with the input they were counted at, the exact counts in titles', () => {
    const [r50, noMacs] = canonicalFigures([
      { builder: 'resnet50', params: 25_557_032, input: [1, 3, 224, 224], outputs: [[1, 1000]], macs: 4_089_184_256 },
      { builder: 'maskrcnn_resnet50_fpn', params: 44_401_393 },
    ]);
    expect(r50).toEqual({
      builder: 'resnet50',
      params: '25.56M',
      paramsExact: '25,557,032',
      macs: '4.1 GMACs at 224 px',
      macsTitle:
        '4,089,184,256 multiply-accumulates (MACs, half the FLOPs) of one forward at [1, 3, 224, 224]: matrix ' +
        'products and convolutions, as torch.utils.flop_counter counts them',
    });
    expect(noMacs).toEqual({ builder: 'maskrcnn_resnet50_fpn', params: '44.40M', paramsExact: '44,401,393' });
  });

  it("names a config file's configuration's file, and no path that is not a config file's", () => {
    // docs/validate.md, "Configurations from config files": the label is the file's name, `config` the file.
    const [r50, forged] = canonicalFigures([
      { builder: 'resnet50', config: 'configs/_base_/models/resnet50.py', params: 23_508_032 },
      { builder: 'x', config: '../../etc/passwd.py', params: 1 },
    ]);
    expect(r50).toMatchObject({ builder: 'resnet50', config: 'configs/_base_/models/resnet50.py', params: '23.51M' });
    expect(forged.config).toBeUndefined();
  });

  it('leaves out what is not a figure: a builder that is not a name, a forged count, MACs without their input', () => {
    const shown = canonicalFigures([
      { builder: "x'); import os #", params: 1 },
      { builder: 'forged', params: -1 },
      { builder: 'huge', params: 1e300 },
      { builder: 'no_input', params: 10, macs: 20 },
      { builder: 'bad_macs', params: 10, input: [1, 3, 8, 8], macs: 1e300 },
      { builder: 'text_macs', params: 10, input: [1, 3, 8, 8], macs: '<b>1</b>' },
      { builder: 'bad_input', params: 10, input: [1, -3], macs: 20 },
    ]);
    expect(shown.map((c) => c.builder)).toEqual(['no_input', 'bad_macs', 'text_macs', 'bad_input']);
    expect(shown.every((c) => c.macs === undefined)).toBe(true);
  });
});

describe('the block schema on MACs', () => {
  const catalog = makeCatalog({ dir: join(work, 'catalog'), blocks: 20 });
  const built = (): BlockSpec =>
    JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${catalog.built.slug}.json`), 'utf8')) as BlockSpec;
  /** Schema errors of the built fixture block with its second builder's MACs set to `value`, as instance paths. */
  const refused = (edit: (c: Record<string, unknown>) => void) => {
    const spec = built();
    edit(spec.validation!.canonical![1] as Record<string, unknown>);
    return checkAgainstSchema('block', spec, 'b').map((e) => e.split(' ')[1]);
  };

  it('accepts the fixture figures, and refuses forged MACs: huge, negative, fractional, text', () => {
    expect(refused(() => {})).toEqual([]);
    for (const bad of [1e300, Number.MAX_SAFE_INTEGER + 1, -1, 0.5, '4089184256'])
      expect(
        refused((c) => (c.macs = bad)),
        String(bad),
      ).toContain('/validation/canonical/1/macs');
  });

  it('refuses MACs without the input they were counted at', () => {
    expect(refused((c) => delete c.input)).toContain('/validation/canonical/1');
  });

  it('publishes the rule the runner record is held to (CANONICAL_MACS)', () => {
    const block = JSON.parse(readFileSync('schemas/catalog/block.schema.json', 'utf8'));
    const figure = block.properties.validation.properties.canonical.items;
    const { description, ...rule } = figure.properties.macs;
    expect(rule).toEqual({ type: 'integer', ...CANONICAL_MACS });
    expect(description).toMatch(/MACs, not FLOPs/);
    expect(figure.dependencies).toEqual({ macs: ['input'] });
    const runner = JSON.parse(readFileSync('schemas/runner/record.schema.json', 'utf8'));
    expect(runner.properties.canonical.items.properties.macs).toEqual(rule);
    for (const n of [0, 4_089_184_256, Number.MAX_SAFE_INTEGER]) expect(isMacs(n)).toBe(true);
    for (const n of [-1, 0.5, Number.MAX_SAFE_INTEGER + 1, '1']) expect(isMacs(n)).toBe(false);
  });
});
