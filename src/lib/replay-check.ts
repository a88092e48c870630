// The end of a replay script: the outputs it got, checked against those validation recorded (shape, dtype, Σ|x|,
// the fixed random projection) and, for outputs that are all zeros, the sensitivity (docs/site.md, "Reproduce").
// Every value written here was checked by replay.ts `replayPlan`; strings go through pyStr.
import type { TorchDtype } from '../../pipeline/contract/vocabulary.ts';
import { pyShape, pyStr } from './py-literal.ts';

/** A recorded output, its values checked: `projection` null where the record has none (made before it was measured). */
export interface RecordedOutput {
  shape: number[];
  dtype: TorchDtype;
  checksum: string;
  projection: string | null;
}

/**
 * How far a replayed projection may be from the recorded one, as a share of the output's L2 norm. Rounding noise
 * of relative size e moves it by about e times the norm (its weights are below 1 in size and the noise has no
 * sign); a sign flipped, values moved or an output of zeros moves it by about the norm itself.
 */
export const PROJECTION_TOLERANCE = 0.01;

/**
 * The output tensors as validation counted them (measure.py `tensors`, replay.py `output_tensors`): tensors of
 * tuples, lists and dicts in order, 5 levels deep; when there are none, those of the objects' attributes.
 */
const OUTPUT_TENSORS = [
  'def tensors(v, depth=0):',
  '    if depth > 5:',
  '        return []',
  '    if isinstance(v, torch.Tensor):',
  '        return [v]',
  '    if isinstance(v, dict):',
  '        v = list(v.values())',
  '    return [t for x in v for t in tensors(x, depth + 1)] if isinstance(v, (list, tuple)) else []',
  '',
  'def unwrapped(v, depth=0):',
  '    if depth > 5 or isinstance(v, (torch.Tensor, torch.nn.Module, type, str, bytes, int, float)):',
  '        return v',
  '    if isinstance(v, (list, tuple)):',
  '        return [unwrapped(x, depth + 1) for x in v]',
  '    if isinstance(v, dict):',
  '        return {k: unwrapped(x, depth + 1) for k, x in v.items()}',
  "    attrs = getattr(v, '__dict__', None)",
  '    return [unwrapped(x, depth + 1) for x in attrs.values()] if type(attrs) is dict else v',
  '',
];

/**
 * The recorded outputs, then the check: each output's shape, dtype, checksum (Σ|x| in float64, measure.py
 * `checksum`) and projection (measure.py `projection`) against the record. Equal on the machine that validated;
 * elsewhere within tolerances, since a sum's rounding follows the order a BLAS adds in: Σ|x| within the GPU check's
 * (docs/validate.md), the projection within PROJECTION_TOLERANCE of the output's L2 norm. Σ|x| of an output that is
 * ≈ 0 passes its absolute tolerance whatever came out; its projection has no absolute floor, so a replay that gives
 * zeros where validation saw 1e-12 fails there.
 */
export function checkOutputs(outputs: RecordedOutput[]): string[] {
  const tuple = pyShape;
  const number = (v: string | null) => (v === null ? 'None' : `float(${pyStr(v)})`);
  return [
    ...OUTPUT_TENSORS,
    'def measured(t):  # (shape, dtype, sum of |x|, fixed random projection, L2 norm), all in float64',
    '    x = t.detach().cpu().double()',
    '    if not x.numel():',
    '        return tuple(x.shape), str(t.dtype).replace("torch.", ""), 0.0, 0.0, 0.0',
    '    r = torch.rand(x.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)',
    '    return tuple(x.shape), str(t.dtype).replace("torch.", ""), x.abs().sum().item(), (x * (2 * r - 1)).sum().item(), x.norm().item()',
    '',
    'def near(a, b, tol):  # equal, both nan, or both finite and within tol',
    '    return a == b or (math.isnan(a) and math.isnan(b)) or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= tol)',
    '',
    'recorded = [  # (shape, dtype, sum of |x|, projection) of each output, as validation recorded them',
    ...outputs.map(
      (o) => `    (${tuple(o.shape)}, ${pyStr(o.dtype)}, ${number(o.checksum)}, ${number(o.projection)}),`,
    ),
    ']',
    'outs = tensors(out) or tensors(unwrapped(out))',
    'got = [measured(t) for t in outs]',
    "print('outputs:', [g[:4] for g in got])",
    'assert len(got) == len(recorded), (got, recorded)',
    'for (shape, dtype, s, p, norm), (want_shape, want_dtype, want_s, want_p) in zip(got, recorded):',
    '    assert shape == want_shape and dtype == want_dtype, (shape, dtype, want_shape, want_dtype)',
    '    assert near(s, want_s, max(1e-3 * max(abs(s), abs(want_s)), 1e-5)), ("sum of |x|", s, want_s)',
    `    assert want_p is None or near(p, want_p, ${PROJECTION_TOLERANCE} * norm), ("projection", p, want_p, norm)`,
    "print('replayed: outputs match the recorded checksums')",
  ];
}

/**
 * Outputs that are all zeros (ViT's logits from its zero-initialised head) pass Σ|x| and the projection whatever the
 * block computed: the replay protocol once more, with gradients (replay.py `sensitivity`), and how the outputs'
 * projection moves with the parameters and floating inputs, Σ|∂P/∂θ| + Σ|∂P/∂x|, checked against the record to
 * 1e-3 relative. `build` and `draws` are the script's own lines, run again from the seed.
 */
export function checkSensitivity(sensitivity: string, build: string[], draws: string[], args: string): string[] {
  return [
    '',
    '# Every output is all zeros: check how their projection moves with the parameters and the floating inputs.',
    ...build,
    ...draws,
    `leaves = [t for t in tensors([${args}]) if t.is_floating_point()]`,
    'for t in leaves:',
    '    t.requires_grad_(True)',
    'with torch.enable_grad():',
    `    out = model(${args})`,
    '    outs = [t for t in tensors(out) or tensors(unwrapped(out)) if t.is_floating_point() and t.requires_grad]',
    '    wrt = [p for p in model.parameters() if p.requires_grad] + leaves',
    '    weights = [2 * torch.rand(t.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64) - 1 for t in outs]',
    '    projected = sum((t.double() * w.to(t.device)).sum() for t, w in zip(outs, weights))',
    '    grads = torch.autograd.grad(projected, wrt, allow_unused=True) if outs and wrt else []',
    'sensitivity = sum(d.detach().double().abs().sum().item() for d in grads if d is not None)',
    "print('sensitivity:', sensitivity)",
    `want = float(${pyStr(sensitivity)})`,
    "assert near(sensitivity, want, 1e-3 * abs(want)), ('sensitivity', sensitivity, want)",
    "print('replayed: the zero outputs move with the parameters as recorded')",
  ];
}
