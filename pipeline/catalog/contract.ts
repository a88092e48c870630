// The published catalog's data contract: the JSON files under `content/catalog/`, read by the site.
//
// Files: `blocks/<slug>.json` (one BlockSpec each), `sources.json`, `clusters.json`, `stats.json`,
// `build-info.json`. JSON Schemas for each live in `schemas/catalog/`; `check-catalog.ts` validates a directory.
// Rules every file follows:
// - No upstream function bodies, docstrings or comments: only facts (names, annotation and default *text*,
//   shapes, counts, hashes). Upstream strings are data; consumers render them as escaped text.
// - Deterministic: object keys sorted on write, lists in the order documented here; the only timestamp
//   in the whole catalog is `build-info.json`'s `builtAt`.
// - Anything keyed by an upstream name is a list of records, never an object keyed by that name
//   (names like `__proto__` or `constructor` must survive every JSON consumer).
// - Fields from stages that did not run are absent, never faked (`validation`, `dedup`).
// The site imports this file (types only); nothing else from `pipeline/` crosses into `src/`.

import type { Diagnostic } from '../diagnostics.ts';

export type { Diagnostic };

/** How a parameter binds: Python's five kinds (PEP 570 positional-only through `**kwargs`). */
export type ParamKind = 'positional-only' | 'positional' | 'var-positional' | 'keyword-only' | 'var-keyword';

/** A JSON value when a default is a literal: number, string, bool, None (null), tuple/list of literals. */
export type LiteralValue = number | string | boolean | null | LiteralValue[];

/**
 * A recipe's constructor argument: a literal (lists stay lists), a tuple (`{"tuple": [8, 8]}`), or, inside a call,
 * an instance (`{"call": ".TwoWayTransformer", "kwargs": [{ "name": "depth", "value": 2 }]}`), nested at most
 * RUN_LIMITS.literalDepth deep.
 */
export type RecipeValue =
  LiteralValue | { tuple: RecipeValue[] } | { call: string; kwargs: { name: string; value: RecipeValue }[] };

/** Bump on any incompatible change; every file carries it and the schemas pin it. */
export const CATALOG_FORMAT_VERSION = 2;

/**
 * Categories, assigned by the documented rules (docs/catalog.md "Categories", from pipeline/catalog/category.ts).
 * A block has one or more (multi-label, format 2); every rule that fired is recorded per block.
 */
export const CATEGORIES = [
  'attention',
  'convolution',
  'transformer-block',
  'mlp',
  'recurrent',
  'normalization',
  'pooling',
  'activation',
  'embedding',
  'residual',
  'regularization',
  'reshape',
  'detection',
  'network',
  'utility',
  'transform',
  'loss',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Human labels for categories (site and docs). */
export const CATEGORY_LABELS: ReadonlyMap<Category, string> = new Map<Category, string>([
  ['attention', 'Attention'],
  ['convolution', 'Convolution'],
  ['transformer-block', 'Transformer block'],
  ['mlp', 'MLP'],
  ['recurrent', 'Recurrent'],
  ['normalization', 'Normalization'],
  ['pooling', 'Pooling'],
  ['activation', 'Activation'],
  ['embedding', 'Embedding'],
  ['residual', 'Residual'],
  ['regularization', 'Regularization'],
  ['reshape', 'Reshape'],
  ['detection', 'Detection and segmentation'],
  ['network', 'Network architecture'],
  ['utility', 'Utility'],
  ['transform', 'Data transform'],
  ['loss', 'Loss'],
  ['other', 'Other'],
]);

/**
 * What a class is: a network `block`, a data `transform` (augmentation, preprocessing) or a `loss`. Decided by the
 * documented rules in pipeline/catalog/kind.ts (docs/catalog.md "Kinds"); transforms and losses are listed apart.
 */
export const BLOCK_KINDS = ['block', 'transform', 'loss'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];
export const KIND_LABELS: ReadonlyMap<BlockKind, string> = new Map<BlockKind, string>([
  ['block', 'Network blocks'],
  ['transform', 'Data transforms'],
  ['loss', 'Losses'],
]);

/** One category rule that fired on a block (`name:attention`, `method:squeeze-and-excitation`). */
export interface CategoryHit {
  category: Category;
  rule: string;
}

/**
 * A taxonomy method (docs/taxonomy.md) the block implements, and the rule that matched: `name`, `base`,
 * `composition` (each with the rule's index in the method's list, `name#0`), or `cluster:<level>` when the block
 * sits in a de-duplication cluster with a matched one.
 */
export interface MethodHit {
  slug: string;
  rule: string;
}

/**
 * An arXiv identifier as arXiv issues them, without a version: new style `1709.01507` (4 + 4 or 5 digits) or old
 * style `cs/0112017`, `math.GT/0309136`. Upstream text is hostile: anything else is not an id.
 */
export const ARXIV_ID_PATTERN = '^(\\d{4}\\.\\d{4,5}|[a-z]+(-[a-z]+)?(\\.[A-Z]{2})?/\\d{7})$';
/** A DOI as Crossref recommends matching modern ones (`10.1109/CVPR.2016.90`), capped at 200 characters. */
export const DOI_PATTERN = '^10\\.\\d{4,9}/[-._;()/:A-Za-z0-9]{1,190}$';
const ARXIV_ID = new RegExp(ARXIV_ID_PATTERN);
const DOI = new RegExp(DOI_PATTERN);
export const isArxivId = (v: unknown): v is string => typeof v === 'string' && ARXIV_ID.test(v);
export const isDoi = (v: unknown): v is string => typeof v === 'string' && DOI.test(v);

/**
 * A paper a block implements: exactly one of `arxiv` or `doi`, and where the fact came from — `source` (the id is
 * written in the block's class: a docstring or a comment; only the id is published, never the text) and/or
 * `taxonomy` (a method the block implements names the paper). Titles and BibTeX live in `methods.json` `papers`.
 */
export interface PaperRef {
  /** `arxiv:<id>` or `doi:<doi>`: the key of the paper in methods.json `papers` when the taxonomy knows it. */
  id: string;
  arxiv?: string;
  doi?: string;
  from: ('source' | 'taxonomy')[];
}

/** De-duplication levels, from strictest to loosest. */
export const DEDUP_LEVELS = ['exact', 'lexical', 'structural', 'architecture'] as const;
export type DedupLevel = (typeof DEDUP_LEVELS)[number];

/** Ids and slugs appear in URLs and file names: lowercase ASCII, digits, `.`, `_`, `-`; must start alphanumeric. */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9._-]{0,199}$';

// ---------------------------------------------------------------------------------------------------------
// What a sandboxed run may put in the catalog. Everything a validation run reports is as hostile as the
// upstream code that ran: these rules are what the schemas enforce (schemas/catalog/block.schema.json; a test keeps
// them in step) and what the catalog step and the site check again before using a value. The site builds Python
// text only from values that pass them (src/lib/replay.ts); anything else is refused, never escaped into code.

/** Python's reserved words: never a keyword argument name (`class=1` does not parse). */
export const PYTHON_KEYWORDS = [
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
] as const;

/** A recipe's keyword argument name (and a `refs` entry): an ASCII identifier, not a keyword nor `__debug__`. */
export const KWARG_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}$';

/**
 * The value of a kwarg named in `refs`: a module and an attribute, `torch.nn.BatchNorm2d`, or a leading dot and an
 * attribute of the block's own module, `.BasicBlock` (ASCII identifiers; how the runner resolves them).
 */
export const REF_TARGET_PATTERN = '^(\\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+)$';

/**
 * A layer type in a composition (a class's `__module__` + `__qualname__` as the built module reports it): dotted
 * Python identifiers (Unicode allowed, as Python allows), where a segment after the first may be `<locals>`
 * (`pkg.mod.make.<locals>.Block`). Anything else (a path, a command line, file contents) is dropped by the catalog step.
 */
export const TYPE_NAME_PATTERN =
  '^[\\p{XID_Start}_][\\p{XID_Continue}]*(\\.([\\p{XID_Start}_][\\p{XID_Continue}]*|<locals>))*$';

/**
 * Where a part sits in the model its builder makes (a composite recipe's `path`), as `named_modules()` writes it:
 * attribute names and ModuleList/Sequential indices, dotted (`rpn.anchor_generator`, `backbone.body.layer1.0`),
 * the first an identifier, at most 32 segments and RUN_LIMITS.typeNameChars characters.
 */
export const PART_PATH_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}(\\.([A-Za-z_][A-Za-z0-9_]{0,99}|[0-9]{1,6})){0,31}$';

/** A Python module's dotted name: ASCII identifiers (`torchvision.models.detection.faster_rcnn`). */
export const DOTTED_MODULE_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$';

/** Where a recipe comes from (docs/validate.md, "Recipes"), in the order they are tried. */
export const RECIPE_ORIGINS = ['override', 'builder', 'usage', 'inference', 'part'] as const;
export type RecipeOriginName = (typeof RECIPE_ORIGINS)[number];

/** An output checksum (Σ|x| in float64) as text: a decimal number, or `nan`, `inf`, `-inf`. */
export const CHECKSUM_PATTERN = '^(nan|inf|-inf|-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?)$';

/** A torch device: `cpu`, `cuda`, `cuda:0`. */
export const DEVICE_PATTERN = '^[a-z][a-z0-9_]{0,15}(:[0-9]{1,4})?$';

/** A torch version as reported (`2.6.0+cpu`, `1.13.0a0`), or `unknown`. */
export const TORCH_VERSION_PATTERN = '^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$';

/** Torch dtype names without the `torch.` prefix (canonical names and their aliases), as of torch 2.8. */
export const TORCH_DTYPES = [
  'bfloat16',
  'bits16',
  'bits1x8',
  'bits2x4',
  'bits4x2',
  'bits8',
  'bool',
  'cdouble',
  'cfloat',
  'chalf',
  'complex128',
  'complex32',
  'complex64',
  'double',
  'float',
  'float16',
  'float32',
  'float4_e2m1fn_x2',
  'float64',
  'float8_e4m3fn',
  'float8_e4m3fnuz',
  'float8_e5m2',
  'float8_e5m2fnuz',
  'float8_e8m0fnu',
  'half',
  'int',
  'int1',
  'int16',
  'int2',
  'int3',
  'int32',
  'int4',
  'int5',
  'int6',
  'int64',
  'int7',
  'int8',
  'long',
  'qint32',
  'qint8',
  'quint2x4',
  'quint4x2',
  'quint8',
  'short',
  'uint1',
  'uint16',
  'uint2',
  'uint3',
  'uint32',
  'uint4',
  'uint5',
  'uint6',
  'uint64',
  'uint7',
  'uint8',
] as const;
export type TorchDtype = (typeof TORCH_DTYPES)[number];

/** Dtypes whose inputs are drawn with `torch.randn` (the rest with `torch.randint`), as `dtype.is_floating_point`. */
export const FLOATING_DTYPES: ReadonlySet<TorchDtype> = new Set<TorchDtype>(
  TORCH_DTYPES.filter((d) => /^(b?float|double|half)/.test(d)),
);

/** Length caps (characters, i.e. code points) and size caps on what a sandboxed run reports. */
export const RUN_LIMITS = {
  /** `validation.failureDetail` and `validation.reason.message`: one line of an exception. */
  detailChars: 300,
  /** A composition layer type name. */
  typeNameChars: 200,
  /** A string kwarg value in a recipe. */
  recipeStringChars: 200,
  /** Items in a recipe list (kwargs, inputs), in a literal list, dimensions in a shape. */
  recipeItems: 64,
  /** Nesting of list literals in a recipe value (`((1, 2), (3, 4))` is 2). */
  literalDepth: 4,
  /** Layer types in a composition. */
  layerTypes: 500,
} as const;

/**
 * `validation.canonical[].macs`: multiply-accumulates of one forward at the figure's `input`, as torch's own counter
 * (`torch.utils.flop_counter`, torch >= 2.1) counts them on the meta device, halved: it counts 2 FLOPs per
 * multiply-add of matrix products and convolutions (attention's included) and nothing for elementwise ops,
 * normalisation, activations or pooling. MACs, not FLOPs: the unit of torchvision's published `_ops` (resnet50
 * 4.089 G). An integer up to 2^53 - 1, the largest a JSON reader holds exactly; absent under older torch. The
 * runner-record check uses this schema; the catalog schema states it again (a test keeps them in step).
 */
export const CANONICAL_MACS = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;

/** A MACs figure as CANONICAL_MACS allows it (the site checks with this before it shows one). */
export const isMacs = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const KWARG_NAME = new RegExp(KWARG_NAME_PATTERN);
const PART_PATH = new RegExp(PART_PATH_PATTERN);
const DOTTED_MODULE = new RegExp(DOTTED_MODULE_PATTERN);
const REF_TARGET = new RegExp(REF_TARGET_PATTERN);
const TYPE_NAME = new RegExp(TYPE_NAME_PATTERN, 'u');
const CHECKSUM = new RegExp(CHECKSUM_PATTERN);
const RESERVED: ReadonlySet<string> = new Set<string>([...PYTHON_KEYWORDS, '__debug__']);
const DTYPES: ReadonlySet<string> = new Set<string>(TORCH_DTYPES);
const chars = (s: string) => [...s].length;

/** A name Python accepts as `f(name=...)`: ASCII identifier, not reserved. */
export const isKwargName = (v: unknown): v is string => typeof v === 'string' && KWARG_NAME.test(v) && !RESERVED.has(v);

/** `torch.nn.BatchNorm2d` or `.BasicBlock`, no segment a reserved word. */
export const isRefTarget = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  REF_TARGET.test(v) &&
  v
    .split('.')
    .filter(Boolean)
    .every((seg) => !RESERVED.has(seg));

/** A part's path: PART_PATH_PATTERN within RUN_LIMITS.typeNameChars, no segment a reserved word. */
export const isPartPath = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  PART_PATH.test(v) &&
  v.split('.').every((seg) => !RESERVED.has(seg));

/** A dotted module name within RUN_LIMITS.typeNameChars, no segment a reserved word. */
export const isDottedModule = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  DOTTED_MODULE.test(v) &&
  v.split('.').every((seg) => !RESERVED.has(seg));

export const isTypeName = (v: unknown): v is string =>
  typeof v === 'string' && chars(v) <= RUN_LIMITS.typeNameChars && TYPE_NAME.test(v);

export const isTorchDtype = (v: unknown): v is TorchDtype => typeof v === 'string' && DTYPES.has(v);

export const isChecksum = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && CHECKSUM.test(v);

/** A shape: at most RUN_LIMITS.recipeItems non-negative integers. */
export const isShape = (v: unknown): v is number[] =>
  Array.isArray(v) &&
  v.length <= RUN_LIMITS.recipeItems &&
  v.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0);

// Forward inputs beyond a tensor's shape and dtype (InputSpec): dict keys, literal values, boxes. Stated once here:
// the runner-record check uses these schemas (record-check.ts), the catalog and config schemas state them again (a
// test keeps them in step), and the site checks with the predicates before it renders a replay (src/lib/replay.ts).

/** A dict input's key, and a name in a literal input (`names: List[str]`): letters, digits, underscores. */
export const INPUT_NAME_PATTERN = '^[A-Za-z0-9_]{1,32}$';

export const INPUT_LIMITS = {
  /** Keys of a dict input. */
  keys: 16,
  /** Items of a literal list input: names, image sizes. */
  literalItems: 16,
  /** Ints in one item of a list of int lists (an image size has 2). */
  literalInts: 4,
  /** The largest int of a literal input (a window size, an image side), and the largest side of a boxes image. */
  maxInt: 4096,
} as const;

const INPUT_INT = { type: 'integer', minimum: 0, maximum: INPUT_LIMITS.maxInt };
const INPUT_NAME = { type: 'string', pattern: INPUT_NAME_PATTERN };
const literalList = (items: object) => ({ type: 'array', minItems: 1, maxItems: INPUT_LIMITS.literalItems, items });

/** JSON Schemas of InputSpec's optional fields. */
export const INPUT_FIELD_SCHEMAS = {
  high: { type: 'integer', minimum: 1 },
  list: { type: 'integer', minimum: 1, maximum: RUN_LIMITS.recipeItems },
  keys: { type: 'array', minItems: 1, maxItems: INPUT_LIMITS.keys, items: INPUT_NAME },
  boxes: { type: 'integer', minimum: 2, maximum: INPUT_LIMITS.maxInt },
  value: {
    anyOf: [
      INPUT_INT,
      literalList(INPUT_NAME),
      literalList({ type: 'array', minItems: 1, maxItems: INPUT_LIMITS.literalInts, items: INPUT_INT }),
      // A tuple of ints (`size=(8, 8)`, a `Tuple[int, int]` argument), written `{"tuple": [8, 8]}`.
      {
        type: 'object',
        additionalProperties: false,
        required: ['tuple'],
        properties: { tuple: { type: 'array', minItems: 1, maxItems: INPUT_LIMITS.literalInts, items: INPUT_INT } },
      },
    ],
  },
};

/** An InputSpec with `boxes` has a two-dimensional shape, [K, 4] or [K, 5] (isBoxesShape checks the last). */
export const INPUT_BOXES_RULE = {
  if: { required: ['boxes'] },
  then: { properties: { shape: { type: 'array', minItems: 2, maxItems: 2 } } },
};

const INPUT_NAME_RE = new RegExp(INPUT_NAME_PATTERN);
const isInputInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= INPUT_LIMITS.maxInt;
const isInputName = (v: unknown): v is string => typeof v === 'string' && INPUT_NAME_RE.test(v);
const isListOf = <T>(v: unknown, max: number, item: (x: unknown) => x is T): v is T[] =>
  Array.isArray(v) && v.length >= 1 && v.length <= max && v.every(item);

/** `{"tuple": [8, 8]}`: 1 to INPUT_LIMITS.literalInts ints, passed as a Python tuple. */
export const isInputTuple = (v: unknown): v is { tuple: number[] } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  isListOf((v as { tuple?: unknown }).tuple, INPUT_LIMITS.literalInts, isInputInt);

/** A dict input's keys: 1 to INPUT_LIMITS.keys names. */
export const isInputKeys = (v: unknown): v is string[] => isListOf(v, INPUT_LIMITS.keys, isInputName);

/** A literal input: an int, a list of names, a list of int lists, or a tuple of ints (INPUT_FIELD_SCHEMAS.value). */
export const isInputLiteral = (v: unknown): v is InputLiteral =>
  isInputInt(v) ||
  isInputTuple(v) ||
  isListOf(v, INPUT_LIMITS.literalItems, isInputName) ||
  isListOf(v, INPUT_LIMITS.literalItems, (x): x is number[] => isListOf(x, INPUT_LIMITS.literalInts, isInputInt));

/** A boxes input's shape and image side: [K, 4] or [K, 5], inside a side x side image (side 2 to maxInt). */
export const isBoxesInput = (shape: unknown, side: unknown): boolean =>
  isShape(shape) && shape.length === 2 && (shape[1] === 4 || shape[1] === 5) && isInputInt(side) && side >= 2;

/** At most `max` characters (code points), never splitting a surrogate pair; `…` marks a cut. */
export function capText(text: string, max: number): string {
  const cps = [...text];
  return cps.length <= max ? text : `${cps.slice(0, max - 1).join('')}…`;
}

// ---------------------------------------------------------------------------------------------------------
// blocks/<slug>.json

export interface BlockSpec {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  /** Stable, unique across the catalog: `<sourceId>:<module>.<qualname>`, e.g. `torchvision:torchvision.ops.misc.MLP`. */
  id: string;
  /** URL and file name (`blocks/<slug>.json`); matches SLUG_PATTERN; unique. */
  slug: string;
  /** The class name as written upstream (may be anything Python allows, `__proto__` included). */
  name: string;
  /** Python `__qualname__`, e.g. `SwinTransformerBlock` or `Outer.Inner`. */
  qualname: string;
  /** Dotted module, e.g. `torchvision.models.swin_transformer`. */
  module: string;
  sourceId: string;
  /** Network block, data transform or loss (format 2; docs/catalog.md "Kinds"). */
  kind: BlockKind;
  /** Id of the kind rule that decided it (`module:transforms`, `base:loss`, `default`). */
  kindRule: string;
  /** One or more, in the order their first rule fired; `other` only alone (format 2 replaces `category`). */
  categories: Category[];
  /** Every category rule that fired, in rule order. */
  categoryRules: CategoryHit[];
  /** Taxonomy methods the block implements (docs/taxonomy.md), sorted by slug; absent when none. */
  methods?: MethodHit[];
  /** Papers the block implements, sorted by id; absent when none is known. */
  papers?: PaperRef[];
  interface: BlockInterface;
  composition: Composition;
  dependencies: Dependencies;
  /** Absent when validation did not run for this block. */
  validation?: ValidationRecord;
  /** Absent when de-duplication did not run. */
  dedup?: DedupRecord;
  /**
   * Where the corpus builds this block (usage mining, docs/usage.md): other blocks, builder functions and module
   * code, by source, path and line, at most USED_BY_LIMITS.entries. Absent in catalogs built before it.
   */
  usedBy?: UsedBy[];
  provenance: Provenance;
  citation: Citation;
  /** Problems recorded for this block by any stage, ordered by stage then code. */
  diagnostics: Diagnostic[];
}

export interface ParamSpec {
  name: string;
  kind: ParamKind;
  /** Annotation source text, e.g. `Optional[int]`. */
  annotation?: string;
  /** Default value source text, e.g. `0.0`, `nn.GELU`, `None`. */
  default?: string;
  /** Set when the default is a literal (numbers, strings, booleans, None as null, tuples/lists of literals). */
  defaultLiteral?: LiteralValue;
  /**
   * Inferred role, kebab-case, from a small vocabulary (KNOWN_PARAM_ROLES); absent when nothing matched.
   * Example: `num_heads` → `heads`, `in_channels` → `channels`, `norm_layer` → `norm-layer`.
   */
  role?: string;
}

export const KNOWN_PARAM_ROLES = [
  'channels',
  'features',
  'dimension',
  'heads',
  'kernel-size',
  'stride',
  'padding',
  'dilation',
  'groups',
  'dropout',
  'bias',
  'epsilon',
  'momentum',
  'activation',
  'norm-layer',
  'depth',
  'size',
  'flag',
] as const;

export interface BlockInterface {
  /** `__init__` parameters without `self`, in declaration order; the inherited signature when not overridden. */
  constructorParams: ParamSpec[];
  /** `forward`; null when neither the class nor a known base defines one. */
  forward: {
    /** Without `self`, in declaration order. */
    params: ParamSpec[];
    /** Return annotation source text. */
    returns?: string;
  } | null;
  /** Base-class chain, nearest first, fully qualified (`torch.nn.Module` for external bases). */
  bases: string[];
  /** Names of methods defined directly in the class body, in source order. */
  methods: string[];
}

export interface LayerCount {
  /** Fully qualified layer type, e.g. `torch.nn.Linear`. */
  type: string;
  count: number;
}

export interface Composition {
  /** Sorted by type. Empty when nothing is known. */
  layers: LayerCount[];
  /** `validation`: counted on the instantiated module; `static`: read from `__init__` assignments. */
  from: 'validation' | 'static';
  /**
   * The module tree the validation run built (`named_children()`, registration order), capped breadth first at
   * MODULE_TREE_LIMITS (pipeline/catalog/module-tree.ts). Absent when the block never built, and in older catalogs.
   */
  tree?: ModuleTreeSpec;
}

/** Caps on a published module tree: nodes in all (the root included), and levels below the root. */
export const MODULE_TREE_LIMITS = { nodes: 200, depth: 6 } as const;

/** A child's attribute name as `named_children()` reports it: `conv1`, `0` (an ASCII word). */
export const TREE_CHILD_NAME_PATTERN = '^[A-Za-z0-9_]{1,100}$';
const TREE_CHILD_NAME = new RegExp(TREE_CHILD_NAME_PATTERN);
export const isTreeChildName = (v: unknown): v is string => typeof v === 'string' && TREE_CHILD_NAME.test(v);

export interface ModuleTreeSpec {
  /** The attribute name under its parent (TREE_CHILD_NAME_PATTERN); absent on the root. */
  name?: string;
  /** Qualified class, TYPE_NAME_PATTERN: `torch.nn.modules.conv.Conv2d`. */
  type: string;
  /** Parameter elements registered directly on this module (not its children's). */
  params: number;
  /** Direct submodules, in registration order. */
  children: ModuleTreeSpec[];
  /** Set when children were left out: past the caps, or not a dotted type or plain name. */
  truncated?: true;
}

export interface InternalDependency {
  /** Qualified name inside its module, e.g. `_get_relative_position_bias`. */
  qualname: string;
  module: string;
  /** Path relative to the source root. */
  path: string;
  /** 1-based inclusive line range. */
  lines: [number, number];
  /** Source the definition comes from: the block's own or another of the corpus (absent in older catalogs: own). */
  source?: string;
}

/** Why another source's code in a block deserves a warning (pipeline/catalog/license-mix.ts has the rule). */
export type LicenseFlag = 'copyleft' | 'non-commercial' | 'unknown';

export interface DependencySource {
  id: string;
  /** SPDX id of the source's license, `NOASSERTION` when none was found. */
  license: string;
  /** Set on another source whose license does not mix freely into the block's own. */
  flag?: LicenseFlag;
}

export interface Dependencies {
  /** Definitions the block needs from its own source and others of the corpus, sorted by module then qualname. */
  internal: InternalDependency[];
  /** Required distributions, sorted by name; version as installed when validated, else the pinned one. */
  distributions: { name: string; version: string }[];
  /** Sources whose code the assembled block holds, its own first, each with its license (absent in older catalogs). */
  sources?: DependencySource[];
}

/** `blocked`: it failed only because a distribution is not installed (`missing-dependency`, see `blockedBy`). */
export type ValidationStatus = 'passed' | 'failed' | 'blocked';
export type StageStatus = 'ok' | 'failed' | 'skipped';

export interface ValidationRecord {
  status: ValidationStatus;
  /** Kebab-case cause, one of the runner's classes (docs/validate.md): `needs-arguments`, `forward-error`, `timeout`... */
  failureClass?: string;
  /**
   * The class's detail (the missing module, the unresolved name, the violation, how the process died), without
   * paths of the machine that ran it; upstream text, render escaped.
   */
  failureDetail?: string;
  /** Why it failed or is blocked; set exactly when `status` is `failed` or `blocked` (absent in older catalogs). */
  reason?: FailureReason;
  /** In execution order: parse, compile, import, build, forward, backward. */
  stages: { stage: string; status: StageStatus; ms: number }[];
  /**
   * Set when `status` is `passed`: everything needed to replay the check (`npx nnblocks extract <id>`, then run with
   * these). Absent otherwise: what a failed block tried is `reason.recipeTried`.
   */
  recipe?: ValidationRecipe;
  /** Observed outputs of forward, in order; empty when forward did not run. */
  outputs: { shape: number[]; dtype: string; checksum: string }[];
  /**
   * Parameter count (elements) of the module as the recipe built it: measured **at the test configuration** (the
   * small widths and depths validation chose, e.g. one block per stage), not the block's size as upstream uses it.
   * Absent when the block never built. The size at a builder's configuration ("at resnet50") is `canonical`.
   */
  params?: number;
  /** Buffer count (elements), at the same configuration; absent when the block never built. */
  buffers?: number;
  /**
   * Parameter counts at the configurations of the source's zero-argument builders, labelled with the builder
   * (`resnet50`: 25,557,032). `params` is the count at the test configuration the recipe built. `outputs`: the
   * output shapes at the default `input` (`[1, 3, 224, 224]` -> `[[1, 1000]]`), computed on torch's meta device;
   * absent when no default input ran (a detector's forward needs real values). `macs`: the multiply-accumulates of
   * that one forward at `input` (CANONICAL_MACS).
   */
  canonical?: { builder: string; params: number; input?: number[]; outputs?: number[][]; macs?: number }[];
  /** `eval` when the backward check ran in eval mode: the training-mode forward raised (a detector wants targets). */
  gradientMode?: 'eval';
  /** e.g. `cpu`, `cuda:0`. */
  device: string;
  torchVersion: string;
  /**
   * Extracted block vs. the original import: `exact` (bit-identical outputs), `close` (within tolerance),
   * `mismatch`, or `not-compared` (original not importable, or validation stopped earlier).
   */
  fidelity: 'exact' | 'close' | 'mismatch' | 'not-compared';
  /** Set when `status` is `blocked`: what to install to unblock it, sorted by distribution. */
  blockedBy?: BlockedBy[];
}

/**
 * Why a block failed or is blocked, in neutral form (pipeline/catalog/failure-reason.ts derives it from the runner's
 * stage error, `Type: message`). Upstream text: capped, without traceback lines or source lines, paths of the
 * machine that ran it replaced by module-relative paths or `<tmp>`, `<sandbox>`, `<host>`; render as text.
 */
export interface FailureReason {
  /** The stage it failed in (`import`, `build`, `forward`...); null when the run ended before any stage reported. */
  stage: string | null;
  /**
   * The exception's type as Python names it: `TypeError`, `torch.OutOfMemoryError` (dotted identifiers,
   * TYPE_NAME_PATTERN); null when the run ended without one (a timeout, a crash, a violation, a broken record).
   */
  exceptionType: string | null;
  /** The exception's message (or how the run ended), one line, at most RUN_LIMITS.detailChars; may be empty. */
  message: string;
  /**
   * The constructor kwargs and forward inputs of the run that failed, when the runner recorded them (today: a block
   * that built and ran forward, then failed); null otherwise.
   */
  recipeTried: ValidationRecipe | null;
  /** needs-arguments: required constructor parameters inference had no value for (what a reader must supply). */
  missing?: string[];
}

export interface ValidationRecipe {
  seed: number;
  /**
   * A function of the block's module that built it (`resnet50`), called with `kwargs` instead of the class; for a
   * part (origin `part`), the builder of the model that holds the block (`fasterrcnn_resnet50_fpn`), which the
   * extracted module holds too.
   */
  builder?: string;
  /** A part: the upstream module that defines `builder` (`torchvision.models.detection.faster_rcnn`). */
  builderModule?: string;
  /**
   * A part: where the block sits in the model `builder` makes (`rpn.anchor_generator`; PART_PATH_PATTERN). Then
   * `kwargs` are the builder's and `inputs` the model's: the block is fed what the model's forward passes it
   * (docs/validate.md, "Replay protocol").
   */
  path?: string;
  /** Where the recipe came from (docs/validate.md, "Recipes"). */
  origin?: RecipeOriginName;
  /**
   * Instances passed as kwargs: a class (`.MBConvConfig`, a class of the block's package; `torch.nn.Linear`) called
   * with kwargs, which may hold tuples and instances in turn (a config override's `{"class": ...}`).
   */
  calls?: { name: string; target: string; kwargs: { name: string; value: RecipeValue }[] }[];
  /** Constructor keyword arguments, in constructor order. A list, since names are upstream names. */
  kwargs: { name: string; value: RecipeValue }[];
  /**
   * Names of kwargs whose value is a dotted name (`torch.nn.BatchNorm2d`; `.BasicBlock` in the block's own module),
   * resolved with importlib before building. Absent when none.
   */
  refs?: string[];
  /** Positional inputs to forward, in order. */
  inputs: InputSpec[];
}

/**
 * One forward input, as config overrides write it, the runner draws it and the catalog publishes it: a random
 * tensor of this shape and dtype (float with `randn`, integer with `randint(0, high)`, boxes with `boxes`); with
 * `list`, a list of that many such tensors (the feature levels of a detection head); with `value`, no tensor at all.
 * Drawn in the order docs/validate.md ("Replay protocol") gives; rules: INPUT_FIELD_SCHEMAS.
 */
export interface InputSpec {
  shape: number[];
  /** A torch dtype name without the `torch.` prefix: float32, int64, bool... */
  dtype: string;
  /** Exclusive upper bound for integer inputs (token ids, class indices); for boxes, the images they index. */
  high?: number;
  /** Pass this many tensors of the spec as one list argument (feature levels, one boxes tensor per image). */
  list?: number;
  /** Pass a dict of tensors of the spec under these keys as one argument (`Dict[str, Tensor]` feature maps). */
  keys?: string[];
  /**
   * Boxes valid inside a `boxes` x `boxes` image instead of noise: shape [K, 4] (x1, y1, x2, y2) or [K, 5] with the
   * image index first, row i on image i % high (`rois` of torchvision's roi_align).
   */
  boxes?: number;
  /** Pass this literal instead of a tensor (an `int` window size, `List[str]` level names, image sizes); shape []. */
  value?: InputLiteral;
}

/** A non-tensor forward input: an int, names, int lists (image sizes, passed as tuples), or a tuple of ints. */
export type InputLiteral = number | string[] | number[][] | { tuple: number[] };

export interface DedupRecord {
  /** Group of byte-identical (after normalization) definitions; null when alone. */
  exactGroup: string | null;
  lexicalCluster: string | null;
  structuralCluster: string | null;
  /** Hash of the instantiated layer graph; null when validation did not construct the module. */
  archHash: string | null;
  /** Most similar other blocks, highest similarity first (ties by id), at most 10; similarity in [0, 1]. */
  nearest: { id: string; similarity: number }[];
  /** Whether this block is the representative (or only member) of its group at each level. */
  unique: Record<DedupLevel, boolean>;
}

export interface License {
  /** SPDX id, or `NOASSERTION` when none was found. */
  spdx: string;
  /** How it was found. */
  method: 'license-file' | 'package-metadata' | 'config' | 'none';
}

export interface PackageRelease {
  distribution: string;
  version: string;
  /** The repository tag the release was built from, when known (pins the permalink). */
  tag?: string;
  /** The release's date as the corpus config states it (`2022-12`): a citation's year when there is no commit date. */
  date?: string;
}

export interface Provenance {
  sourceId: string;
  /** Repository URL, e.g. `https://github.com/pytorch/vision`. */
  repository: string;
  /** Full commit SHA when the source is a git checkout. */
  commit?: string;
  /**
   * The commit's committer date, ISO 8601 with its offset (`2022-12-08T17:19:36+01:00`), as `git show --format=%cI`
   * gives it; a citation's year and date. Absent without a commit, and in catalogs built before it.
   */
  commitDate?: string;
  /** Set when the source is an installed distribution rather than a checkout. */
  release?: PackageRelease;
  /** Path relative to the repository root. */
  path: string;
  /** 1-based inclusive line range of the class definition. */
  lines: [number, number];
  /** Git blob SHA-1 of the file (`git hash-object`). */
  blobSha1: string;
  sha256: string;
  /** `swh:1:cnt:<blobSha1>`. */
  swhid: string;
  /** `<swhid>[;origin=<repository URL>][;anchor=swh:1:rev:<commit>];path=/<path>;lines=<a>-<b>` (no origin for a local source). */
  swhidQualified: string;
  /** Permalink pinned to the commit (or tag) with a line anchor. */
  permalink: string;
  license: License;
}

/** Citation keys: `<source><year><name>` cut, `-`, 5 hex digits of the id's SHA-256 (pipeline/catalog/citation.ts). */
export const CITE_KEY_PATTERN = '^[a-z0-9]{1,24}-[0-9a-f]{5}$';

export interface Citation {
  /** The entries' key, ≤ 30 characters, unique in the catalog: `torchvision2022squeezeexc-3f9a1`. Absent in older catalogs. */
  key?: string;
  /**
   * BibTeX `@software` entry (biblatex and plain BibTeX styles): title, author, year and date (from the commit date,
   * when known), version (the public release, no local label), url, license. Older catalogs: a `@codefragment`.
   */
  bibtex: string;
  /** The same as a biblatex-software `@codefragment` with swhid and repository. Absent in older catalogs. */
  codefragment?: string;
  /** The version the entries cite (a release's public version, never a local label); absent for a git commit. */
  version?: string;
  /** The date the entries cite, `YYYY-MM-DD` (the commit's, in its committer's time zone); absent when unknown. */
  date?: string;
  /** CITATION.cff fragment (YAML text). */
  cff: string;
  /** Plain-text citation. */
  text: string;
}

// ---------------------------------------------------------------------------------------------------------
// Shared summary records

/** A binomial proportion with its 95% Wilson score interval. */
export interface Proportion {
  successes: number;
  trials: number;
  /** successes / trials; 0 when trials is 0. */
  value: number;
  low: number;
  high: number;
}

export interface CategoryCount {
  category: Category;
  count: number;
}

export interface KindCount {
  kind: BlockKind;
  count: number;
}

export interface FailureCount {
  failureClass: string;
  count: number;
}

// ---------------------------------------------------------------------------------------------------------
// sources.json

export interface SourcesFile {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  /** Sorted by id. */
  sources: SourceRecord[];
}

export interface SourceRecord {
  /** Matches SLUG_PATTERN (it appears in URLs). */
  id: string;
  kind: 'git' | 'distribution' | 'local';
  repository: string;
  commit?: string;
  release?: PackageRelease;
  /**
   * A checkout (git or local): whether pip can install it from its repository's top — a setup.py, or a
   * pyproject.toml with [project] or [build-system] (read as data at the sources stage). A block page offers
   * `pip install git+<url>@<commit>` only when true. Absent for an installed distribution and in older catalogs.
   */
  installable?: boolean;
  license: License;
  counts: {
    blocks: number;
    /** Blocks with a validation record. */
    validated: number;
    passed: number;
    failed: number;
    /** Validated blocks that only need a distribution installed; counted apart from `failed`. */
    blocked: number;
  };
  /** passed / (passed + failed) with a Wilson interval (blocked blocks are not attempts); null without attempts. */
  passRate: Proportion | null;
  /** Sorted by count descending, then category. */
  byCategory: CategoryCount[];
  /** Sorted by count descending, then failure class. */
  failureCauses: FailureCount[];
  /** Blocks unique at each level (representatives); absent when dedup did not run. */
  unique?: Record<DedupLevel, number>;
}

// ---------------------------------------------------------------------------------------------------------
// clusters.json

export interface ClustersFile {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  /** Groups with two or more members, sorted by level (DEDUP_LEVELS order) then id. */
  clusters: Cluster[];
}

export interface Cluster {
  /** The id referenced by DedupRecord.exactGroup / lexicalCluster / structuralCluster / archHash. */
  id: string;
  level: DedupLevel;
  /** Block id kept as the representative. */
  representative: string;
  /** Block ids, sorted. */
  members: string[];
}

// ---------------------------------------------------------------------------------------------------------
// stats.json

export interface StatsFile {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  blocks: number;
  sources: number;
  validation: {
    validated: number;
    passed: number;
    failed: number;
    /** Blocked blocks (a distribution not installed): neither passed nor failed. */
    blocked: number;
    /** passed / (passed + failed); null when nothing was attempted. Blocked blocks are not attempts. */
    passRate: Proportion | null;
  };
  /** Blocks unique at each level; absent when dedup did not run. */
  unique?: Record<DedupLevel, number>;
  /** Multi-label: blocks carrying each category (a block counts under each of its categories). */
  byCategory: CategoryCount[];
  /** Blocks per kind, BLOCK_KINDS order: network blocks, transforms, losses (they add up to `blocks`). */
  byKind: KindCount[];
  failureCauses: FailureCount[];
  /** NN-RAG table-4 layout: one row per level, cumulative from strictest to loosest. Empty without dedup. */
  dedupTable: DedupTableRow[];
  /** Per-repository figures, one row per source, sorted by source id. */
  perSource: SourceFigures[];
  /** Distributions that would unblock blocked blocks, most blocks first, then by name. Empty when none is blocked. */
  unblock: UnblockRow[];
}

export interface DedupTableRow {
  level: DedupLevel;
  /** What the level compares, e.g. `normalized source hash`, `token shingles (MinHash, J >= 0.9)`. */
  method: string;
  /** Blocks entering this level. */
  before: number;
  /** Blocks removed as duplicates at this level. */
  removed: number;
  /** Blocks remaining (unique) after this level. */
  after: number;
  /** after / total blocks, in [0, 1]. */
  uniqueShare: number;
}

// ---------------------------------------------------------------------------------------------------------
// build-info.json

export interface BuildInfo {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  /** ISO 8601 UTC; the only timestamp in the catalog. */
  builtAt: string;
  nnblocksVersion: string;
  /**
   * Config file the build ran with, relative to its project root (`content/corpus.json`; `corpus.json` for a config
   * outside a `content/` folder), posix: the block page's extract command passes it back (`--config`). Never a path
   * of the machine that built.
   */
  config?: string;
  /** The config's `name` ("shown on the site"): the site's home and stats pages say which corpus they show. */
  corpusName?: string;
  /** Wall time of the whole build. */
  durationMs?: number;
  /** Stages that ran, in order. */
  stages?: { stage: string; ms: number }[];
  /** e.g. `node v20.20.2`, `torch 2.6.0`. */
  tools?: { name: string; version: string }[];
  /** How upstream code ran during validation; absent when nothing was validated. */
  sandbox?: SandboxReport;
  /** What the blocks were validated with; absent when the build did not validate. */
  environment?: EnvironmentReport;
}

/**
 * The validation environment (build-info.json `environment`, the stats page): the interpreter, torch and CUDA, the
 * installed set as a count and a digest (the validation cache keys on it), the requirements installed for the
 * corpus and those that could not be. No path of the machine. See docs/config.md ("environment").
 */
export interface EnvironmentReport {
  /** `managed`: an environment nnblocks made (torch from pip); `named`: the interpreter the config or $NNBLOCKS_PYTHON named. */
  kind: 'managed' | 'named';
  /** Python version, `3.11.2`. */
  python: string;
  /** torch.__version__, `2.14.1+cu130`. */
  torch: string;
  torchvision: string | null;
  /** The CUDA version torch was built for (torch.version.cuda); null for a CPU build. */
  cuda: string | null;
  /** Distributions installed, base and requirements together. */
  packages: number;
  /** sha256 over their sorted `name==version` lines. */
  digest: string;
  /** Requirements installed for the corpus, with the version installed and who asked (`config`, source ids). */
  requirements: { name: string; version: string | null; from: string[] }[];
  /** Requirements that could not be installed, with why. */
  missing: { name: string; spec: string; from: string[]; reason: string }[];
}

/**
 * How upstream code ran: measured inside the sandbox by the runner (uid, capabilities, no_new_privs, seccomp from
 * /proc/self/status), not assumed from the command line. See docs/validate.md ("Sandbox").
 */
export interface SandboxReport {
  /** false only with --no-sandbox: upstream code ran unconfined, as the user running nnblocks. */
  enabled: boolean;
  /** uid and gid upstream code ran as, as it saw them (65534 inside the sandbox). */
  uid: number;
  gid: number;
  /** Host uid of the sandbox's processes: 65534 when nnblocks runs as root, the user's own uid otherwise. */
  hostUid: number;
  /** Effective capabilities upstream code had, as the CapEff hex mask; `0000000000000000` when all were dropped. */
  capEff: string;
  noNewPrivs: boolean;
  /** Whether the syscall filter (ptrace, pidfd_getfd, process_vm_*, mount, keyctl, bpf, userfaultfd...) was on. */
  seccomp: boolean;
  /** Device blocks ran on (cpu or cuda). */
  device: string;
  /** Size cap of each block's private /tmp, in bytes; null without a sandbox. */
  tmpBytes: number | null;
  /** Compiled op libraries of installed distributions loaded before blocks ran (`torchvision/_C...so`). */
  nativeLibraries?: string[];
}

/** A block's status as listings, the API and the change feed name it. */
export type BlockStatus = 'passed' | 'failed' | 'blocked' | 'unvalidated';

/**
 * What listings, links, `/api/catalog.json` and the change feed know about every block (~200 bytes each): the one
 * summary of a block, made by `blockSummary` only.
 */
export interface BlockSummary {
  slug: string;
  id: string;
  name: string;
  module: string;
  sourceId: string;
  kind: BlockKind;
  categories: Category[];
  status: BlockStatus;
  /** Parameter count of a block that passed, at the test configuration; null otherwise (a failed build has none). */
  params: number | null;
  /** SPDX id. */
  license: string;
}

export function blockSummary(spec: BlockSpec): BlockSummary {
  return {
    slug: spec.slug,
    id: spec.id,
    name: spec.name,
    module: spec.module,
    sourceId: spec.sourceId,
    kind: spec.kind,
    categories: spec.categories,
    status: spec.validation?.status ?? 'unvalidated',
    params: spec.validation?.status === 'passed' ? (spec.validation.params ?? null) : null,
    license: spec.provenance.license.spdx,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Blocked blocks and per-repository figures

/**
 * A top-level module a blocked block imports (from the runner's `missing-dependency` record, so hostile text):
 * an ASCII identifier. The runner's record check and the schema hold it to this.
 */
export const MODULE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}$';

/** A distribution name as PEP 508 allows it (`opencv-python`, `PyYAML`, `scikit-image`). */
export const DISTRIBUTION_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$';

const MODULE_NAME = new RegExp(MODULE_NAME_PATTERN);
const DISTRIBUTION = new RegExp(DISTRIBUTION_PATTERN);
export const isModuleName = (v: unknown): v is string => typeof v === 'string' && MODULE_NAME.test(v);
export const isDistributionName = (v: unknown): v is string => typeof v === 'string' && DISTRIBUTION.test(v);

/** What a blocked block needs: install `distribution` (pip's name) to make `import module` work. */
export interface BlockedBy {
  distribution: string;
  module: string;
  /** false when nnblocks' module table did not know the module and assumed the distribution shares its name. */
  known: boolean;
}

/** One row of "distributions that would unblock N blocks". */
export interface UnblockRow {
  /** The distribution; with `known: false`, the module's own name: no known distribution provides it. */
  distribution: string;
  /**
   * false when no known distribution provides the module (the module table, the corpus's declared requirements and
   * the environment's know none): the site lists it as a module to check, never as a package to install. Absent in
   * older catalogs (read as true).
   */
  known?: boolean;
  /** Top-level modules the blocks import from it, sorted. */
  modules: string[];
  /** Blocked blocks that need it. */
  blocks: number;
  /** Of those, the blocks it alone would unblock (they need nothing else missing). */
  alone: number;
}

/**
 * One source's figures (stats.json `perSource`): from files to passing blocks, side by side with the NN-RAG paper's
 * count for the same repository when the paper gives one. Counts of stages that did not run are absent.
 */
export interface SourceFigures {
  sourceId: string;
  repository: string;
  /** Python files indexed (after include/exclude and the size cap). */
  files: number;
  /** Blocks in the catalog (concrete `nn.Module` subclasses). */
  blocks: number;
  /** Abstract blocks (no concrete forward), found but not in the catalog; absent when not recorded. */
  abstract?: number;
  /** Blocks assembled into a single module; absent when not recorded. */
  extracted?: number;
  /** Blocks with a validation record. */
  validated: number;
  /** Blocks whose import stage passed (their upstream packages refused). */
  importOk: number;
  passed: number;
  blocked: number;
  /** Blocked blocks per distribution they need, most first, then by name. */
  blockedBy: { distribution: string; count: number }[];
  failed: number;
  /** Failed blocks by class, most first, then by class. */
  failedByClass: FailureCount[];
  /** passed / (passed + failed) with its 95% Wilson interval; blocked blocks are not attempts. Null without any. */
  passRate: Proportion | null;
  /** The paper's block count for this repository (its Fig. 2), matched by repository URL; null when it has none. */
  paper: { repository: string; blocks: number } | null;
}

// ---------------------------------------------------------------------------------------------------------
// Used by: where the corpus builds a block, as neutral facts (names, paths, lines, literal values)

/** Entries per block (the first by source, path and line), and arguments per entry. */
export const USED_BY_LIMITS = { entries: 50, args: 16 } as const;

/**
 * How the user builds the block: `call` (`Bottleneck(64, 64)`, also through an alias or a module), `partial`
 * (`partial(Bottleneck, ...)`), `registry` (a dict of classes, or a config dict naming a registered class),
 * `super` (a subclass's `super().__init__(...)`), `parameter` (a parameter the block is passed to is called:
 * `block(...)`), `variable` (a local bound to it is called), `reference` (passed where a callable goes:
 * `block=Bottleneck`), `builder` (a function returning a new one: `resnet50`).
 */
export const USED_BY_VIA = [
  'call',
  'partial',
  'registry',
  'super',
  'parameter',
  'variable',
  'reference',
  'builder',
] as const;
export type UsedByVia = (typeof USED_BY_VIA)[number];

export interface UsedBy {
  /** `block`: a method or the body of another block; `function`: any other function or method; `module`: module code. */
  kind: 'block' | 'function' | 'module';
  /** Qualified name of the user: `torchvision.models.resnet.ResNet._make_layer`, `torchvision.models.resnet.resnet50`. */
  name: string;
  /** The user's block id when `kind` is `block`: the site links to its page when it is in the catalog. */
  blockId?: string;
  sourceId: string;
  /** Path relative to the source root. */
  path: string;
  /** 1-based line of the site (of the `def` line or its first decorator for a builder). */
  line: number;
  /** The upstream file at that line, pinned like the provenance permalink. */
  permalink: string;
  via: UsedByVia;
  /** A builder callable with no arguments (every parameter has a default). */
  zeroArg?: boolean;
  /** The literal arguments and the classes or functions passed; other arguments are left out (never their text). */
  args: UsedByArg[];
}

export interface UsedByArg {
  /** Keyword name; absent for a positional argument. */
  name?: string;
  /** 0-based position of a positional argument. */
  position?: number;
  /** A literal value (capped like a recipe's: RUN_LIMITS). Exactly one of `value` and `ref` is set. */
  value?: LiteralValue;
  /** A class or function passed, by qualified name (TYPE_NAME_PATTERN): `torchvision.models.resnet.Bottleneck`. */
  ref?: string;
}

// ---------------------------------------------------------------------------------------------------------
// methods.json: the taxonomy's methods with the blocks that implement them, and the papers they cite.

export interface MethodsFile {
  formatVersion: typeof CATALOG_FORMAT_VERSION;
  /** Every method of the taxonomy, sorted by slug; `members` may be empty (no implementation in this corpus). */
  methods: MethodRecord[];
  /** Every paper a method or a block names that the taxonomy describes, sorted by id. */
  papers: PaperRecord[];
}

export interface MethodRecord {
  /** Matches SLUG_PATTERN: `/methods/<slug>/`. */
  slug: string;
  name: string;
  /** One sentence, written in the taxonomy file (ours, not upstream text). */
  summary: string;
  categories: Category[];
  /** Synonyms search expands to this method ("SE", "MHA", "drop path"). */
  aliases: string[];
  /** Paper ids (`arxiv:1709.01507`), introducing paper first. */
  papers: string[];
  /** Blocks implementing it, sorted by block id, with the rule that matched. */
  members: { blockId: string; rule: string }[];
}

export interface PaperRecord {
  /** `arxiv:<id>` or `doi:<doi>`. */
  id: string;
  arxiv?: string;
  doi?: string;
  title: string;
  authors: string[];
  year: number;
  /** Derived from the fields above (`@misc` with `eprint` for arXiv, `@article` with `doi` otherwise). */
  bibtex: string;
}
