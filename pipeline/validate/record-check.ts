// The runner's record for a block, checked before anything else reads it. The record is written by a process that
// ran upstream code, so it is hostile data: every field typed and capped by a JSON Schema (a malformed record is a
// `protocol-error` of that block, never a crash and never cached), recipe names that could become code refused,
// and module-tree type names that aren't dotted identifiers dropped. See docs/validate.md ("Sandbox").
import { Ajv, type ErrorObject } from 'ajv';
import { FAILURE_CLASSES, STAGES, type ModuleTree, type RunnerRecord } from './types.ts';

/**
 * torch dtype names as `str(dtype)` prints them without `torch.`, and the aliases config overrides may use
 * (`long`, `half`...): what recipes and outputs may name.
 */
export const TORCH_DTYPES = [
  'float',
  'double',
  'half',
  'long',
  'int',
  'short',
  'uint16',
  'uint32',
  'uint64',
  'float16',
  'float32',
  'float64',
  'bfloat16',
  'complex32',
  'complex64',
  'complex128',
  'uint8',
  'int8',
  'int16',
  'int32',
  'int64',
  'bool',
  'qint8',
  'quint8',
  'qint32',
  'quint4x2',
] as const;

/** A Python identifier in ASCII: kwarg names, which the replay snippet writes as `name=value`. */
const IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]{0,99}$';
/** A dotted name of identifiers, e.g. `torch.nn.BatchNorm2d` or `.BasicBlock` (a name in the block's own module). */
const DOTTED = '^\\.?[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$';
/**
 * A class's `__module__.__qualname__`, Unicode identifiers allowed (PEP 3131), and the `<locals>` segment Python
 * puts in the qualname of a class defined in a function.
 */
const TYPE_NAME = /^[\p{ID_Start}_][\p{ID_Continue}]*(\.([\p{ID_Start}_][\p{ID_Continue}]*|<locals>))*$/u;

const TEXT = (max: number) => ({ type: 'string', maxLength: max });
const COUNT = { type: 'integer', minimum: 0 };
const SHAPE = { type: 'array', maxItems: 16, items: COUNT };
const LITERAL = {
  anyOf: [
    { type: ['number', 'boolean', 'null'] },
    TEXT(1000),
    { type: 'array', maxItems: 64, items: { anyOf: [{ type: ['number', 'boolean', 'null'] }, TEXT(1000), SHAPE] } },
  ],
};
const INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['shape', 'dtype'],
  properties: { shape: SHAPE, dtype: { enum: TORCH_DTYPES }, high: COUNT, list: COUNT },
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
    recipe: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['seed', 'kwargs', 'inputs'],
          properties: {
            seed: { type: 'integer' },
            kwargs: {
              type: 'object',
              maxProperties: 64,
              propertyNames: { pattern: IDENTIFIER },
              additionalProperties: LITERAL,
            },
            refs: { type: 'array', maxItems: 64, items: { type: 'string', pattern: IDENTIFIER } },
            inputs: { type: 'array', maxItems: 16, items: INPUT },
          },
        },
      ],
    },
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
          properties: { withGrad: COUNT, without: COUNT },
        },
      ],
    },
    peakMemoryBytes: { anyOf: [{ type: 'null' }, COUNT] },
    moduleTree: { anyOf: [{ type: 'null' }, { $ref: '#/definitions/tree' }] },
    fidelity: {
      type: 'object',
      additionalProperties: false,
      required: ['status'],
      properties: { status: { enum: ['identical', 'differs', 'n/a'] }, reason: TEXT(2000) },
    },
    stdoutTail: TEXT(4200),
    stderrTail: TEXT(4200),
    device: { enum: ['cpu', 'cuda'] },
    gpuName: { anyOf: [{ type: 'null' }, TEXT(200)] },
    torchVersion: { anyOf: [{ type: 'null' }, TEXT(64)] },
  },
  definitions: {
    tree: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'params', 'children'],
      properties: {
        type: TEXT(200),
        params: { type: 'object', maxProperties: 4096, additionalProperties: SHAPE },
        children: { type: 'object', additionalProperties: { $ref: '#/definitions/tree' } },
        truncated: { type: 'boolean' },
      },
    },
  },
};

/** The runner's node budget for a module tree (runner: measure.module_tree), plus the root. */
const MAX_TREE_NODES = 2001;

const validate = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true }).compile(SCHEMA);

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
    if (TYPE_NAME.test(c.type)) children[name] = dropBadTypeNames(c);
    else cut = true;
  }
  return { ...t, children, ...(cut || t.truncated ? { truncated: true } : {}) };
}

/**
 * `{ ok: true, record }` with the record as the catalog may use it, or `{ ok: false, why }` when it does not
 * follow the protocol. `value` is untrusted JSON from the worker.
 */
export function checkRunnerRecord(value: unknown): { ok: true; record: RunnerRecord } | { ok: false; why: string } {
  if (!validate(value)) return { ok: false, why: `malformed record: ${describe(validate.errors)}` };
  const rec = value as RunnerRecord;
  if (rec.moduleTree) {
    if (nodes(rec.moduleTree, MAX_TREE_NODES) > MAX_TREE_NODES) return { ok: false, why: 'module tree too large' };
    rec.moduleTree = TYPE_NAME.test(rec.moduleTree.type) ? dropBadTypeNames(rec.moduleTree) : null;
  }
  for (const name of rec.recipe?.refs ?? []) {
    const target = rec.recipe?.kwargs[name];
    if (typeof target !== 'string' || !new RegExp(DOTTED).test(target))
      return { ok: false, why: `recipe reference ${name} is not a dotted name` };
  }
  if (rec.status === 'passed' && (rec.failureClass !== null || rec.recipe === null))
    return { ok: false, why: 'a passed record with a failure class or without a recipe' };
  if (rec.status === 'failed' && rec.failureClass === null)
    return { ok: false, why: 'a failed record without a class' };
  return { ok: true, record: rec };
}
