// The catalog's fixed vocabularies and caps: the names a published value may take (categories, kinds, levels,
// dtypes, recipe origins) and the sizes a sandboxed run may report. The schemas enumerate these lists, the site
// labels them, the stages produce them: each list is written here only.

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
 * How a block's code or the taxonomy names a paper (`papers[].evidence`, docs/taxonomy.md "Papers of a block"):
 * `docstring` the class docstring's description says what the block is from (`"""SE block from <paper>"""`);
 * `builder` a model builder beside the class says so in its docstring (torchvision's `resnet50`: "ResNet-50 from
 * <paper>"); `taxonomy` the introducing paper of a method the block implements; `comment` anywhere else in the class
 * — a comment about a detail, a method's docstring, a parameter's documentation. The first three introduce the
 * block (`role: introduced`); `comment` alone is a mention (`role: mentioned`).
 */
export const PAPER_EVIDENCE = ['docstring', 'builder', 'taxonomy', 'comment'] as const;
export type PaperEvidence = (typeof PAPER_EVIDENCE)[number];
/** The evidence that makes a paper the block's origin ("Introduced in"); the rest is a mention ("Also cited"). */
export const INTRODUCING_EVIDENCE: readonly PaperEvidence[] = ['docstring', 'builder', 'taxonomy'];
export const PAPER_ROLES = ['introduced', 'mentioned'] as const;

/**
 * What a class is: a network `block`, a data `transform` (augmentation, preprocessing) or a `loss`. Decided by the
 * documented rules in pipeline/catalog/kind.ts (docs/catalog.md "Kinds"); transforms and losses are listed apart.
 */
export const BLOCK_KINDS = ['block', 'transform', 'loss'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];
/** Human labels for kinds (site listings). */
export const KIND_LABELS: ReadonlyMap<BlockKind, string> = new Map<BlockKind, string>([
  ['block', 'Network blocks'],
  ['transform', 'Data transforms'],
  ['loss', 'Losses'],
]);

/** How a parameter binds: Python's five kinds (PEP 570 positional-only through `**kwargs`). */
export const PARAM_KINDS = ['positional-only', 'positional', 'var-positional', 'keyword-only', 'var-keyword'] as const;
export type ParamKind = (typeof PARAM_KINDS)[number];

/** De-duplication levels, from strictest to loosest. */
export const DEDUP_LEVELS = ['exact', 'lexical', 'structural', 'architecture'] as const;
export type DedupLevel = (typeof DEDUP_LEVELS)[number];

/** Where a recipe comes from (docs/validate.md, "Recipes"), in the order they are tried. */
export const RECIPE_ORIGINS = ['override', 'builder', 'usage', 'inference', 'instance', 'part'] as const;

/** Parameter roles a ParamSpec may carry, inferred from names (pipeline/catalog/param-roles.ts). */
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

/** Caps on a published module tree: nodes in all (the root included), and levels below the root. */
export const MODULE_TREE_LIMITS = { nodes: 200, depth: 6 } as const;

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
