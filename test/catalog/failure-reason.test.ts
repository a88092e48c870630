// A failed or blocked block's neutral reason: the runner's stage error split into the exception's
// type and a one-line message without traceback lines, source lines or paths of the machine that ran it; the catalog
// form of a runner record (no recipe, parameter count or zero for a block that never built); and the schema holding
// the reason's fields to their types and caps.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { RUN_LIMITS } from '../../pipeline/contract/vocabulary.ts';
import { failureReason, neutralPath, neutralText, splitError } from '../../pipeline/catalog/failure-reason.ts';
import { toCatalog } from '../../pipeline/catalog/validation-record.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { FORGED, makeCatalog } from '../site/fixtures/make-catalog.ts';

describe('neutral text: what a run reported, without traceback lines or paths of this machine', () => {
  it('drops traceback frames and the source line under each, keeping the exception', () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/work/x/.nnblocks/extracted/blocks/m.py", line 3, in forward',
      '    x = self.proj(x).view(-1, self.window_size, C)',
      '        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
      '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl',
      '    return self._call_impl(*args, **kwargs)',
      'RuntimeError: shape mismatch',
    ].join('\n');
    const text = neutralText(traceback);
    expect(text).toBe('RuntimeError: shape mismatch');
    // A SyntaxError's header is a frame without `in`: its file, then the source line and the caret.
    expect(neutralText('  File "/nnb/block/3/m.py", line 4\n    x = = 1\n        ^\nSyntaxError: invalid syntax')).toBe(
      'SyntaxError: invalid syntax',
    );
    // A wrapped traceback inside a message (torch's "Original Traceback") loses its frames and code lines too.
    const wrapped =
      'RuntimeError: Caught ValueError in replica 0.\nOriginal Traceback (most recent call last):\n  File "/nnb/block/1/m.py", line 9, in forward\n    return secret_upstream_line(x)\nValueError: bad';
    expect(neutralText(wrapped)).toBe(
      'RuntimeError: Caught ValueError in replica 0. Original Traceback (most recent call last): ValueError: bad',
    );
  });

  it('names the sandbox, cache and temp folders neutrally, and keeps paths that name no machine', () => {
    expect(neutralText("FileNotFoundError: [Errno 2] No such file or directory: '/tmp/nnblocks-work/b2-3/x'")).toBe(
      "FileNotFoundError: [Errno 2] No such file or directory: '<tmp>/x'",
    );
    expect(neutralText('error in /nnb/block/7/mod.py at line 3')).toBe('error in mod.py at line 3');
    expect(neutralText('no file for module m under /nnb/block/7')).toBe('no file for module m under <sandbox>');
    expect(neutralText('see /nnb/runner/nnblocks_runner/stages.py:12')).toBe('see <sandbox>/stages.py:12');
    expect(neutralText('/work/x/.nnblocks/extracted/blocks/pkg/m.py failed')).toBe('pkg/m.py failed');
    expect(neutralText('in /usr/lib/python3/dist-packages/torch/nn/functional.py.')).toBe('in torch/nn/functional.py.');
    expect(neutralText('in /usr/lib/python3.11/importlib/__init__.py')).toBe('in importlib/__init__.py');
    expect(neutralText('at /usr/local/lib/python3.12/site-packages/timm/layers/x.py')).toBe('at timm/layers/x.py');
    expect(neutralText('wrote /var/tmp/cache/a.bin and /dev/shm/torch_1')).toBe('wrote <tmp>/a.bin and <tmp>/torch_1');
    expect(neutralText('opened /home/alice/project/secret.py')).toBe('opened <host>/secret.py');
    // This build's import roots (a cache folder anywhere) cut like the sandbox's inbox.
    expect(neutralPath('/data/cache/extracted/blocks/pkg/m.py', ['/data/cache/extracted/blocks'])).toBe('pkg/m.py');
    // What names no machine stays: system files a block reached for, URLs, relative paths, division.
    expect(neutralText('open: /etc/passwd')).toBe('open: /etc/passwd');
    expect(neutralText('see https://github.com/pytorch/vision/blob/main/x.py')).toBe(
      'see https://github.com/pytorch/vision/blob/main/x.py',
    );
    expect(neutralText('torchvision/ops/boxes.py: 4/8 heads, a / b')).toBe(
      'torchvision/ops/boxes.py: 4/8 heads, a / b',
    );
  });

  it('makes one line: control and bidi characters and runs of whitespace become single spaces', () => {
    expect(neutralText('ValueError: a\x1b[31m\tb\u202ec\r\n\n d')).toBe('ValueError: a [31m b c d');
  });
});

describe("splitting the runner's `Type: message`", () => {
  it('gives the dotted type and the message, or no type when the text is not an exception header', () => {
    expect(splitError("TypeError: __init__() missing 1 required positional argument: 'backbone'")).toEqual({
      exceptionType: 'TypeError',
      message: "__init__() missing 1 required positional argument: 'backbone'",
    });
    expect(splitError('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB')).toEqual({
      exceptionType: 'torch.OutOfMemoryError',
      message: 'CUDA out of memory. Tried to allocate 2.00 GiB',
    });
    expect(splitError('AssertionError')).toEqual({ exceptionType: 'AssertionError', message: '' });
    // No type for how a run ended, or for text that is not an exception header.
    expect(splitError('killed at the deadline during forward without reporting a result')).toEqual({
      exceptionType: null,
      message: 'killed at the deadline during forward without reporting a result',
    });
    expect(splitError('Killed').exceptionType).toBeNull();
    expect(splitError(`${FORGED.kwargName}: x`).exceptionType).toBeNull();
    expect(splitError(`A${'b'.repeat(250)}Error: x`).exceptionType).toBeNull(); // past the 200-character type cap
  });

  it(`caps the message at ${RUN_LIMITS.detailChars} characters`, () => {
    const { message } = splitError(`RuntimeError: ${'é'.repeat(1000)}`);
    expect([...message]).toHaveLength(RUN_LIMITS.detailChars);
    expect(message.endsWith('…')).toBe(true);
  });
});

/** A runner record; fields a test does not name are those of a block that failed to build. */
function record(over: Partial<ValidationRecord>): ValidationRecord {
  return {
    id: 'src:m.Block',
    status: 'failed',
    failureClass: 'needs-arguments',
    failureDetail: null,
    stages: [
      { stage: 'parse', status: 'passed', ms: 1 },
      { stage: 'compile', status: 'passed', ms: 1 },
      { stage: 'import', status: 'passed', ms: 10 },
      {
        stage: 'build',
        status: 'failed',
        ms: 3,
        error:
          '  File "/nnb/block/2/m.py", line 7\n    def __init__(self, backbone):\nTypeError: Block.__init__() missing 1 required positional argument: \'backbone\'',
      },
    ],
    recipe: null,
    outputs: [],
    params: null,
    buffers: null,
    gradients: null,
    peakMemoryBytes: null,
    device: 'cpu',
    gpuName: null,
    torchVersion: '2.6.0',
    moduleTree: null,
    fidelity: { status: 'n/a', reason: 'block did not pass' },
    stdoutTail: '',
    stderrTail: '',
    cached: false,
    ...over,
  };
}

const RECIPE = {
  seed: 0,
  origin: 'inference' as const,
  kwargs: { dim: 16, norm_layer: 'torch.nn.LayerNorm' },
  refs: ['norm_layer'],
  inputs: [{ shape: [2, 16], dtype: 'float32' as const }],
};
const CATALOG_RECIPE = {
  seed: 0,
  origin: 'inference',
  kwargs: [
    { name: 'dim', value: 16 },
    { name: 'norm_layer', value: 'torch.nn.LayerNorm' },
  ],
  refs: ['norm_layer'],
  inputs: [{ shape: [2, 16], dtype: 'float32' }],
};

describe("a runner record in the catalog's form", () => {
  it('gives a block that never built a reason and no recipe, parameter count or buffer count; a passed one no reason', () => {
    const v = toCatalog(record({}));
    expect(v.reason).toEqual({
      stage: 'build',
      exceptionType: 'TypeError',
      message: "Block.__init__() missing 1 required positional argument: 'backbone'",
      recipeTried: null,
    });
    expect(v).not.toHaveProperty('recipe');
    expect(v).not.toHaveProperty('params');
    expect(v).not.toHaveProperty('buffers');
    // A passed block, by contrast: its recipe and size, and no reason.
    const p = toCatalog(
      record({ status: 'passed', failureClass: null, stages: [], recipe: RECIPE, params: 5, buffers: 1 }),
    );
    expect(p.recipe).toEqual(CATALOG_RECIPE);
    expect(p.params).toBe(5);
    expect(p).not.toHaveProperty('reason');
  });

  it('gives a block that built and failed later its recipe as the one tried, and its size', () => {
    const v = toCatalog(
      record({
        failureClass: 'backward-error',
        stages: [
          {
            stage: 'backward',
            status: 'failed',
            ms: 2,
            error: 'RuntimeError: element 0 of tensors does not require grad',
          },
        ],
        recipe: RECIPE,
        params: 1234,
        buffers: 0,
      }),
    );
    expect(v.reason).toMatchObject({ stage: 'backward', exceptionType: 'RuntimeError', recipeTried: CATALOG_RECIPE });
    expect(v).not.toHaveProperty('recipe');
    expect(v.params).toBe(1234);
  });

  it('gives a blocked block its reason, and the class detail without host paths', () => {
    const blocked = toCatalog(
      record({
        status: 'blocked',
        failureClass: 'missing-dependency',
        failureDetail: 'cv2',
        stages: [{ stage: 'import', status: 'failed', ms: 4, error: "ModuleNotFoundError: No module named 'cv2'" }],
      }),
    );
    expect(blocked.reason).toEqual({
      stage: 'import',
      exceptionType: 'ModuleNotFoundError',
      message: "No module named 'cv2'",
      recipeTried: null,
    });
    const lost = toCatalog(
      record({
        failureClass: 'crashed',
        failureDetail: 'worker died: see /tmp/nnblocks-sandbox-x1/inbox-2/log',
        stages: [],
      }),
    );
    expect(lost.failureDetail).toBe('worker died: see <tmp>/log');
    expect(lost.reason).toEqual({
      stage: null,
      exceptionType: null,
      message: 'worker died: see <tmp>/log',
      recipeTried: null,
    });
  });

  it('reads the reason from the stage that failed, or from the detail when none reported an error', () => {
    const r = failureReason(
      {
        stages: [
          {
            stage: 'forward',
            status: 'failed',
            error: 'killed at the deadline during forward without reporting a result',
          },
        ],
        failureDetail: 'x',
      },
      null,
    );
    expect(r).toEqual({
      stage: 'forward',
      exceptionType: null,
      message: 'killed at the deadline during forward without reporting a result',
      recipeTried: null,
    });
    expect(failureReason({ stages: [], failureDetail: 'network: connect 10.0.0.1' }, null).message).toBe(
      'network: connect 10.0.0.1',
    );
  });
});

describe('the block schema holds the reason to its types and caps', () => {
  const work = mkdtempSync(join(tmpdir(), 'nnblocks-reason-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const catalog = makeCatalog({ dir: join(work, 'catalog'), blocks: 20 });
  const read = (slug: string) =>
    JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${slug}.json`), 'utf8')) as BlockSpec;
  const failed = () => read(catalog.failed['needs-arguments'].slug);
  const refused = (spec: BlockSpec, edit: (s: BlockSpec) => void) => {
    edit(spec);
    return checkAgainstSchema('block', spec, 'b').map((e) => e.split(' ')[1]);
  };

  it("accepts the fixture's failed and blocked blocks with their reasons, and its passed ones", () => {
    expect(checkAgainstSchema('block', failed(), 'b')).toEqual([]);
    expect(checkAgainstSchema('block', read(catalog.blocked.slug), 'b')).toEqual([]);
    expect(checkAgainstSchema('block', read(catalog.forgeable.slug), 'b')).toEqual([]);
  });

  it('refuses an uncapped message, a type that is not a dotted name, a stage that is not kebab-case', () => {
    expect(refused(failed(), (s) => (s.validation!.reason!.message = 'x'.repeat(301)))).toContain(
      '/validation/reason/message',
    );
    expect(refused(failed(), (s) => (s.validation!.reason!.message = 'é'.repeat(300)))).toEqual([]);
    expect(refused(failed(), (s) => (s.validation!.reason!.exceptionType = FORGED.kwargName))).toContain(
      '/validation/reason/exceptionType',
    );
    expect(refused(failed(), (s) => (s.validation!.reason!.exceptionType = 'pkg.make.<locals>.Error'))).toEqual([]);
    expect(refused(failed(), (s) => (s.validation!.reason!.stage = 'Build; rm'))).toContain('/validation/reason/stage');
    expect(
      refused(
        failed(),
        (s) =>
          (s.validation!.reason!.recipeTried = { seed: 0, kwargs: [{ name: FORGED.kwargName, value: 1 }], inputs: [] }),
      ),
    ).toContain('/validation/reason/recipeTried/kwargs/0/name');
  });

  it('holds a reason to failed and blocked blocks, a replay recipe to passed ones', () => {
    const errors = (spec: BlockSpec, edit: (s: BlockSpec) => void) => {
      edit(spec);
      return checkAgainstSchema('block', spec, 'b');
    };
    const blocked = read(catalog.blocked.slug);
    expect(errors(blocked, (s) => delete s.validation!.reason)).toContain(
      "b: /validation must have required property 'reason'",
    );
    expect(errors(failed(), (s) => (s.validation!.recipe = { seed: 0, kwargs: [], inputs: [] }))).toContain(
      'b: /validation must NOT be valid',
    );
    const passed = read(catalog.forgeable.slug);
    expect(errors(passed, (s) => (s.validation!.reason = failed().validation!.reason))).toContain(
      'b: /validation must NOT be valid',
    );
    expect(errors(read(catalog.forgeable.slug), (s) => delete s.validation!.recipe)).toContain(
      "b: /validation must have required property 'recipe'",
    );
  });

  it('publishes the cap RUN_LIMITS states', () => {
    const block = JSON.parse(readFileSync('schemas/catalog/block.schema.json', 'utf8'));
    const reason = block.properties.validation.properties.reason.properties;
    expect(reason.message.maxLength).toBe(RUN_LIMITS.detailChars);
    expect(reason.exceptionType.anyOf[1].$ref).toBe('common.schema.json#/definitions/typeName');
  });
});
