// The "Reproduce locally" script: Python generated from a block's validation recipe, which a reader copies and runs.
//
// Every value in a recipe was reported by a sandboxed run of upstream code, so it is hostile until checked. The
// script is built in two steps: `replayPlan` checks each value against the catalog's rules (contract/rules.ts: kwarg
// names are ASCII identifiers and not keywords, refs dotted names, dtypes from TORCH_DTYPES, shapes non-negative
// integers, seeds integers, checksums numbers or nan/inf) and returns typed values, or null when any one fails;
// `renderPlan` writes text from those typed values only, every string through `pyStr`. Nothing is escaped into code:
// a value that is not what it should be means no script at all (the schema refuses such a block too; this holds if it
// were bypassed). The replay protocol mirrored here is docs/validate.md ("Replay protocol").
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { isBoxesInput, isInputKeys, isInputLiteral, type InputLiteral } from '../../pipeline/contract/inputs.ts';
import {
  isChecksum,
  isKwargName,
  isPartPath,
  isRefTarget,
  isShape,
  isTorchDtype,
  DEVICE_PATTERN,
} from '../../pipeline/contract/rules.ts';
import { FLOATING_DTYPES, RUN_LIMITS, type TorchDtype } from '../../pipeline/contract/vocabulary.ts';

const DEVICE = new RegExp(DEVICE_PATTERN);

/** A Python string literal, single-quoted, pure printable ASCII: every other character as an escape. */
export function pyStr(s: string): string {
  let out = "'";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}

/**
 * A recipe value as Python source, or null when it is not a literal within RUN_LIMITS: None, True/False, a finite
 * number, a string (pyStr), a tuple of those (lists become tuples, as recipes write shapes; `{"tuple": [...]}` is one).
 */
export function pyLiteral(v: unknown, depth = 0): string | null {
  if (isTupleValue(v)) return pyLiteral(v.tuple, depth);
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return String(v); // JavaScript's shortest round-trip form is valid Python (1e+21, 5e-7)
    return Number.isNaN(v) ? "float('nan')" : v > 0 ? "float('inf')" : "float('-inf')";
  }
  if (typeof v === 'string') return [...v].length <= RUN_LIMITS.recipeStringChars ? pyStr(v) : null;
  if (!Array.isArray(v) || depth >= RUN_LIMITS.literalDepth || v.length > RUN_LIMITS.recipeItems) return null;
  const items = v.map((x) => pyLiteral(x, depth + 1));
  if (items.some((x) => x === null)) return null;
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{"tuple": [...]}`: a recipe's tuple (RecipeValue), nothing else beside it. */
const isTupleValue = (v: unknown): v is { tuple: unknown[] } =>
  isObject(v) && Object.keys(v).length === 1 && Array.isArray(v.tuple);

/**
 * An instance's kwargs as Python source (`depth=2, norm=getattr(module, 'Norm')(dim=8)`), or null when any name or
 * value fails its check; values are literals (pyLiteral) or instances in turn, nested within RUN_LIMITS.
 */
function callArgs(kwargs: unknown, depth: number): string | null {
  if (!Array.isArray(kwargs) || kwargs.length > RUN_LIMITS.recipeItems || depth >= RUN_LIMITS.literalDepth) return null;
  const args: string[] = [];
  for (const k of kwargs as { name?: unknown; value?: unknown }[]) {
    if (!k || !isKwargName(k.name)) return null;
    const v = k.value;
    const value =
      isObject(v) && !isTupleValue(v)
        ? isRefTarget(v.call)
          ? wrapCall(v.call, callArgs(v.kwargs, depth + 1))
          : null
        : pyLiteral(v);
    if (value === null) return null;
    args.push(`${k.name}=${value}`);
  }
  return args.join(', ');
}

const wrapCall = (target: string, args: string | null) => (args === null ? null : `${refSource(target)}(${args})`);

/** A recipe whose every value passed its check. */
interface ReplayPlan {
  id: string;
  seed: number;
  /** A function of the block's module that builds it (`resnet50`), checked as a kwarg name; null: the class. */
  builder: string | null;
  /**
   * A part (origin `part`): where the block sits in the model `builder` makes, a checked PART_PATH_PATTERN path;
   * the inputs are then the model's, and the block is fed what the model's forward passes it. Null otherwise.
   */
  path: string | null;
  device: string;
  /** Python source per kwarg: a literal, or an expression resolving a checked dotted name. */
  kwargs: { name: string; source: string }[];
  /**
   * `list`: that many tensors as one list; `keys`: a dict of tensors under checked keys; `boxes`: boxes inside an
   * image of that side instead of noise; `value`: a checked literal instead of a tensor.
   */
  inputs: {
    shape: number[];
    dtype: TorchDtype;
    high: number;
    list: number | null;
    keys: string[] | null;
    boxes: number | null;
    value: InputLiteral | null;
  }[];
  outputs: { shape: number[]; dtype: TorchDtype; checksum: string }[];
}

const isInt = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

/** `torch.nn.BatchNorm2d` → its module and attribute; `.BasicBlock` → an attribute of the block's own module. */
function refSource(target: string): string {
  if (target.startsWith('.')) return `getattr(module, ${pyStr(target.slice(1))})`;
  const dot = target.lastIndexOf('.');
  return `getattr(importlib.import_module(${pyStr(target.slice(0, dot))}), ${pyStr(target.slice(dot + 1))})`;
}

/**
 * The recipe's values, each checked; null when the block did not pass (a script for a block that never built would
 * itself fail), has no recipe, or any value fails.
 */
export function replayPlan(spec: BlockSpec): ReplayPlan | null {
  const v = spec.validation;
  if (!v || typeof v !== 'object' || v.status !== 'passed' || !v.recipe || typeof v.recipe !== 'object') return null;
  const { seed, kwargs, refs = [], inputs, builder, calls = [], origin, path } = v.recipe;
  if (!isInt(seed, 0) || typeof spec.id !== 'string' || typeof v.device !== 'string' || !DEVICE.test(v.device))
    return null;
  if (builder !== undefined && !isKwargName(builder)) return null;
  // A part names its builder and its path, and only a part names a path.
  const part = origin === 'part';
  if (part !== (path !== undefined) || (part && (!isPartPath(path) || builder === undefined))) return null;
  if (!Array.isArray(kwargs) || !Array.isArray(refs) || !Array.isArray(inputs) || !Array.isArray(v.outputs))
    return null;
  if (kwargs.length > RUN_LIMITS.recipeItems || inputs.length > RUN_LIMITS.recipeItems) return null;
  if (!refs.every((r) => isKwargName(r) && kwargs.some((k) => k?.name === r))) return null;
  const plan: ReplayPlan = {
    id: spec.id,
    seed,
    builder: builder ?? null,
    path: part ? (path as string) : null,
    device: v.device,
    kwargs: [],
    inputs: [],
    outputs: [],
  };
  const names = new Set<string>();
  for (const k of kwargs) {
    if (!k || !isKwargName(k.name) || names.has(k.name)) return null;
    names.add(k.name);
    const source = refs.includes(k.name) ? (isRefTarget(k.value) ? refSource(k.value) : null) : pyLiteral(k.value);
    if (source === null) return null;
    plan.kwargs.push({ name: k.name, source });
  }
  // Instances: a checked dotted class called with checked kwargs, literals or instances in turn, e.g.
  // `getattr(module, 'TwoWayTransformer')(depth=2, embedding_dim=8)`; `.X` is a class the extracted module holds.
  if (!Array.isArray(calls) || calls.length > RUN_LIMITS.recipeItems) return null;
  for (const c of calls) {
    if (!c || !isKwargName(c.name) || names.has(c.name) || !isRefTarget(c.target)) return null;
    names.add(c.name);
    const source = wrapCall(c.target, callArgs(c.kwargs, 0));
    if (source === null) return null;
    plan.kwargs.push({ name: c.name, source });
  }
  for (const i of inputs) {
    if (!i || !isShape(i.shape) || !isTorchDtype(i.dtype)) return null;
    if (i.high !== undefined && !isInt(i.high, 1)) return null;
    if (i.list !== undefined && !(isInt(i.list, 1) && i.list <= RUN_LIMITS.recipeItems)) return null;
    if (i.value !== undefined && !isInputLiteral(i.value)) return null;
    if (i.keys !== undefined && !isInputKeys(i.keys)) return null;
    if (i.boxes !== undefined && !isBoxesInput(i.shape, i.boxes)) return null;
    plan.inputs.push({
      shape: i.shape,
      dtype: i.dtype,
      high: i.high ?? 2,
      list: i.list ?? null,
      keys: i.keys ?? null,
      boxes: i.boxes ?? null,
      value: i.value ?? null,
    });
  }
  for (const o of v.outputs) {
    if (!o || !isShape(o.shape) || !isTorchDtype(o.dtype) || !isChecksum(o.checksum)) return null;
    plan.outputs.push({ shape: o.shape, dtype: o.dtype, checksum: o.checksum });
  }
  return plan;
}

/**
 * A literal input as the runner passes it (replay.py `literal`): an int, a list of names, a list of int tuples, a
 * tuple of ints.
 * Lists stay lists (a forward may append to them). Only for a value isInputLiteral accepted.
 */
export function literalSource(v: InputLiteral): string {
  if (typeof v === 'number') return String(v);
  if (isTupleValue(v)) return pyLiteral(v.tuple)!;
  return `[${(v as (string | number[])[]).map((x) => (typeof x === 'string' ? pyStr(x) : pyLiteral(x)!)).join(', ')}]`;
}

/** The runner's boxes draw (replay.py `boxes_of`), op for op so the same generator gives the same boxes. */
const BOXES_FUNCTION = [
  'def boxes_of(shape, side, images, dtype):',
  '    k, half = shape[0], side / 2',
  '    u = torch.rand((k, 4), generator=g, dtype=dtype)',
  '    top_left = u[:, :2] * half',
  '    b = torch.cat([top_left, top_left + 1 + u[:, 2:] * (half - 1)], 1)',
  '    if shape[1] == 5:',
  '        b = torch.cat([(torch.arange(k) % images).to(dtype)[:, None], b], 1)',
  '    return b',
];

/**
 * How a part is fed (replay.py `Part`): the model runs on the recorded inputs, without gradients, until it calls
 * the block; a forward pre-hook takes the arguments of that first call and stops the model there.
 */
const CAPTURE = [
  'class Captured(BaseException):',
  '    pass',
  '',
  'captured = []',
  'def grab(module, args, kwargs):',
  '    captured.append((args, kwargs))',
  '    raise Captured()',
  '',
  'handle = block.register_forward_pre_hook(grab, with_kwargs=True)  # torch >= 2.0',
  'with torch.no_grad():',
  '    try:',
];

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
 * The recorded outputs, then the check: each output's shape, dtype and checksum (Σ|x| in float64, measure.py
 * `checksum`) against the record. Equal on the machine that validated; elsewhere within the tolerance the GPU check
 * uses (docs/validate.md), since a sum's rounding follows the order a BLAS adds in.
 */
function checkOutputs(outputs: ReplayPlan['outputs']): string[] {
  const tuple = (shape: number[]) => pyLiteral(shape)!;
  return [
    ...OUTPUT_TENSORS,
    'recorded = [  # (shape, dtype, checksum: sum of |x| in float64) of each output, as validation recorded them',
    ...outputs.map((o) => `    (${tuple(o.shape)}, ${pyStr(o.dtype)}, float(${pyStr(o.checksum)})),`),
    ']',
    'outs = tensors(out) or tensors(unwrapped(out))',
    "got = [(tuple(t.shape), str(t.dtype).replace('torch.', ''), t.detach().double().abs().sum().item() if t.numel() else 0.0) for t in outs]",
    "print('outputs:', got)",
    'assert len(got) == len(recorded), (got, recorded)',
    'for (shape, dtype, c), (want_shape, want_dtype, want) in zip(got, recorded):',
    '    same = c == want or math.isclose(c, want, rel_tol=1e-3, abs_tol=1e-5) or (math.isnan(c) and math.isnan(want))',
    '    assert shape == want_shape and dtype == want_dtype and same, (got, recorded)',
    "print('replayed: outputs match the recorded checksums')",
  ];
}

/** The script for a checked plan. Every interpolated value is a checked integer, an enum member or pyStr/pyLiteral. */
function renderPlan(p: ReplayPlan): string {
  const tuple = (shape: number[]) => pyLiteral(shape)!;
  const draws = p.inputs.map((inp, i) => {
    const draw =
      inp.boxes !== null
        ? `boxes_of(${tuple(inp.shape)}, ${inp.boxes}, ${inp.high}, torch.${inp.dtype})`
        : FLOATING_DTYPES.has(inp.dtype)
          ? `torch.randn(${tuple(inp.shape)}, generator=g, dtype=torch.${inp.dtype})`
          : `torch.randint(0, ${inp.high}, ${tuple(inp.shape)}, generator=g, dtype=torch.${inp.dtype})`;
    const one = `${draw}.to(device)`;
    if (inp.value !== null) return `x${i} = ${literalSource(inp.value)}`;
    if (inp.keys !== null) return `x${i} = {k: ${one} for k in ${pyLiteral(inp.keys)}}`;
    return `x${i} = ${inp.list === null ? one : `[${one} for _ in range(${inp.list})]`}`;
  });
  const boxes = p.inputs.some((inp) => inp.boxes !== null && inp.value === null);
  const args = p.inputs.map((_, i) => `x${i}`).join(', ');
  // A builder recipe calls the builder the extracted module holds, with its name checked as an identifier; a part
  // takes the block from the model at its checked path.
  const made =
    p.builder === null
      ? 'model = Block(**kwargs).to(device).eval()'
      : `model = getattr(module, ${pyStr(p.builder)})(**kwargs).to(device).eval()`;
  const run =
    p.path === null
      ? ['with torch.no_grad():', `    out = model(${args})`]
      : [
          ...CAPTURE,
          `        model(${args})`,
          '    except Captured:',
          '        pass',
          'handle.remove()',
          'args, kw = copy.deepcopy(captured[0])',
          'with torch.no_grad():',
          '    out = block(*args, **kw)',
        ];
  return [
    `import ${p.path === null ? '' : 'copy, '}importlib, json, math, sys`,
    'import torch',
    '',
    '# `nnblocks extract` wrote the block and blocks/manifest.json naming it.',
    `entry = next(b for b in json.load(open("blocks/manifest.json"))["blocks"] if b["id"] == ${pyStr(p.id)})`,
    'sys.path.insert(0, entry["importRoot"])',
    'module = importlib.import_module(entry["module"])',
    'Block = getattr(module, entry["className"])',
    '',
    `device = ${pyStr(p.device)}`,
    // Before the kwargs: an instance a recipe call builds is initialised from the seed too (replay.py `build`).
    `torch.manual_seed(${p.seed})`,
    p.kwargs.length === 0
      ? 'kwargs = {}'
      : ['kwargs = {', ...p.kwargs.map((k) => `    ${pyStr(k.name)}: ${k.source},`), '}'].join('\n'),
    made,
    ...(p.path === null
      ? []
      : [
          `block = model.get_submodule(${pyStr(p.path)})`,
          'assert type(block) is Block  # the part is the extracted class',
        ]),
    `g = torch.Generator().manual_seed(${p.seed})`,
    ...(boxes ? BOXES_FUNCTION : []),
    ...draws,
    ...run,
    ...(p.outputs.length > 0
      ? checkOutputs(p.outputs)
      : ['# validation recorded no outputs (it stopped before forward)']),
  ].join('\n');
}

/** Python that replays the validation check on an extracted block; undefined when there is no recipe to trust. */
export function replayScript(spec: BlockSpec): string | undefined {
  const plan = replayPlan(spec);
  return plan ? renderPlan(plan) : undefined;
}
