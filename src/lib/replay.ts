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
import {
  isBoxesInput,
  isInputKeys,
  isInputLevels,
  isInputLiteral,
  type InputLiteral,
} from '../../pipeline/contract/inputs.ts';
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
import { isObject, isTupleValue, pyLiteral, pyShape, pyStr } from './py-literal.ts';
import { checkOutputs, checkSensitivity, type RecordedOutput } from './replay-check.ts';
import { FILL_FUNCTION } from './replay-fill.ts';

const DEVICE = new RegExp(DEVICE_PATTERN);

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
   * image of that side instead of noise; `value`: a checked literal instead of a tensor; `levels`: one tensor of
   * each checked shape as one list (a feature pyramid).
   */
  inputs: {
    shape: number[];
    dtype: TorchDtype;
    high: number;
    list: number | null;
    keys: string[] | null;
    boxes: number | null;
    value: InputLiteral | null;
    levels: number[][] | null;
  }[];
  outputs: RecordedOutput[];
  /** The record's `sensitivity` (outputs all zeros), checked as a checksum; null when absent or a part's. */
  sensitivity: string | null;
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
    sensitivity: null,
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
    if (i.levels !== undefined && !isInputLevels(i.levels, i.shape)) return null;
    plan.inputs.push({
      shape: i.shape,
      dtype: i.dtype,
      high: i.high ?? 2,
      list: i.list ?? null,
      keys: i.keys ?? null,
      boxes: i.boxes ?? null,
      value: i.value ?? null,
      levels: i.levels ?? null,
    });
  }
  for (const o of v.outputs) {
    if (!o || !isShape(o.shape) || !isTorchDtype(o.dtype) || !isChecksum(o.checksum)) return null;
    if (o.projection !== undefined && !isChecksum(o.projection)) return null;
    plan.outputs.push({ shape: o.shape, dtype: o.dtype, checksum: o.checksum, projection: o.projection ?? null });
  }
  if (v.sensitivity !== undefined && !isChecksum(v.sensitivity)) return null;
  // Validation measures it for no part (its capture would have to run again); a part's is not checked.
  if (!part && plan.outputs.length > 0) plan.sensitivity = v.sensitivity ?? null;
  return plan;
}

/**
 * A literal input as the runner passes it (replay.py `literal`): an int, a list of names, a list of int tuples, a
 * tuple of ints.
 * Lists stay lists (a forward may append to them). Only for a value isInputLiteral accepted.
 */
export function literalSource(v: InputLiteral): string {
  if (typeof v === 'number') return String(v);
  if (isTupleValue(v)) return pyShape(v.tuple);
  return `[${(v as (string | number[])[]).map((x) => (typeof x === 'string' ? pyStr(x) : pyShape(x))).join(', ')}]`;
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

/** The script for a checked plan. Every interpolated value is a checked integer, an enum member or pyStr/pyLiteral. */
function renderPlan(p: ReplayPlan): string {
  const tuple = pyShape;
  const draws = p.inputs.map((inp, i) => {
    const draw = (shape: string) =>
      inp.boxes !== null
        ? `boxes_of(${shape}, ${inp.boxes}, ${inp.high}, torch.${inp.dtype})`
        : FLOATING_DTYPES.has(inp.dtype)
          ? `torch.randn(${shape}, generator=g, dtype=torch.${inp.dtype})`
          : `torch.randint(0, ${inp.high}, ${shape}, generator=g, dtype=torch.${inp.dtype})`;
    const one = `${draw(tuple(inp.shape))}.to(device)`;
    if (inp.value !== null) return `x${i} = ${literalSource(inp.value)}`;
    if (inp.keys !== null) return `x${i} = {k: ${one} for k in ${pyLiteral(inp.keys)}}`;
    if (inp.levels !== null)
      return `x${i} = [${draw('shape')}.to(device) for shape in [${inp.levels.map(tuple).join(', ')}]]`;
    return `x${i} = ${inp.list === null ? one : `[${one} for _ in range(${inp.list})]`}`;
  });
  const boxes = p.inputs.some((inp) => inp.boxes !== null && inp.value === null);
  const args = p.inputs.map((_, i) => `x${i}`).join(', ');
  // A builder recipe calls the builder the extracted module holds, with its name checked as an identifier; a part
  // takes the block from the model at its checked path.
  // `model.eval()` apart: a `train` override that returns nothing (mmpretrain's ResNet) makes a chained eval() None.
  const made =
    p.builder === null ? '    model = Block(**kwargs)' : `    model = getattr(module, ${pyStr(p.builder)})(**kwargs)`;
  const build = [
    // Before the kwargs: an instance a recipe call builds is initialised from the seed too (replay.py `build`), and
    // both are built under the fill (replay-fill.ts), as validation built them.
    `torch.manual_seed(${p.seed})`,
    `with fill(${p.seed}):  # large weights from nnblocks' fill, as validation built them`,
    p.kwargs.length === 0
      ? '    kwargs = {}'
      : ['    kwargs = {', ...p.kwargs.map((k) => `        ${pyStr(k.name)}: ${k.source},`), '    }'].join('\n'),
    made,
    'model = model.to(device)',
    'model.eval()',
  ];
  const inputs = [`g = torch.Generator().manual_seed(${p.seed})`, ...draws];
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
    `import contextlib, ${p.path === null ? '' : 'copy, '}importlib, json, math, sys`,
    'import torch',
    '',
    ...FILL_FUNCTION,
    '# `nnblocks extract` wrote the block and blocks/manifest.json naming it.',
    `entry = next(b for b in json.load(open("blocks/manifest.json"))["blocks"] if b["id"] == ${pyStr(p.id)})`,
    'sys.path.insert(0, entry["importRoot"])',
    'module = importlib.import_module(entry["module"])',
    'Block = getattr(module, entry["className"])',
    '',
    `device = ${pyStr(p.device)}`,
    ...build,
    ...(p.path === null
      ? []
      : [
          `block = model.get_submodule(${pyStr(p.path)})`,
          'assert type(block) is Block  # the part is the extracted class',
        ]),
    inputs[0],
    ...(boxes ? BOXES_FUNCTION : []),
    ...inputs.slice(1),
    ...run,
    ...(p.outputs.length > 0
      ? checkOutputs(p.outputs)
      : ['# validation recorded no outputs (it stopped before forward)']),
    ...(p.sensitivity === null ? [] : checkSensitivity(p.sensitivity, build, inputs, args)),
  ].join('\n');
}

/** Python that replays the validation check on an extracted block; undefined when there is no recipe to trust. */
export function replayScript(spec: BlockSpec): string | undefined {
  const plan = replayPlan(spec);
  return plan ? renderPlan(plan) : undefined;
}
