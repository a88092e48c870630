// The TypeScript check of a runner record (pipeline/validate/record-check.ts): what a forged or broken record may
// not carry into the catalog. End-to-end forgeries through the real sandbox are in escape.test.ts.
import { describe, expect, it } from 'vitest';
import { checkRunnerRecord } from '../../pipeline/validate/record-check.ts';
import { RUN_DEVICES } from '../../pipeline/contract/runner-record.ts';
import { readHello } from '../../pipeline/validate/worker.ts';

function record(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: 'passed',
    failureClass: null,
    failureDetail: null,
    stages: [{ stage: 'parse', status: 'passed', ms: 1.5 }],
    recipe: {
      seed: 0,
      origin: 'inference',
      kwargs: { in_channels: 3, norm_layer: 'torch.nn.BatchNorm2d' },
      refs: ['norm_layer'],
      inputs: [{ shape: [2, 3, 8, 8], dtype: 'float32' }],
    },
    outputs: [{ shape: [2, 8], dtype: 'float32', checksum: 12.5, projection: -0.75 }],
    params: 10,
    buffers: 0,
    gradients: { withGrad: 2, without: 0 },
    peakMemoryBytes: 1024,
    moduleTree: {
      type: 'pkg.mod.Block',
      params: {},
      children: {
        conv: { type: 'torch.nn.Conv2d', params: { weight: [8, 3, 3, 3] }, children: {} },
        local: { type: 'pkg.mod.make.<locals>.Inner', params: {}, children: {} },
        unicode: { type: 'pkg.ünï_cödé.Blöck', params: {}, children: {} },
      },
    },
    fidelity: { status: 'n/a', reason: 'no importable original given' },
    stdoutTail: '',
    stderrTail: '',
    device: 'cpu',
    gpuName: null,
    torchVersion: '1.13.0',
    ...over,
  };
}

const why = (value: unknown) => {
  const r = checkRunnerRecord(value);
  return r.ok ? 'ok' : r.why;
};

describe('checkRunnerRecord', () => {
  it('accepts what the runner writes, Unicode and <locals> type names included', () => {
    const r = checkRunnerRecord(record());
    expect(r.ok).toBe(true);
    if (r.ok) expect(Object.keys(r.record.moduleTree!.children)).toEqual(['conv', 'local', 'unicode']);
  });

  it.each([
    [
      'a kwarg name that is code',
      { recipe: { seed: 0, origin: 'inference', kwargs: { "__import__('os').system('id')": 1 }, inputs: [] } },
    ],
    [
      'a dtype that is code',
      {
        recipe: { seed: 0, origin: 'inference', kwargs: {}, inputs: [{ shape: [1], dtype: 'float32); import os #' }] },
      },
    ],
    [
      'a checksum that is code',
      { outputs: [{ shape: [1], dtype: 'float32', checksum: '1); import os #', projection: 0 }] },
    ],
    [
      'a projection that is code',
      { outputs: [{ shape: [1], dtype: 'float32', checksum: 1, projection: '1); import os #' }] },
    ],
    ['an output without its projection', { outputs: [{ shape: [1], dtype: 'float32', checksum: 1 }] }],
    ['a sensitivity that is code', { sensitivity: '1); import os #' }],
    [
      'a reference that is not a dotted name',
      { recipe: { seed: 0, origin: 'inference', kwargs: { act: 'os.system("id")' }, refs: ['act'], inputs: [] } },
    ],
    ['a parameter count that is not a count', { params: 'lots' }],
    ['a negative shape', { outputs: [{ shape: [-1], dtype: 'float32', checksum: 1, projection: 0 }] }],
    ['an unknown field', { injected: true }],
    ['an unknown failure class', { status: 'failed', failureClass: 'pwned' }],
    ['a passed record with a failure class', { failureClass: 'memory' }],
    ['a failed record without one', { status: 'failed' }],
    ['an error message of a megabyte', { failureDetail: 'x'.repeat(1 << 20) }],
  ])('refuses %s', (_name, over) => {
    expect(why(record(over))).not.toBe('ok');
  });

  it('accepts a missing-dependency record naming top-level modules, and refuses one naming anything else', () => {
    // The modules become distribution names on the site ("blocked: needs opencv-python"): identifiers only.
    const blocked = (detail: string) =>
      record({ status: 'failed', failureClass: 'missing-dependency', failureDetail: detail });
    expect(why(blocked('cv2'))).toBe('ok');
    expect(why(blocked('cv2, scipy'))).toBe('ok');
    for (const bad of ['', '<script>alert(1)</script>', 'cv2,scipy', 'os.path', 'a b', Array(17).fill('m').join(', ')])
      expect(why(blocked(bad)), bad).toMatch(/missing-dependency/);
  });

  it('takes instances nested in an instance and tuples, refusing a nested target or kwarg that is code', () => {
    const recipe = (kwargs: object, calls = ['transformer']) => ({
      recipe: {
        seed: 0,
        origin: 'override',
        kwargs,
        calls,
        inputs: [{ shape: [], dtype: 'int64', value: { tuple: [8, 8] } }],
      },
    });
    const inner = { call: 'torch.nn.LayerNorm', kwargs: { normalized_shape: { tuple: [8] } } };
    const good = {
      transformer: { call: '.TwoWayTransformer', kwargs: { depth: 2, norm: inner } },
      size: { tuple: [8, 8] },
    };
    expect(why(record(recipe(good)))).toBe('ok');
    const bad = (over: object) => why(record(recipe({ ...good, transformer: { ...good.transformer, ...over } })));
    expect(bad({ kwargs: { norm: { ...inner, call: 'os.system("id")' } } })).toMatch(
      /transformer: is not a dotted name/,
    );
    expect(bad({ kwargs: { norm: { ...inner, kwargs: { lambda: 1 } } } })).toMatch(/kwarg lambda is a reserved word/);
    // A tuple is a value, not a call: naming it in `calls` is refused, as a call not named is.
    expect(why(record(recipe(good, ['transformer', 'size'])))).toMatch(/a call where none is named/);
    expect(why(record(recipe(good, [])))).toMatch(/a call where none is named/);
  });

  it('takes a builder recipe and canonical counts, refusing a builder that is not a name', () => {
    const built = {
      seed: 0,
      origin: 'builder',
      builder: 'resnet50',
      kwargs: {},
      inputs: [{ shape: [2, 3, 32, 32], dtype: 'float32' }],
    };
    expect(why(record({ recipe: built, canonical: [{ builder: 'resnet50', params: 25557032 }] }))).toBe('ok');
    expect(why(record({ recipe: { ...built, builder: "resnet50(); __import__('os')" } }))).not.toBe('ok');
    expect(why(record({ recipe: { ...built, builder: 'lambda' } }))).not.toBe('ok');
    expect(why(record({ recipe: { ...built, origin: 'guess' } }))).not.toBe('ok');
    expect(why(record({ canonical: [{ builder: 'resnet50', params: -1 }] }))).not.toBe('ok');
  });

  it('takes a part recipe naming its builder, module and path; refuses a forged one', () => {
    // A composite recipe (docs/validate.md, "Recipes"): the path is replayed as `model.get_submodule(path)` and the
    // builder's module imported for fidelity, so both are names or nothing.
    const part = {
      seed: 0,
      origin: 'part',
      builder: 'fasterrcnn_resnet50_fpn',
      builderModule: 'torchvision.models.detection.faster_rcnn',
      path: 'backbone.body.layer1.0',
      kwargs: { weights: null, min_size: 64 },
      inputs: [{ shape: [3, 32, 32], dtype: 'float32', list: 1 }],
    };
    expect(why(record({ recipe: part }))).toBe('ok');
    expect(why(record({ status: 'failed', failureClass: 'forward-error', recipe: null, attempt: part }))).toBe('ok');
    const forged: [string, Record<string, unknown>][] = [
      ['a path that is code', { path: "rpn'); __import__('os').system('id') #" }],
      ['a path of a megabyte', { path: 'a.'.repeat(1 << 19) + 'a' }],
      ['a path of 300 characters', { path: Array(3).fill('x'.repeat(99)).join('.') }],
      ['a path with a slash', { path: 'rpn/head' }],
      ['a path starting with an index', { path: '0.conv' }],
      ['a path with a keyword', { path: 'rpn.import' }],
      ['an empty path', { path: '' }],
      ['a path of 33 segments', { path: Array(33).fill('a').join('.') }],
      ['a path that is not a string', { path: ['rpn'] }],
      ['a module that is code', { builderModule: 'os; import sys' }],
      ['a module with a keyword', { builderModule: 'pkg.lambda' }],
      ['a builder that is code', { builder: "net(); __import__('os')" }],
      ['no path', { path: undefined }],
      ['no module', { builderModule: undefined }],
      ['no builder', { builder: undefined }],
      ['references', { kwargs: { act: 'torch.nn.ReLU' }, refs: ['act'] }],
    ];
    for (const [what, over] of forged) expect(why(record({ recipe: { ...part, ...over } })), what).not.toBe('ok');
    // Only a part names a path or a module: an inference recipe carrying one would replay something else.
    const plain = { seed: 0, origin: 'inference', kwargs: {}, inputs: [] };
    expect(why(record({ recipe: { ...plain, path: 'rpn' } }))).not.toBe('ok');
    expect(why(record({ recipe: { ...plain, builderModule: 'pkg.models' } }))).not.toBe('ok');
  });

  it('takes MACs at the input they were counted at, and refuses a forged one: huge, negative, fractional, not a number', () => {
    const fig = { builder: 'resnet50', params: 25557032, input: [1, 3, 224, 224], outputs: [[1, 1000]] };
    const withMacs = (macs: unknown) => why(record({ canonical: [{ ...fig, macs }] }));
    expect(withMacs(4089184256)).toBe('ok');
    expect(withMacs(0)).toBe('ok'); // a model of elementwise ops only: nothing the counter counts
    expect(withMacs(Number.MAX_SAFE_INTEGER)).toBe('ok');
    // JSON.parse reads 1e300 and 2^53 as integers: the bound is what keeps them out.
    for (const bad of [1e300, Number.MAX_SAFE_INTEGER + 1, -1, 4.5, '4089184256', null, Number.NaN])
      expect(withMacs(bad), String(bad)).toMatch(/malformed record: \/canonical\/0/);
    // MACs say nothing without the input they were counted at.
    expect(why(record({ canonical: [{ builder: 'resnet50', params: 25557032, macs: 4089184256 }] }))).toMatch(
      /malformed record: \/canonical\/0 must have property input when property macs is present/,
    );
  });

  it('takes boxes and literal inputs, and refuses hostile ones: code, long or patterned strings, huge lists, junk', () => {
    const withInputs = (...inputs: unknown[]) =>
      record({ recipe: { seed: 0, origin: 'inference', kwargs: {}, inputs } });
    const image = { shape: [2, 3, 32, 32], dtype: 'float32' };
    const literal = (value: unknown) => ({ shape: [], dtype: 'int64', value });
    expect(why(withInputs(image, { shape: [8, 5], dtype: 'float32', boxes: 32, high: 2 }))).toBe('ok');
    expect(why(withInputs(image, { shape: [4, 4], dtype: 'float32', boxes: 32, list: 2 }))).toBe('ok');
    expect(why(withInputs(image, literal(['0', 'p6', 'pool'])))).toBe('ok');
    expect(
      why(
        withInputs(
          image,
          literal([
            [32, 32],
            [64, 48],
          ]),
        ),
      ),
    ).toBe('ok');
    expect(why(withInputs(image, literal(2)))).toBe('ok');
    const pyramid = {
      shape: [2, 3, 8, 8],
      dtype: 'float32',
      levels: [
        [2, 3, 8, 8],
        [2, 5, 4, 4],
      ],
    };
    expect(why(withInputs(pyramid))).toBe('ok');
    const hostile: [string, unknown][] = [
      ['a name that is code', literal(["0'); __import__('os').system('id') #"])],
      ['a name of a megabyte', literal(['x'.repeat(1 << 20)])],
      ['a name with a space', literal(['a b'])],
      ['an empty name', literal([''])],
      ['a non-ASCII name', literal(['ñ'])],
      ['too many names', literal(Array.from({ length: 17 }, (_, i) => `n${i}`))],
      ['a huge list of sizes', literal(Array(100_000).fill([1, 1]))],
      ['a size of five ints', literal([[1, 2, 3, 4, 5]])],
      ['an int beyond 4096', literal([[4097, 1]])],
      ['a negative int', literal(-1)],
      ['a float', literal(1.5)],
      ['a string', literal('2; import os')],
      ['nested lists', literal([[[1, 2]]])],
      ['names and ints mixed', literal(['a', 1])],
      ['an object', literal({ __class__: 'os' })],
      ['an empty list', literal([])],
      ['null', literal(null)],
      ['boxes of a string side', { shape: [8, 5], dtype: 'float32', boxes: '32' }],
      ['boxes in a 1-pixel image', { shape: [8, 5], dtype: 'float32', boxes: 1 }],
      ['boxes of three dimensions', { shape: [2, 8, 5], dtype: 'float32', boxes: 32 }],
      ['boxes of six columns', { shape: [8, 6], dtype: 'float32', boxes: 32 }],
      ['levels that do not start at the shape', { ...pyramid, shape: [2, 3, 16, 16] }],
      ['one level', { ...pyramid, levels: [[2, 3, 8, 8]] }],
      ['levels and a list', { ...pyramid, list: 2 }],
      ['levels of a string', { ...pyramid, levels: [[2, 3, 8, 8], '[2, 5]'] }],
    ];
    for (const [what, input] of hostile) expect(why(withInputs(image, input)), what).not.toBe('ok');
    // The same rules hold for the recipe a failed block tried.
    const tried = { seed: 0, origin: 'inference', kwargs: {}, inputs: [literal(['a b'])] };
    expect(why(record({ status: 'failed', failureClass: 'forward-error', recipe: null, attempt: tried }))).not.toBe(
      'ok',
    );
  });

  it('refuses what is not a record at all', () => {
    for (const v of [null, 'final', 42, [], { status: 'passed' }]) expect(why(v)).not.toBe('ok');
  });

  it('drops module-tree nodes whose type name carries host facts, and marks the cut', () => {
    const tree = {
      type: 'pkg.Block',
      params: {},
      children: {
        ok: { type: 'torch.nn.ReLU', params: {}, children: {} },
        leak: { type: 'root:x:0:0:root:/root:/bin/bash', params: {}, children: {} },
        cmdline: { type: 'BOOT_IMAGE=/vmlinuz ro quiet', params: {}, children: {} },
      },
    };
    const r = checkRunnerRecord(record({ moduleTree: tree }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.record.moduleTree!.children)).toEqual(['ok']);
    expect(r.record.moduleTree!.truncated).toBe(true);
    const bad = checkRunnerRecord(record({ moduleTree: { ...tree, type: '/etc/passwd' } }));
    expect(bad.ok && bad.record.moduleTree).toBeNull();
  });

  it('refuses a module tree larger than the runner ever writes', () => {
    const children: Record<string, unknown> = {};
    for (let i = 0; i < 2100; i++) children[`c${i}`] = { type: 'torch.nn.ReLU', params: {}, children: {} };
    expect(why(record({ moduleTree: { type: 'pkg.Block', params: {}, children } }))).toBe('module tree too large');
  });
});

describe('the device a run names', () => {
  // One list, RUN_DEVICES, for the worker's hello and for each record: the devices runner.py resolves a request to
  // (`auto` never reaches a record). A worker that says anything else is not one of ours.
  const hello = (device: unknown) =>
    readHello({ device, torchVersion: '2.14.1', identity: { uid: 65534, gid: 65534, capEff: '0', seccomp: true } });

  it.each([['cpu'], ['cuda']])('takes %s', (device) => {
    expect(why(record({ device }))).toBe('ok');
    expect(hello(device)?.device).toBe(device);
  });

  it.each([['cuda:0'], ['gpu'], ['auto'], ['none'], [7]])('refuses %s', (device) => {
    expect(why(record({ device }))).toContain('device');
    expect(hello(device)).toBeNull();
  });

  it('is the list the record check and the hello read', () => {
    expect([...RUN_DEVICES]).toEqual(['cpu', 'cuda']);
  });
});
