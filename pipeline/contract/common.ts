// The catalog's shared definitions (schemas/catalog/common.schema.json): small values and records every catalog
// file refers to by `$ref` (`common.ref.slug()`), each with its TypeScript type beside it.
import { Const, Enum, refs, schemaFile, Type, Typed, type Static } from './schema.ts';
import {
  ARXIV_ID_PATTERN,
  DOI_PATTERN,
  KWARG_NAME_PATTERN,
  REF_TARGET_PATTERN,
  SLUG_PATTERN,
  TYPE_NAME_PATTERN,
} from './rules.ts';
import {
  BLOCK_KINDS,
  CATALOG_FORMAT_VERSION,
  CATEGORIES,
  DEDUP_LEVELS,
  PARAM_KINDS,
  PYTHON_KEYWORDS,
  RUN_LIMITS,
  TORCH_DTYPES,
} from './vocabulary.ts';

/** A JSON value when a default is a literal: number, string, bool, None (null), tuple/list of literals. */
export type LiteralValue = number | string | boolean | null | LiteralValue[];

/**
 * A recipe's constructor argument: a literal (lists stay lists), a tuple (`{"tuple": [8, 8]}`), a list of such
 * values (`[{"tuple": [1, 2]}]`, as a config override may write), or, inside a call, an instance (`{"call":
 * ".TwoWayTransformer", "kwargs": [{ "name": "depth", "value": 2 }]}`), nested at most RUN_LIMITS.literalDepth deep.
 */
export type RecipeValue =
  | LiteralValue
  | RecipeValue[]
  | { tuple: RecipeValue[] }
  | { call: string; kwargs: { name: string; value: RecipeValue }[] };

const ITEMS = RUN_LIMITS.recipeItems;

/** Definitions that refer to nothing. */
const leaves = {
  formatVersion: Const(CATALOG_FORMAT_VERSION),
  slug: Type.String({ pattern: SLUG_PATTERN }),
  nonEmpty: Type.String({ minLength: 1 }),
  kebab: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
  count: Type.Integer({ minimum: 0 }),
  unit: Type.Number({ minimum: 0, maximum: 1 }),
  /** A 1-based inclusive line range. */
  lines: Typed<[number, number]>({
    type: 'array',
    items: [
      { type: 'integer', minimum: 1 },
      { type: 'integer', minimum: 1 },
    ],
    minItems: 2,
    maxItems: 2,
  }),
  sha1: Type.String({ pattern: '^[0-9a-f]{40}$' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  category: Enum(CATEGORIES),
  dedupLevel: Enum(DEDUP_LEVELS),
  kind: Enum(BLOCK_KINDS),
  paramKind: Enum(PARAM_KINDS),
  recipeScalar: Typed<number | string | boolean | null>({
    anyOf: [
      { type: 'number' },
      { type: 'string', maxLength: RUN_LIMITS.recipeStringChars },
      { type: 'boolean' },
      { type: 'null' },
    ],
  }),
  kwargName: Type.String({
    description: 'An ASCII identifier that is not a Python keyword (KWARG_NAME_PATTERN, PYTHON_KEYWORDS in rules.ts).',
    pattern: KWARG_NAME_PATTERN,
    not: { enum: [...PYTHON_KEYWORDS, '__debug__'] },
  }),
  torchDtype: Enum(TORCH_DTYPES, {
    description: 'A torch dtype name without `torch.` (TORCH_DTYPES in vocabulary.ts).',
  }),
  shape: Type.Array(Type.Integer({ minimum: 0 }), { maxItems: ITEMS }),
  typeName: Type.String({
    description:
      'Dotted Python identifiers, `<locals>` allowed after the first segment (TYPE_NAME_PATTERN in rules.ts).',
    maxLength: RUN_LIMITS.typeNameChars,
    pattern: TYPE_NAME_PATTERN,
  }),
  arxivId: Type.String({ pattern: ARXIV_ID_PATTERN }),
  doi: Type.String({ pattern: DOI_PATTERN }),
  paperId: Type.String({ pattern: `^(arxiv:${ARXIV_ID_PATTERN.slice(1, -1)}|doi:${DOI_PATTERN.slice(1, -1)})$` }),
};

const local = refs('#/definitions/', leaves);
/** `$ref`s inside this file to the definitions below, by name. */
const own = (name: string) => ({ $ref: `#/definitions/${name}` });

/** A scalar, or a list (at most RUN_LIMITS.recipeItems) of `next`: one level of a recipe literal's nesting. */
const recipeLiteral = (next: string, options: object = {}) =>
  Typed<LiteralValue>({
    ...options,
    anyOf: [own('recipeScalar'), { type: 'array', maxItems: ITEMS, items: own(next) }],
  });

const kwarg = Type.Object(
  { name: local.kwargName(), value: Typed<RecipeValue>(own('recipeValue')) },
  { additionalProperties: false },
);

const param = Type.Object(
  {
    name: local.nonEmpty(),
    kind: local.paramKind(),
    /** Annotation source text, e.g. `Optional[int]`. */
    annotation: Type.Optional(Type.String()),
    /** Default value source text, e.g. `0.0`, `nn.GELU`, `None`. */
    default: Type.Optional(Type.String()),
    /** Set when the default is a literal (numbers, strings, booleans, None as null, tuples/lists of literals). */
    defaultLiteral: Type.Optional(Typed<LiteralValue>(own('literal'))),
    /**
     * Inferred role, kebab-case, from a small vocabulary (KNOWN_PARAM_ROLES); absent when nothing matched.
     * Example: `num_heads` → `heads`, `in_channels` → `channels`, `norm_layer` → `norm-layer`.
     */
    role: Type.Optional(local.kebab()),
  },
  { additionalProperties: false },
);

const license = Type.Object(
  {
    /** SPDX id, or `NOASSERTION` when none was found. */
    spdx: local.nonEmpty(),
    /** How it was found. */
    method: Enum(['license-file', 'package-metadata', 'config', 'none']),
  },
  { additionalProperties: false },
);

const release = Type.Object(
  {
    distribution: local.nonEmpty(),
    version: local.nonEmpty(),
    /** The repository tag the release was built from, when known (pins the permalink). */
    tag: Type.Optional(local.nonEmpty()),
    /**
     * The release's date as the corpus config states it (`2022-12`): a citation's year when there is no commit date.
     */
    date: Type.Optional(Type.String({ pattern: '^[12][0-9]{3}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$' })),
  },
  { additionalProperties: false },
);

/** A binomial proportion with its 95% Wilson score interval. */
const proportion = Type.Object(
  {
    successes: local.count(),
    trials: local.count(),
    /** successes / trials; 0 when trials is 0. */
    value: local.unit(),
    low: local.unit(),
    high: local.unit(),
  },
  { additionalProperties: false },
);

const categoryCounts = Type.Array(
  Type.Object({ category: local.category(), count: local.count() }, { additionalProperties: false }),
);
const failureCounts = Type.Array(
  Type.Object({ failureClass: local.kebab(), count: local.count() }, { additionalProperties: false }),
);

/** Problems a stage recorded (pipeline/contract/diagnostics.ts says what they are for). */
const diagnostic = Type.Object(
  {
    /** Stable machine code, kebab-case, e.g. `syntax-error`, `source-unreachable`, `unresolved-name`. */
    code: local.kebab(),
    severity: Enum(['error', 'warning', 'info']),
    /** Stage that recorded it: sources, parse, index, discover, resolve, assemble, validate, dedup, spec. */
    stage: local.nonEmpty(),
    message: Type.String(),
    /** What the user can do about it. */
    hint: Type.Optional(Type.String()),
    /** Source id, when the problem belongs to one source. */
    source: Type.Optional(Type.String()),
    /** Path relative to the source root. */
    path: Type.Optional(Type.String()),
    /** A byte range plus 1-based inclusive line range inside one file: nothing tree-sitter-shaped crosses a stage. */
    span: Type.Optional(
      Type.Object(
        {
          startByte: local.count(),
          endByte: local.count(),
          startLine: Type.Integer({ minimum: 1 }),
          endLine: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const definitions = {
  ...leaves,
  literal: Typed<LiteralValue>({
    anyOf: [
      { type: 'number' },
      { type: 'string' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: own('literal') },
    ],
  }),
  recipeValue: Typed<RecipeValue>({
    description: `A kwarg value in a recipe: a literal (recipeLiteral), a tuple ({"tuple": [...]}), a list of such values (a list stays a list: [{"tuple": [1, 2]}]), or an instance: a class called with kwargs ({"call": ".TwoWayTransformer", "kwargs": [{ "name": ..., "value": ... }]}); nested at most ${RUN_LIMITS.literalDepth} deep (RUN_LIMITS in vocabulary.ts).`,
    anyOf: [
      own('recipeLiteral'),
      Type.Array(Typed<RecipeValue>(own('recipeValue')), { maxItems: ITEMS }),
      Type.Object(
        { tuple: Type.Array(Typed<RecipeValue>(own('recipeValue')), { maxItems: ITEMS }) },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          call: Type.String({ maxLength: RUN_LIMITS.typeNameChars, pattern: REF_TARGET_PATTERN }),
          kwargs: Type.Array(kwarg, { maxItems: ITEMS }),
        },
        { additionalProperties: false },
      ),
    ],
  }),
  recipeLiteral: recipeLiteral('recipeLiteral1', {
    description: `A kwarg value in a recipe: strings of at most ${RUN_LIMITS.recipeStringChars} characters, lists of at most ${ITEMS} items nested at most ${RUN_LIMITS.literalDepth} deep (RUN_LIMITS in vocabulary.ts).`,
  }),
  recipeLiteral1: recipeLiteral('recipeLiteral2'),
  recipeLiteral2: recipeLiteral('recipeLiteral3'),
  recipeLiteral3: recipeLiteral('recipeScalar'),
  param,
  license,
  release,
  proportion,
  categoryCounts,
  failureCounts,
  uniqueCounts: Type.Object(
    {
      exact: local.count(),
      lexical: local.count(),
      structural: local.count(),
      architecture: local.count(),
    },
    { additionalProperties: false },
  ),
  diagnostic,
};

/** `$ref`s to the shared definitions from the other catalog files: `common.ref.slug()`. */
export const common = { ref: refs('common.schema.json#/definitions/', definitions) };

/** schemas/catalog/common.schema.json. */
export const COMMON_SCHEMA = schemaFile(
  'catalog/common.schema.json',
  { title: 'nnblocks catalog: shared definitions' },
  Typed<never>({}),
  definitions,
);

export type ParamSpec = Static<typeof param>;
export type License = Static<typeof license>;
export type Proportion = Static<typeof proportion>;
export type CategoryCount = Static<typeof categoryCounts>[number];
export type FailureCount = Static<typeof failureCounts>[number];
export type DiagnosticRecord = Static<typeof diagnostic>;
