// A mistyped ref in a config override: `"transformer": "transformer.TwoWayTransformer"` fails the build
// with `No module named 'transformer'`, which the runner classes as a missing distribution. checkOverrideRefs makes
// it the config problem it is: the block fails `unresolved-name`, and an error names the override field. Records
// here are the runner's shape, as a build of a config with that override gets them (test/build/override-refs.test.ts
// runs one end to end).
import { describe, expect, it } from 'vitest';
import type { ValidateOverride } from '../../pipeline/config/types.ts';
import { checkOverrideRefs } from '../../pipeline/validate/override-refs.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';

const ID = 'sam:segment_anything.modeling.mask_decoder.MaskDecoder';

function blocked(detail: string): ValidationRecord {
  return {
    id: ID,
    status: 'blocked',
    failureClass: 'missing-dependency',
    failureDetail: detail,
    stages: [{ stage: 'build', status: 'failed', ms: 3, error: "ModuleNotFoundError: No module named 'transformer'" }],
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
    fidelity: { status: 'n/a' },
    stdoutTail: '',
    stderrTail: '',
    cached: false,
  } as ValidationRecord;
}

const override: ValidateOverride = {
  kwargs: { transformer: 'transformer.TwoWayTransformer', transformer_dim: 32, act: 'torch.nn.GELU' },
  refs: ['transformer', 'act'],
};
const of = (id: string) => (id === ID ? { key: 'MaskDecoder', override } : undefined);

describe('override refs', () => {
  it('a ref naming a module nothing provides: failed unresolved-name, and an error naming the override field', () => {
    const { records, diagnostics } = checkOverrideRefs([blocked('transformer')], of);
    expect(records[0]).toMatchObject({
      status: 'failed',
      failureClass: 'unresolved-name',
      failureDetail: 'transformer.TwoWayTransformer',
    });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'override-ref-unresolved', severity: 'error', source: 'sam' });
    expect(diagnostics[0].message).toContain('validate.overrides["MaskDecoder"].kwargs.transformer');
    expect(diagnostics[0].message).toContain('"transformer.TwoWayTransformer"');
    expect(diagnostics[0].hint).toContain('package.module.Class');
  });

  it('leaves a block that is missing a real distribution blocked (the bad ref still reported)', () => {
    const one = checkOverrideRefs([blocked('cv2')], of);
    expect(one.records[0].status).toBe('blocked');
    expect(one.diagnostics).toEqual([]);
    const both = checkOverrideRefs([blocked('cv2, transformer')], of);
    expect(both.records[0].status).toBe('blocked');
    expect(both.diagnostics.map((d) => d.code)).toEqual(['override-ref-unresolved']);
  });

  it('leaves blocks without an override, or whose refs are of their own module, alone', () => {
    expect(checkOverrideRefs([blocked('transformer')], () => undefined).records[0].status).toBe('blocked');
    const own = { kwargs: { transformer: '.TwoWayTransformer' }, refs: ['transformer'] };
    const r = checkOverrideRefs([blocked('transformer')], () => ({ key: ID, override: own }));
    expect(r.records[0].status).toBe('blocked');
  });
});
