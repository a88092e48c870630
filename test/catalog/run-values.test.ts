// What a sandboxed run may put in the catalog (its report is as hostile as the code that ran): the block schema refuses a forged recipe (code in a kwarg
// name, a dtype, a checksum, a ref), host facts as a layer type and uncapped run text; the catalog step drops layer
// types that are not dotted Python names; build-info.json carries the sandbox record; and the rules in contract.ts
// are the ones the schemas state.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishedComposition } from '../../pipeline/catalog/block-spec.ts';
import { checkAgainstSchema, checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { INPUT_BOXES_RULE, INPUT_FIELD_SCHEMAS, type InputSpec } from '../../pipeline/contract/inputs.ts';
import { CATALOG_FORMAT_VERSION, type TorchDtype } from '../../pipeline/contract/vocabulary.ts';
import { canonicalOutputs, inputText } from '../../src/lib/run-values.ts';
import { FIXTURE_SANDBOX, FORGED, forgeBlock, makeCatalog } from '../site/fixtures/make-catalog.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-run-values-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const catalog = makeCatalog({ dir: join(work, 'catalog'), blocks: 20 });
/** A passed block with a plain recipe, fresh for each edit. */
const plain = (): BlockSpec =>
  JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${catalog.forgeable.slug}.json`), 'utf8')) as BlockSpec;
const hostile = (): BlockSpec =>
  JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${catalog.hostile.slug}.json`), 'utf8')) as BlockSpec;

/** Schema errors for `plain()` after `edit`, as instance paths. */
function refused(edit: (s: BlockSpec) => void): string[] {
  const spec = plain();
  edit(spec);
  return checkAgainstSchema('block', spec, 'b').map((e) => e.split(' ')[1]);
}

describe('the block schema refuses what a forged runner record holds', () => {
  it('accepts the fixture blocks, the hostile one included (a hostile string value is data, not a name)', () => {
    expect(checkAgainstSchema('block', plain(), 'b')).toEqual([]);
    expect(checkAgainstSchema('block', hostile(), 'b')).toEqual([]);
  });

  it('refuses code as a kwarg name, and Python keywords', () => {
    const bad = (name: string) => refused((s) => s.validation!.recipe!.kwargs.push({ name, value: 1 }));
    expect(bad(FORGED.kwargName)).toContain('/validation/recipe/kwargs/1/name');
    expect(bad('class')).toContain('/validation/recipe/kwargs/1/name');
    expect(bad('__debug__')).toContain('/validation/recipe/kwargs/1/name');
    expect(bad('x=1, y')).toContain('/validation/recipe/kwargs/1/name');
    expect(bad('größe')).toContain('/validation/recipe/kwargs/1/name'); // ASCII only: NFKC folding makes names alias
    expect(bad('in_channels')).toEqual([]);
  });

  it('refuses a dtype that is not a torch dtype, in inputs and outputs', () => {
    expect(refused((s) => (s.validation!.recipe!.inputs[0].dtype = FORGED.dtype))).toContain(
      '/validation/recipe/inputs/0/dtype',
    );
    expect(refused((s) => (s.validation!.outputs[0].dtype = 'float32\nimport os' as TorchDtype))).toContain(
      '/validation/outputs/0/dtype',
    );
    expect(refused((s) => (s.validation!.recipe!.inputs[0].dtype = 'bfloat16'))).toEqual([]);
  });

  it('refuses a checksum that is not a number or nan/inf', () => {
    const checksum = (c: string) => refused((s) => (s.validation!.outputs[0].checksum = c));
    expect(checksum(FORGED.checksum)).toContain('/validation/outputs/0/checksum');
    expect(checksum('0x1f')).toContain('/validation/outputs/0/checksum');
    for (const ok of ['nan', 'inf', '-inf', '0', '1234.5', '1e+21', '5e-7']) expect(checksum(ok), ok).toEqual([]);
  });

  it('refuses a ref, a seed, a shape or a device that is not one', () => {
    expect(refused((s) => (s.validation!.recipe!.refs = [FORGED.ref]))).toContain('/validation/recipe/refs/0');
    expect(refused((s) => Object.assign(s.validation!.recipe!, { seed: FORGED.seed }))).toContain(
      '/validation/recipe/seed',
    );
    expect(refused((s) => Object.assign(s.validation!.recipe!.inputs[0], { shape: ['2); import os'] }))).toContain(
      '/validation/recipe/inputs/0/shape/0',
    );
    expect(refused((s) => (s.validation!.device = FORGED.device))).toContain('/validation/device');
  });

  it('takes a part recipe (builder, module, path); refuses a forged path or module, or one on another recipe', () => {
    const part = (over: object) =>
      refused((s) =>
        Object.assign(s.validation!.recipe!, {
          origin: 'part',
          builder: 'fasterrcnn_resnet50_fpn',
          builderModule: 'torchvision.models.detection.faster_rcnn',
          path: 'rpn.anchor_generator',
          ...over,
        }),
      );
    expect(part({})).toEqual([]);
    expect(part({ path: 'backbone.body.layer1.0' })).toEqual([]);
    expect(part({ path: "rpn'); import os #" })).toContain('/validation/recipe/path');
    expect(part({ path: '0.conv' })).toContain('/validation/recipe/path');
    expect(part({ path: 'x'.repeat(201) })).toContain('/validation/recipe/path');
    expect(part({ builderModule: 'os; import sys' })).toContain('/validation/recipe/builderModule');
    expect(part({ path: undefined })).toContain('/validation/recipe');
    // A path or a module on a recipe that is not a part's.
    expect(part({ origin: 'inference', builder: undefined })).toContain('/validation/recipe');
  });

  it('refuses host facts as a layer type; keeps dotted names, Unicode and <locals> included', () => {
    const layer = (type: string) => refused((s) => s.composition.layers.unshift({ type, count: 1 }));
    expect(layer(FORGED.layerType)).toContain('/composition/layers/0/type');
    expect(layer('/etc/passwd contents')).toContain('/composition/layers/0/type');
    expect(layer('BOOT_IMAGE=/vmlinuz root=/dev/sda1')).toContain('/composition/layers/0/type');
    expect(layer('torch.nn.Linear; import os')).toContain('/composition/layers/0/type');
    expect(layer('<locals>.Block')).toContain('/composition/layers/0/type');
    expect(layer('pkg.make.<locals>.Größe')).toEqual([]);
    expect(layer('torch.nn.modules.linear.Linear')).toEqual([]);
  });

  it('caps the run text: failure detail, layer type names, string kwarg values', () => {
    expect(refused((s) => (s.validation!.failureDetail = FORGED.detail))).toContain('/validation/failureDetail');
    expect(refused((s) => (s.validation!.failureDetail = 'é'.repeat(300)))).toEqual([]);
    expect(refused((s) => s.composition.layers.unshift({ type: `a${'b'.repeat(200)}`, count: 1 }))).toContain(
      '/composition/layers/0/type',
    );
    expect(refused((s) => s.validation!.recipe!.kwargs.push({ name: 'label', value: 'x'.repeat(201) }))).toContain(
      '/validation/recipe/kwargs/1/value',
    );
  });

  it('refuses a whole forged block through checkCatalog, naming each forged field', () => {
    const c = makeCatalog({ dir: join(work, 'forged'), blocks: 20 });
    forgeBlock(c);
    const errors = checkCatalog(c.dir).errors.filter((e) => e.startsWith(`blocks/${c.forgeable.slug}.json`));
    for (const path of [
      '/validation/recipe/kwargs/1/name',
      '/validation/recipe/refs/0',
      '/validation/recipe/inputs/0/dtype',
      '/validation/recipe/seed',
      '/validation/outputs/0/checksum',
      '/validation/device',
      '/validation/failureDetail',
      '/composition/layers/0/type',
    ])
      expect(
        errors.some((e) => e.includes(`: ${path} `)),
        path,
      ).toBe(true);
  });

  it('refuses a ref that names no kwarg holding a dotted name (checkCatalog)', () => {
    const c = makeCatalog({ dir: join(work, 'refs'), blocks: 20 });
    const file = join(c.dir, 'blocks', `${c.hostile.slug}.json`);
    const spec = JSON.parse(readFileSync(file, 'utf8')) as BlockSpec;
    const blockErrors = () => checkCatalog(c.dir).errors.filter((e) => e.startsWith('blocks/'));
    expect(blockErrors()).toEqual([]);
    spec.validation!.recipe!.kwargs.find((k) => k.name === 'norm_layer')!.value = "os').system('id";
    spec.validation!.recipe!.refs!.push('dim'); // a number, not a dotted name
    writeFileSync(file, JSON.stringify(spec));
    const errors = checkCatalog(c.dir).errors;
    expect(errors).toContain(
      `blocks/${c.hostile.slug}.json: recipe.refs 'norm_layer' names no kwarg with a dotted name`,
    );
    expect(errors).toContain(`blocks/${c.hostile.slug}.json: recipe.refs 'dim' names no kwarg with a dotted name`);
  });
});

describe('the catalog step', () => {
  it('drops layer types that are not dotted Python names, and counts them', () => {
    const { composition, dropped } = publishedComposition({
      from: 'validation',
      layers: [
        { type: FORGED.layerType, count: 1 },
        { type: 'fixture.make.<locals>.Block', count: 2 },
        { type: 'root:x:0:0:root:/root:/bin/bash', count: 1 },
        { type: 'torch.nn.Linear', count: 3 },
      ],
    });
    expect(composition.layers.map((l) => l.type)).toEqual(['fixture.make.<locals>.Block', 'torch.nn.Linear']);
    expect(dropped).toBe(2);
  });
});

describe('build-info.json', () => {
  const info = { formatVersion: CATALOG_FORMAT_VERSION, builtAt: '2025-01-01T00:00:00Z', nnblocksVersion: '0.1.0' };

  it('carries the sandbox record, closed and typed', () => {
    expect(checkAgainstSchema('build-info', { ...info, sandbox: FIXTURE_SANDBOX }, 'bi')).toEqual([]);
    const off = { ...FIXTURE_SANDBOX, enabled: false, uid: 0, hostUid: 0, tmpBytes: null, seccomp: false };
    expect(checkAgainstSchema('build-info', { ...info, sandbox: off }, 'bi')).toEqual([]);
    expect(checkAgainstSchema('build-info', { ...info, sandbox: { ...FIXTURE_SANDBOX, capEff: 'all' } }, 'bi')).toEqual(
      ['bi: /sandbox/capEff must match pattern "^[0-9a-f]{16}$"'],
    );
    expect(checkAgainstSchema('build-info', { ...info, sandbox: { ...FIXTURE_SANDBOX, note: '<b>' } }, 'bi')).toEqual([
      'bi: /sandbox must NOT have additional properties',
    ]);
  });
});

describe('output shapes at builder configurations as the block page shows them', () => {
  it('groups builders by input and outputs, and leaves out entries that are not shapes or builder names', () => {
    const io = canonicalOutputs([
      { builder: 'resnet18', params: 11_689_512, input: [1, 3, 224, 224], outputs: [[1, 1000]] },
      { builder: 'resnet50', params: 25_557_032, input: [1, 3, 224, 224], outputs: [[1, 1000]] },
      {
        builder: 'inception_v3',
        params: 27_161_264,
        input: [1, 3, 299, 299],
        outputs: [
          [1, 1000],
          [1, 1000],
        ],
      },
      { builder: 'maskrcnn_resnet50_fpn', params: 44_401_393 },
      { builder: "x'); import os #", input: [1, 3], outputs: [[1]] },
      { builder: 'forged', input: [1, -3], outputs: [['<b>']] },
    ]);
    expect(io).toEqual([
      { io: '[1, 3, 224, 224] → [1, 1000]', builders: ['resnet18', 'resnet50'] },
      { io: '[1, 3, 299, 299] → [1, 1000], [1, 1000]', builders: ['inception_v3'] },
    ]);
  });
});

describe('forward inputs as the block page shows them', () => {
  const t = { shape: [2, 3, 32, 32], dtype: 'float32' };
  it('says what an input is beyond a tensor: a list, a dict, boxes, a literal', () => {
    expect(inputText(t)).toBe('[2, 3, 32, 32] float32');
    expect(inputText({ ...t, list: 2 })).toBe('2 × [2, 3, 32, 32] float32');
    expect(inputText({ ...t, keys: ['low', 'high'] })).toBe('{low, high}: [2, 3, 32, 32] float32');
    expect(inputText({ ...t, levels: [t.shape, [2, 6, 16, 16]] })).toBe(
      'levels [2, 3, 32, 32], [2, 6, 16, 16] float32',
    );
    expect(inputText({ shape: [8, 5], dtype: 'float32', boxes: 32, high: 2 })).toBe('[8, 5] float32 boxes in 32×32');
    expect(inputText({ shape: [], dtype: 'int64', value: ['0', 'p6'] })).toBe("['0', 'p6']");
    expect(inputText({ shape: [], dtype: 'int64', value: [[32, 24]] })).toBe('[(32, 24)]');
    expect(inputText({ shape: [], dtype: 'int64', value: 2 })).toBe('2');
  });

  it('shows a value that breaks its rule as unreadable, never as given', () => {
    const forged = (over: object) => inputText({ ...t, ...over } as InputSpec);
    expect(forged({ value: ["x'); import os #"] })).toBe('unreadable value');
    expect(forged({ keys: ['<b>'] })).toBe('unreadable keys');
    expect(forged({ list: 1e9 })).toBe('unreadable list');
    expect(forged({ levels: [[2, 9, 9, 9], [1]] })).toBe('unreadable levels');
    expect(forged({ boxes: 32 })).toBe('[2, 3, 32, 32] float32 (unreadable boxes)');
  });
});

describe("the config schema states the contract's input rules", () => {
  // content/corpus.schema.json is written by hand (its descriptions and fix hints are for people editing a config):
  // its forward-input rules must be the ones the catalog and the runner record are held to.
  it('forward inputs: keys, literal values, boxes (less its descriptions and fix hints)', () => {
    const corpus = JSON.parse(readFileSync('content/corpus.schema.json', 'utf8')).$defs.inputSpec;
    const bare = (o: object) =>
      JSON.parse(JSON.stringify(o, (k, x: unknown) => (/^(description|x-fix)$/.test(k) ? undefined : x)));
    for (const f of ['keys', 'boxes', 'value', 'high'] as const)
      expect(bare(corpus.properties[f]), f).toEqual(bare(INPUT_FIELD_SCHEMAS[f]));
    expect(bare({ if: corpus.if, then: corpus.then })).toEqual(INPUT_BOXES_RULE);
  });
});
