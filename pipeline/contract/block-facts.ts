// A block's facts as read from its code and its built module (block.schema.json `interface`, `composition`,
// `dependencies`): signatures as text, the layer composition and module tree, what the assembled block holds.
import { common } from './common.ts';
import { TREE_CHILD_NAME_PATTERN } from './rules.ts';
import { Enum, OneOf, Type, Typed, type Static } from './schema.ts';
import { MODULE_TREE_LIMITS, RUN_LIMITS } from './vocabulary.ts';

export const INTERFACE = Type.Object(
  {
    /** `__init__` parameters without `self`, in declaration order; the inherited signature when not overridden. */
    constructorParams: Type.Array(common.ref.param()),
    /** `forward`; null when neither the class nor a known base defines one. */
    forward: OneOf([
      Type.Null(),
      Type.Object(
        {
          /** Without `self`, in declaration order. */
          params: Type.Array(common.ref.param()),
          /** Return annotation source text. */
          returns: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ]),
    /** Base-class chain, nearest first, fully qualified (`torch.nn.Module` for external bases). */
    bases: Type.Array(common.ref.nonEmpty()),
    /** Names of methods defined directly in the class body, in source order. */
    methods: Type.Array(common.ref.nonEmpty()),
  },
  { additionalProperties: false },
);

/** A built module tree node: the tree under `composition.tree`, capped breadth first at MODULE_TREE_LIMITS. */
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

/** block.schema.json's own `moduleTree` definition: recursive, so its type is stated above. */
export const MODULE_TREE = Type.Object(
  {
    name: Type.Optional(Type.String({ pattern: TREE_CHILD_NAME_PATTERN })),
    type: common.ref.typeName(),
    params: Type.Integer({ minimum: 0 }),
    children: Type.Array(Typed<ModuleTreeSpec>({ $ref: '#/definitions/moduleTree' }), {
      maxItems: MODULE_TREE_LIMITS.nodes - 1,
    }),
    truncated: Type.Optional(Typed<true>({ const: true })),
  },
  {
    additionalProperties: false,
    description: 'composition.tree: the built module tree, capped (MODULE_TREE_LIMITS in vocabulary.ts)',
  },
);

export const COMPOSITION = Type.Object(
  {
    /** Sorted by type. Empty when nothing is known. */
    layers: Type.Array(
      Type.Object(
        {
          /** Fully qualified layer type, e.g. `torch.nn.Linear`. */
          type: common.ref.typeName(),
          count: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: RUN_LIMITS.layerTypes },
    ),
    /** `validation`: counted on the instantiated module; `static`: read from `__init__` assignments. */
    from: Enum(['validation', 'static']),
    /**
     * The module tree the validation run built (`named_children()`, registration order), capped breadth first at
     * MODULE_TREE_LIMITS (pipeline/catalog/module-tree.ts). Absent when the block never built, and in older catalogs.
     */
    tree: Type.Optional(Typed<ModuleTreeSpec>({ $ref: '#/definitions/moduleTree' })),
  },
  { additionalProperties: false },
);

/** Why another source's code in a block deserves a warning (pipeline/catalog/license-mix.ts has the rule). */
export const LICENSE_FLAGS = ['copyleft', 'non-commercial', 'unknown'] as const;
export type LicenseFlag = (typeof LICENSE_FLAGS)[number];

const internalDependency = Type.Object(
  {
    /** Qualified name inside its module, e.g. `_get_relative_position_bias`. */
    qualname: common.ref.nonEmpty(),
    module: common.ref.nonEmpty(),
    /** Path relative to the source root. */
    path: common.ref.nonEmpty(),
    /** 1-based inclusive line range. */
    lines: common.ref.lines(),
    /** Source the definition comes from: the block's own or another of the corpus (absent in older catalogs: own). */
    source: Type.Optional(common.ref.slug()),
  },
  { additionalProperties: false },
);

const dependencySource = Type.Object(
  {
    id: common.ref.slug(),
    /** SPDX id of the source's license, `NOASSERTION` when none was found. */
    license: common.ref.nonEmpty(),
    /** Set on another source whose license does not mix freely into the block's own. */
    flag: Type.Optional(Enum(LICENSE_FLAGS)),
  },
  { additionalProperties: false },
);

export const DEPENDENCIES = Type.Object(
  {
    /** Definitions the block needs from its own source and others of the corpus, sorted by module then qualname. */
    internal: Type.Array(internalDependency),
    /**
     * Sources whose code the assembled block holds, its own first, each with its license (absent in older catalogs).
     */
    sources: Type.Optional(
      Type.Array(dependencySource, {
        description:
          'Sources whose code the assembled block holds, its own first, each with its license; flag: a licence mix worth a warning.',
        minItems: 1,
      }),
    ),
    /** Required distributions, sorted by name; version as installed when validated, else the pinned one. */
    distributions: Type.Array(
      Type.Object({ name: common.ref.nonEmpty(), version: common.ref.nonEmpty() }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export type BlockInterface = Static<typeof INTERFACE>;
export type Composition = Static<typeof COMPOSITION>;
export type InternalDependency = Static<typeof internalDependency>;
export type DependencySource = Static<typeof dependencySource>;
