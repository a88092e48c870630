// What a failed block's page says (src/lib/failure.ts): a sentence per failure class, never a bare "failed", naming
// the constructor parameters a `needs-arguments` block lacks — those inference has no value for — from the messages
// real torchvision blocks produce.
import { describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { ParamSpec } from '../../pipeline/contract/common.ts';
import type { FailureReason } from '../../pipeline/contract/validation.ts';
import { failureSummary, missingArguments, type Part } from '../../src/lib/failure.ts';

const param = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, kind: 'positional', ...extra });

/** A failed block's spec with what failureSummary reads: constructor parameters and the validation record. */
function failed(
  failureClass: string,
  reason: Partial<FailureReason>,
  params: ParamSpec[] = [],
  extra: Partial<NonNullable<BlockSpec['validation']>> = {},
): BlockSpec {
  return {
    interface: { constructorParams: params, forward: null, bases: [], methods: [] },
    validation: {
      status: 'failed',
      failureClass,
      reason: { stage: 'build', exceptionType: 'TypeError', message: '', recipeTried: null, ...reason },
      stages: [],
      outputs: [],
      device: 'cpu',
      torchVersion: '2.6.0',
      fidelity: 'not-compared',
      ...extra,
    },
  } as unknown as BlockSpec;
}

/** The sentence as a reader sees it, names in backticks. */
const said = (parts: Part[]) => parts.map((p) => (p.code ? `\`${p.text}\`` : p.text)).join('');

describe('what a needs-arguments page names', () => {
  it('names the parameters Python said were missing, less those inference fills', () => {
    const missing = (message: string, params: ParamSpec[] = []) =>
      missingArguments(failed('needs-arguments', { message }, params));
    expect(missing("FasterRCNN.__init__() missing 1 required positional argument: 'backbone'")).toEqual(['backbone']);
    // Oxford comma, as Python writes three or more; `in_channels_list: List[int]` and `out_channels` are inferred.
    expect(
      missing(
        "BackboneWithFPN.__init__() missing 4 required positional arguments: 'backbone', 'return_layers', 'in_channels_list', and 'out_channels'",
        [param('in_channels_list', { annotation: 'List[int]' }), param('out_channels', { role: 'channels' })],
      ),
    ).toEqual(['backbone', 'return_layers']);
    expect(
      missing("RetinaNet.__init__() missing 2 required positional arguments: 'backbone' and 'num_classes'"),
    ).toEqual(['backbone']);
    // When inference should have filled all of them, all of them: the likely culprit is still among them.
    expect(missing("RandomCropVideo.__init__() missing 1 required positional argument: 'size'")).toEqual(['size']);
  });

  it("falls back to the interface's required parameters without a default", () => {
    const params = [
      param('cnf', { annotation: 'MBConvConfig' }),
      param('stochastic_depth_prob', { annotation: 'float', role: 'dropout' }),
      param('norm_layer', { default: 'None', role: 'norm-layer' }),
      param('args', { kind: 'var-positional' }),
    ];
    expect(missingArguments(failed('needs-arguments', { message: 'shape mismatch' }, params))).toEqual(['cnf']);
  });

  it('writes a or an before one name, none before several', () => {
    const summary = (names: string[]) =>
      said(
        failureSummary(
          failed('needs-arguments', {
            message: `__init__() missing ${names.length} required positional arguments: ${names.map((n) => `'${n}'`).join(' and ')}`,
          }),
        ),
      );
    expect(summary(['backbone'])).toBe('could not be built automatically: needs a `backbone`');
    expect(summary(['inverted_residual_setting'])).toBe(
      'could not be built automatically: needs an `inverted_residual_setting`',
    );
    expect(summary(['model', 'return_layers'])).toBe(
      'could not be built automatically: needs `model` and `return_layers`',
    );
  });
});

describe('what a failed page says, by class', () => {
  it('says it in words for every class, with the names and messages as code', () => {
    const cases: [BlockSpec, string][] = [
      [
        failed('forward-error', {
          stage: 'forward',
          exceptionType: 'RuntimeError',
          message: 'mat1 and mat2 shapes cannot be multiplied',
        }),
        'built, but no probe input ran forward: `RuntimeError: mat1 and mat2 shapes cannot be multiplied`',
      ],
      [
        failed('backward-error', { stage: 'backward', exceptionType: 'RuntimeError', message: 'no grad' }),
        'ran forward, but backward failed: `RuntimeError: no grad`',
      ],
      [
        failed('native-extension', { stage: 'import', exceptionType: 'ImportError', message: 'x' }, [], {
          failureDetail: 'detectron2._C',
        }),
        'needs compiled extensions (`detectron2._C`)',
      ],
      [
        failed(
          'unresolved-name',
          { stage: 'import', exceptionType: 'NameError', message: "name 'Act' is not defined" },
          [],
          {
            failureDetail: 'Act',
          },
        ),
        'a name could not be resolved: `Act`',
      ],
      [
        failed('missing-module', { stage: 'import', exceptionType: 'ModuleNotFoundError', message: 'x' }, [], {
          failureDetail: 'pkg.layers',
        }),
        'a module it imports is not in the assembled file: `pkg.layers`',
      ],
      [
        failed('timeout', { stage: 'forward', exceptionType: null, message: 'killed at the deadline during forward' }),
        'stopped at the time limit during forward: it ran too long to validate',
      ],
      [
        failed('memory', { stage: 'build', exceptionType: 'MemoryError', message: '' }),
        'stopped during build: it needed more memory than validation allows',
      ],
      [
        failed('sandbox-violation', { stage: 'import', exceptionType: 'PermissionError', message: 'denied' }, [], {
          failureDetail: 'network: connect 10.0.0.1:80',
        }),
        'refused by the sandbox: it tried to reach outside it: `network: connect 10.0.0.1:80`',
      ],
      [
        failed('protocol-error', { stage: null, exceptionType: null, message: 'malformed record: /recipe' }),
        "its result could not be read: the run's record broke the protocol: `malformed record: /recipe`",
      ],
      [
        failed('crashed', { stage: 'forward', exceptionType: null, message: 'killed by signal 11' }),
        'the process died without a result during forward: `killed by signal 11`',
      ],
      [
        failed('construct-error', { stage: null, exceptionType: null, message: '' }, [], {
          failureDetail: 'old catalog',
        }),
        'failed (construct-error): `old catalog`',
      ],
    ];
    for (const [spec, sentence] of cases) expect(said(failureSummary(spec))).toBe(sentence);
  });

  it('shows a type that is not a dotted name as no type at all', () => {
    const spec = failed('forward-error', { exceptionType: "__import__('os')", message: 'bad' });
    expect(said(failureSummary(spec))).toBe('built, but no probe input ran forward: `bad`');
  });
});
