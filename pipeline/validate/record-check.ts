// The runner's record for a block, checked before anything else reads it. The record is written by a process that
// ran upstream code, so it is hostile data: every field typed and capped by a JSON Schema (a malformed record is a
// `protocol-error` of that block, never a crash and never cached), recipe names that could become code refused,
// and module-tree type names that aren't dotted identifiers dropped. See docs/validate.md ("Sandbox").
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import {
  CANONICAL_MACS,
  INPUT_BOXES_RULE,
  INPUT_FIELD_SCHEMAS,
  isBoxesInput,
  isDottedModule,
  isKwargName,
  isModuleName,
  isPartPath,
  isRefTarget,
  isTypeName,
  KWARG_NAME_PATTERN,
  DOTTED_MODULE_PATTERN,
  PART_PATH_PATTERN,
  RECIPE_ORIGINS,
  RUN_LIMITS,
  TORCH_DTYPES,
} from '../catalog/contract.ts';
import { FAILURE_CLASSES, RUN_DEVICES, STAGES, type ModuleTree, type RunnerRecord } from './types.ts';

// The recipe's limits are the catalog's (contract.ts RUN_LIMITS): a record the catalog would refuse must fail
// here, as this block's protocol-error, and not later as a schema error that stops the whole build.
const TEXT = (max: number) => ({ type: 'string', maxLength: max });
const COUNT = { type: 'integer', minimum: 0 };
const ITEMS = RUN_LIMITS.recipeItems;
const SHAPE = { type: 'array', maxItems: ITEMS, items: COUNT };
/** A forward input: the rules of its optional fields (keys, literal values, boxes) are the contract's. */
const INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['shape', 'dtype'],
  properties: { shape: SHAPE, dtype: { enum: TORCH_DTYPES }, ...INPUT_FIELD_SCHEMAS },
  ...INPUT_BOXES_RULE,
};

/**
 * A recipe kwarg (RecipeValue in the runner's form): a literal; a tuple, `{"tuple": [...]}`; or an instance, a class
 * called with kwargs of such values, `{"call": ".TwoWayTransformer", "kwargs": {...}}` (a config object, a config
 * override's `{"class": ...}`); nested at most `depth` deep.
 */
function recipeValue(depth: number): object {
  const scalar = [{ type: ['number', 'boolean', 'null'] }, TEXT(RUN_LIMITS.recipeStringChars)];
  if (depth === 0) return { anyOf: scalar };
  const inner = recipeValue(depth - 1);
  return {
    anyOf: [
      ...scalar,
      { type: 'array', maxItems: ITEMS, items: inner },
      {
        type: 'object',
        additionalProperties: false,
        required: ['tuple'],
        properties: { tuple: { type: 'array', maxItems: ITEMS, items: inner } },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['call', 'kwargs'],
        properties: {
          call: { type: 'string', maxLength: RUN_LIMITS.typeNameChars },
          kwargs: {
            type: 'object',
            maxProperties: ITEMS,
            propertyNames: { pattern: KWARG_NAME_PATTERN },
            additionalProperties: inner,
          },
        },
      },
    ],
  };
}

/** What is wrong with a recipe value's calls (a target that is no dotted name, a reserved kwarg), or null. */
function badCall(v: unknown): string | null {
  if (Array.isArray(v)) return v.map(badCall).find((x) => x !== null) ?? null;
  if (typeof v !== 'object' || v === null) return null;
  if ('tuple' in v) return badCall((v as { tuple: unknown[] }).tuple);
  const call = v as { call: unknown; kwargs: Record<string, unknown> };
  if (!isRefTarget(call.call)) return 'is not a dotted name';
  for (const [name, inner] of Object.entries(call.kwargs)) {
    if (!isKwargName(name)) return `kwarg ${name} is a reserved word`;
    const bad = badCall(inner);
    if (bad) return bad;
  }
  return null;
}

const isCall = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && 'call' in v;

/** A recipe: how the block was (or was first tried to be) built and fed. */
const RECIPE = {
  type: 'object',
  additionalProperties: false,
  required: ['seed', 'origin', 'kwargs', 'inputs'],
  properties: {
    seed: { type: 'integer' },
    builder: { type: 'string', pattern: KWARG_NAME_PATTERN },
    // A part (origin `part`): the builder's upstream module and where the block sits in its model.
    builderModule: { type: 'string', maxLength: RUN_LIMITS.typeNameChars, pattern: DOTTED_MODULE_PATTERN },
    path: { type: 'string', maxLength: RUN_LIMITS.typeNameChars, pattern: PART_PATH_PATTERN },
    origin: { enum: RECIPE_ORIGINS },
    kwargs: {
      type: 'object',
      maxProperties: ITEMS,
      propertyNames: { pattern: KWARG_NAME_PATTERN },
      additionalProperties: recipeValue(RUN_LIMITS.literalDepth),
    },
    refs: { type: 'array', maxItems: ITEMS, items: { type: 'string', pattern: KWARG_NAME_PATTERN } },
    calls: { type: 'array', maxItems: ITEMS, items: { type: 'string', pattern: KWARG_NAME_PATTERN } },
    inputs: { type: 'array', maxItems: ITEMS, items: INPUT },
  },
};

const SCHEMA = {
  $id: 'runner-record',
  type: 'object',
  additionalProperties: false,
  required: [
    'status',
    'failureClass',
    'failureDetail',
    'stages',
    'recipe',
    'outputs',
    'params',
    'buffers',
    'gradients',
    'peakMemoryBytes',
    'moduleTree',
    'fidelity',
    'stdoutTail',
    'stderrTail',
    'device',
    'gpuName',
    'torchVersion',
  ],
  properties: {
    status: { enum: ['passed', 'failed'] },
    failureClass: { anyOf: [{ type: 'null' }, { enum: FAILURE_CLASSES }] },
    failureDetail: { anyOf: [{ type: 'null' }, TEXT(2000)] },
    stages: {
      type: 'array',
      maxItems: STAGES.length,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['stage', 'status', 'ms'],
        properties: {
          stage: { enum: STAGES },
          status: { enum: ['passed', 'failed'] },
          ms: { type: 'number', minimum: 0 },
          error: TEXT(2000),
        },
      },
    },
    recipe: { anyOf: [{ type: 'null' }, RECIPE] },
    /** The first candidate tried (and its first inputs) when nothing passed: the catalog's `reason.recipeTried`. */
    attempt: { anyOf: [{ type: 'null' }, RECIPE] },
    /** Required constructor parameters inference had no value for (a `needs-arguments` failure). */
    uninferred: { type: 'array', maxItems: 16, items: { type: 'string', pattern: KWARG_NAME_PATTERN } },
    outputs: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['shape', 'dtype', 'checksum'],
        properties: {
          shape: SHAPE,
          dtype: { enum: TORCH_DTYPES },
          checksum: { anyOf: [{ type: 'number' }, { enum: ['nan', 'inf', '-inf'] }] },
        },
      },
    },
    params: { anyOf: [{ type: 'null' }, COUNT] },
    buffers: { anyOf: [{ type: 'null' }, COUNT] },
    gradients: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['withGrad', 'without'],
          properties: {
            withGrad: COUNT,
            without: COUNT,
            mode: { enum: ['train', 'eval'] },
            trainError: TEXT(RUN_LIMITS.detailChars),
          },
        },
      ],
    },
    peakMemoryBytes: { anyOf: [{ type: 'null' }, COUNT] },
    moduleTree: { anyOf: [{ type: 'null' }, { $ref: '#/definitions/tree' }] },
    canonical: {
      type: 'array',
      maxItems: 8,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['builder', 'params'],
        properties: {
          builder: { type: 'string', pattern: KWARG_NAME_PATTERN },
          params: COUNT,
          input: SHAPE,
          outputs: { type: 'array', maxItems: 8, items: SHAPE },
          // An integer in range: a forged 1e300 or -1 makes this block's record a protocol-error.
          macs: CANONICAL_MACS,
        },
        // MACs are of the forward at `input`: a figure without the input it was counted at says nothing.
        dependencies: { macs: ['input'] },
      },
    },
    fidelity: {
      type: 'object',
      additionalProperties: false,
      required: ['status'],
      properties: { status: { enum: ['identical', 'differs', 'n/a'] }, reason: TEXT(2000) },
    },
    stdoutTail: TEXT(4200),
    stderrTail: TEXT(4200),
    device: { enum: [...RUN_DEVICES] },
    gpuName: { anyOf: [{ type: 'null' }, TEXT(200)] },
    torchVersion: { anyOf: [{ type: 'null' }, TEXT(64)] },
  },
  definitions: {
    tree: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'params', 'children'],
      properties: {
        type: TEXT(RUN_LIMITS.typeNameChars),
        params: { type: 'object', maxProperties: 4096, additionalProperties: SHAPE },
        children: { type: 'object', additionalProperties: { $ref: '#/definitions/tree' } },
        truncated: { type: 'boolean' },
      },
    },
  },
};

/** The runner's node budget for a module tree (runner: measure.module_tree), plus the root. */
const MAX_TREE_NODES = 2001;

// strictRequired off: the boxes rule's `if` names a property declared beside it, which strict mode flags. Compiled
// on first use (~0.2 s): a command that only lists blocks, or shows its help, never checks a record.
let compiled: ValidateFunction | undefined;
const validator = () =>
  (compiled ??= new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true }).compile(
    SCHEMA,
  ));

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'is invalid';
}

/** Nodes of a tree, counted up to `limit` (a deeper tree stops the walk early). */
function nodes(t: ModuleTree, limit: number): number {
  let n = 1;
  for (const c of Object.values(t.children)) {
    n += nodes(c, limit - n);
    if (n > limit) break;
  }
  return n;
}

/** Drops children whose type name isn't a dotted identifier (host facts smuggled into a class name); marks the cut. */
function dropBadTypeNames(t: ModuleTree): ModuleTree {
  const children: Record<string, ModuleTree> = {};
  let cut = false;
  for (const [name, c] of Object.entries(t.children)) {
    if (isTypeName(c.type)) children[name] = dropBadTypeNames(c);
    else cut = true;
  }
  return { ...t, children, ...(cut || t.truncated ? { truncated: true } : {}) };
}

/** `cv2` or `cv2, scipy`: at most 16 top-level module names (ASCII identifiers), as classify.py writes them. */
function isModuleList(detail: string | null): boolean {
  const names = (detail ?? '').split(', ');
  return names.length <= 16 && names.every((n) => isModuleName(n));
}

/**
 * `{ ok: true, record }` with the record as the catalog may use it, or `{ ok: false, why }` when it does not
 * follow the protocol. `value` is untrusted JSON from the worker.
 */
export function checkRunnerRecord(value: unknown): { ok: true; record: RunnerRecord } | { ok: false; why: string } {
  const validate = validator();
  if (!validate(value)) return { ok: false, why: `malformed record: ${describe(validate.errors)}` };
  const rec = value as RunnerRecord;
  if (rec.moduleTree) {
    if (nodes(rec.moduleTree, MAX_TREE_NODES) > MAX_TREE_NODES) return { ok: false, why: 'module tree too large' };
    rec.moduleTree = isTypeName(rec.moduleTree.type) ? dropBadTypeNames(rec.moduleTree) : null;
  }
  for (const r of [rec.recipe, rec.attempt]) {
    if (!r) continue;
    if (r.builder !== undefined && !isKwargName(r.builder))
      return { ok: false, why: 'recipe builder is a reserved word' };
    // A part names its builder, the builder's module and the path, and only a part does: a forged path on another
    // recipe, or a part without one, would replay something other than what ran.
    const part = r.origin === 'part';
    if (part !== (r.path !== undefined) || part !== (r.builderModule !== undefined) || (part && !r.builder))
      return { ok: false, why: 'a part recipe names its builder, its module and its path; no other recipe does' };
    if (part && !isPartPath(r.path)) return { ok: false, why: 'recipe part path is not a dotted attribute path' };
    if (part && !isDottedModule(r.builderModule))
      return { ok: false, why: 'recipe builder module is not a dotted module name' };
    if (part && (r.refs?.length || r.calls?.length))
      return { ok: false, why: "a part recipe's kwargs are its builder's literals: no refs or calls" };
    for (const name of Object.keys(r.kwargs))
      if (!isKwargName(name)) return { ok: false, why: `recipe kwarg ${name} is a reserved word` };
    for (const name of r.refs ?? [])
      if (!isRefTarget(r.kwargs[name])) return { ok: false, why: `recipe reference ${name} is not a dotted name` };
    const calls = new Set(r.calls ?? []);
    for (const [name, value] of Object.entries(r.kwargs)) {
      if (isCall(value) !== calls.has(name))
        return { ok: false, why: `recipe kwarg ${name}: a call where none is named` };
      const bad = badCall(value);
      if (bad) return { ok: false, why: `recipe ${calls.has(name) ? 'call' : 'kwarg'} ${name}: ${bad}` };
    }
    for (const name of calls) if (!(name in r.kwargs)) return { ok: false, why: `recipe call ${name} has no kwarg` };
    for (const i of r.inputs)
      if (i.boxes !== undefined && !isBoxesInput(i.shape, i.boxes))
        return { ok: false, why: 'recipe boxes input is not [K, 4] or [K, 5]' };
  }
  for (const name of rec.uninferred ?? [])
    if (!isKwargName(name)) return { ok: false, why: `uninferred ${name} is a reserved word` };
  for (const c of rec.canonical ?? [])
    if (!isKwargName(c.builder)) return { ok: false, why: 'canonical builder is a reserved word' };

  if (rec.status === 'passed' && (rec.failureClass !== null || rec.recipe === null))
    return { ok: false, why: 'a passed record with a failure class or without a recipe' };
  if (rec.status === 'failed' && rec.failureClass === null)
    return { ok: false, why: 'a failed record without a class' };
  // The modules of a `missing-dependency` become distribution names in the catalog ("blocked: needs X"): the runner
  // writes identifiers, comma-separated, and nothing else is accepted.
  if (rec.failureClass === 'missing-dependency' && !isModuleList(rec.failureDetail))
    return { ok: false, why: 'a missing-dependency record whose detail is not a list of module names' };
  return { ok: true, record: rec };
}
