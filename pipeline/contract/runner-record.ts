// The Python runner's record for one block (schemas/runner/record.schema.json): what
// pipeline/validate/python/runner.py writes on its result pipe. It is written by a process that ran upstream code,
// so it is hostile data: every field typed and capped here, and checked (pipeline/validate/record-check.ts) before
// anything reads it. Its caps are the catalog's (RUN_LIMITS, the input rules): a record the catalog would refuse
// fails here, as that block's protocol-error, and not later as a schema error that stops the whole build.
import { inputSpec } from './inputs.ts';
import { CONFIG_PATH_PATTERN, KWARG_NAME_PATTERN, DOTTED_MODULE_PATTERN, PART_PATH_PATTERN } from './rules.ts';
import { Enum, schemaFile, Type, Typed, type Static, type TSchema } from './schema.ts';
import { CANONICAL_MACS } from './validation.ts';
import { RECIPE_ORIGINS, RUN_LIMITS, TORCH_DTYPES } from './vocabulary.ts';

export const FAILURE_CLASSES = [
  'syntax',
  'compile',
  'missing-module',
  'missing-dependency',
  'unresolved-name',
  'native-extension',
  'needs-arguments',
  'forward-error',
  'backward-error',
  'timeout',
  'memory',
  'crashed',
  'sandbox-violation',
  'protocol-error',
  // The validation environment failed the block (no account entry, a broken runtime): never the block's own
  // failure, and never cached as its result.
  'environment',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export const STAGES = ['parse', 'compile', 'import', 'build', 'forward', 'backward'] as const;

/**
 * The devices a run resolves a request (`Device`) to, as runner.py reports them in its hello and in every record:
 * `auto` became one of these before any block ran. The one list the record check and the hello's reading use.
 */
export const RUN_DEVICES = ['cpu', 'cuda'] as const;

const TEXT = (max: number) => Type.String({ maxLength: max });
const COUNT = () => Type.Integer({ minimum: 0 });
const ITEMS = RUN_LIMITS.recipeItems;
const SHAPE = () => Type.Array(COUNT(), { maxItems: ITEMS });
const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([Type.Null(), schema]);

/**
 * A recipe kwarg (RecipeValue in the runner's form), one definition per level of nesting (`value4` down to
 * `value0`, scalars only): a literal; a tuple, `{"tuple": [...]}`; or an instance, a class called with kwargs of such
 * values, `{"call": ".TwoWayTransformer", "kwargs": {...}}` (a config object, a config override's `{"class": ...}`).
 * Names of calls and kwargs are checked again in code (record-check.ts: reserved words, dotted names), which a
 * pattern can't say.
 */
function recipeValues(): Record<string, TSchema> {
  const scalar = [{ type: ['number', 'boolean', 'null'] }, TEXT(RUN_LIMITS.recipeStringChars)];
  const out: Record<string, TSchema> = { value0: Typed<unknown>({ anyOf: scalar }) };
  for (let depth = 1; depth <= RUN_LIMITS.literalDepth; depth++) {
    const inner = Typed<unknown>({ $ref: `#/definitions/value${depth - 1}` });
    out[`value${depth}`] = Typed<unknown>({
      anyOf: [
        ...scalar,
        Type.Array(inner, { maxItems: ITEMS }),
        Type.Object({ tuple: Type.Array(inner, { maxItems: ITEMS }) }, { additionalProperties: false }),
        Type.Object({ call: TEXT(RUN_LIMITS.typeNameChars), kwargs: kwargMap(inner) }, { additionalProperties: false }),
      ],
    });
  }
  return out;
}

/** Kwargs as the runner writes them: an object of at most RUN_LIMITS.recipeItems identifiers. */
const kwargMap = (value: TSchema) =>
  Typed<Record<string, unknown>>({
    type: 'object',
    maxProperties: ITEMS,
    propertyNames: { pattern: KWARG_NAME_PATTERN },
    additionalProperties: value,
  });

const identifiers = () => Type.Array(Type.String({ pattern: KWARG_NAME_PATTERN }), { maxItems: ITEMS });

/** Everything needed to replay the recorded run; see docs/validate.md ("Replay protocol"). */
const recipe = Type.Object(
  {
    seed: Type.Integer(),
    /**
     * Set when the block was built by calling this function of its module with `kwargs`, not the class; for a part
     * (origin `part`), the builder of the model that holds it.
     */
    builder: Type.Optional(Type.String({ pattern: KWARG_NAME_PATTERN })),
    /** A part: the upstream module of `builder` (dotted identifiers). */
    builderModule: Type.Optional(Type.String({ maxLength: RUN_LIMITS.typeNameChars, pattern: DOTTED_MODULE_PATTERN })),
    /**
     * A part: where the block sits in the model `builder` makes (`rpn.anchor_generator`, `blocks.0`); `inputs` are
     * then the model's, and the block is fed what the model's forward passes it.
     */
    path: Type.Optional(Type.String({ maxLength: RUN_LIMITS.typeNameChars, pattern: PART_PATH_PATTERN })),
    /**
     * Where a recipe came from: a config override, a builder function, a construction site, inference, or the model
     * of a builder that holds the block as a part.
     */
    origin: Enum(RECIPE_ORIGINS),
    kwargs: kwargMap(Typed<unknown>({ $ref: `#/definitions/value${RUN_LIMITS.literalDepth}` })),
    /**
     * Kwargs whose value is a dotted name, resolved with importlib before building: `torch.nn.BatchNorm2d`, or
     * `.BasicBlock` for an attribute of the block's own module. Absent when there are none.
     */
    refs: Type.Optional(identifiers()),
    /**
     * Kwargs whose value is a config object to build, `{ call: '.MBConvConfig', kwargs: {...} }`: a class of the
     * block's module called with literal kwargs before the block is built. Absent when there are none.
     */
    calls: Type.Optional(identifiers()),
    inputs: Type.Array(inputSpec(SHAPE(), Enum(TORCH_DTYPES)), { maxItems: ITEMS }),
  },
  { additionalProperties: false },
);

export interface ModuleTree {
  /** Qualified class name; torch.nn layers as `torch.nn.Conv2d`. */
  type: string;
  /** Direct parameters only, name → shape. */
  params: Record<string, number[]>;
  children: Record<string, ModuleTree>;
  /** Set when the node budget (2000) ran out below this node. */
  truncated?: boolean;
}

const tree = Typed<ModuleTree>(
  Type.Object(
    {
      type: TEXT(RUN_LIMITS.typeNameChars),
      params: Typed<Record<string, number[]>>({ type: 'object', maxProperties: 4096, additionalProperties: SHAPE() }),
      children: Typed<Record<string, ModuleTree>>({
        type: 'object',
        additionalProperties: { $ref: '#/definitions/tree' },
      }),
      truncated: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
);

/**
 * A builder's configuration as upstream ships it: its parameter count, and its output shapes and MACs at a default
 * input.
 */
const canonicalFigure = Type.Object(
  {
    builder: Type.String({ pattern: KWARG_NAME_PATTERN }),
    /** A configuration read from this config file (`builder` is its name as an identifier). */
    config: Type.Optional(Type.String({ pattern: CONFIG_PATH_PATTERN })),
    params: COUNT(),
    /** The input the output shapes were computed for (`[1, 3, 224, 224]`), on torch's meta device (no arithmetic). */
    input: Type.Optional(SHAPE()),
    outputs: Type.Optional(Type.Array(SHAPE(), { maxItems: 8 })),
    /** An integer in range (CANONICAL_MACS): a forged 1e300 or -1 makes this block's record a protocol-error. */
    macs: Type.Optional(Type.Integer(CANONICAL_MACS)),
  },
  // MACs are of the forward at `input`: a figure without the input it was counted at says nothing.
  { additionalProperties: false, dependencies: { macs: ['input'] } },
);

const stage = Type.Object(
  {
    stage: Enum(STAGES),
    status: Enum(['passed', 'failed']),
    /** Wall time; for build and forward, summed over the candidates tried. */
    ms: Type.Number({ minimum: 0 }),
    /** Trimmed error text (the first candidate's, when several were tried). */
    error: Type.Optional(TEXT(2000)),
  },
  { additionalProperties: false },
);

const output = Type.Object(
  {
    shape: SHAPE(),
    dtype: Enum(TORCH_DTYPES),
    /** Σ|x| in float64; a string ('nan', 'inf') when not finite. */
    checksum: Type.Union([Type.Number(), Enum(['nan', 'inf', '-inf'])]),
    /** Σ x·(2r − 1) in float64, r a fixed-seed `torch.rand` of the output's shape (measure.py `projection`). */
    projection: Type.Union([Type.Number(), Enum(['nan', 'inf', '-inf'])]),
  },
  { additionalProperties: false },
);

const fidelity = Type.Object(
  { status: Enum(['identical', 'differs', 'n/a']), reason: Type.Optional(TEXT(2000)) },
  { additionalProperties: false },
);

const record = Type.Object(
  {
    status: Enum(['passed', 'failed']),
    failureClass: orNull(Enum(FAILURE_CLASSES)),
    /** The missing module, the unresolved name, the signal, the violation or why it was skipped. */
    failureDetail: orNull(TEXT(2000)),
    stages: Type.Array(stage, { maxItems: STAGES.length }),
    recipe: orNull(Typed<Recipe>({ $ref: '#/definitions/recipe' })),
    /** When nothing passed: the first candidate tried (and its first inputs): the catalog's `reason.recipeTried`. */
    attempt: Type.Optional(orNull(Typed<Recipe>({ $ref: '#/definitions/recipe' }))),
    /** Required constructor parameters inference had no value for (a `needs-arguments` failure). */
    uninferred: Type.Optional(Type.Array(Type.String({ pattern: KWARG_NAME_PATTERN }), { maxItems: 16 })),
    outputs: Type.Array(output, { maxItems: 64 }),
    /** Number of parameter elements. */
    params: orNull(COUNT()),
    /** Number of buffer elements. */
    buffers: orNull(COUNT()),
    /**
     * Parameter tensors that got a finite gradient, and those that got none; `mode` says whether the backward ran
     * in training mode, or in eval mode because the training-mode forward raised `trainError`.
     */
    gradients: orNull(
      Type.Object(
        {
          withGrad: COUNT(),
          without: COUNT(),
          mode: Type.Optional(Enum(['train', 'eval'])),
          trainError: Type.Optional(TEXT(RUN_LIMITS.detailChars)),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * Only for a block whose outputs are all zeros, one of them floating and not empty (not a part): Σ|∂P/∂θ| +
     * Σ|∂P/∂x| in float64, P the sum of the outputs' projections (replay.py `sensitivity`).
     */
    sensitivity: Type.Optional(Type.Union([Type.Number(), Enum(['nan', 'inf', '-inf'])])),
    /** CPU: peak RSS the block added over the worker's; CUDA: torch.cuda.max_memory_allocated(). */
    peakMemoryBytes: orNull(COUNT()),
    moduleTree: orNull(Typed<ModuleTree>({ $ref: '#/definitions/tree' })),
    /** Parameter counts at the configurations of the source's zero-argument builders (passed blocks only). */
    canonical: Type.Optional(Type.Array(canonicalFigure, { maxItems: 8 })),
    fidelity,
    stdoutTail: TEXT(4200),
    stderrTail: TEXT(4200),
    device: Enum(RUN_DEVICES),
    gpuName: orNull(TEXT(200)),
    torchVersion: orNull(TEXT(64)),
  },
  { additionalProperties: false },
);

/** schemas/runner/record.schema.json. */
export const RUNNER_RECORD_SCHEMA = schemaFile(
  'runner/record.schema.json',
  {
    title: "nnblocks runner: one block's record (pipeline/validate/python/runner.py)",
    description:
      'What the runner reports for a block on its result pipe, as the TypeScript side accepts it. See pipeline/contract/runner-record.ts.',
  },
  record,
  { tree, recipe, ...recipeValues() },
);

/** What the runner reports for a block: the record before TypeScript adds its own fields (validate/types.ts). */
export type RunnerRecord = Static<typeof record>;
export type Recipe = Static<typeof recipe>;
export type Fidelity = Static<typeof fidelity>;
