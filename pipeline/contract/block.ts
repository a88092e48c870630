// One block's neutral spec, `blocks/<slug>.json` (schemas/catalog/block.schema.json): facts only — no upstream
// function bodies, docstrings or comments; names, annotation and default *text*, shapes, counts, hashes. Upstream
// strings are data: consumers render them as escaped text. Fields of stages that did not run are absent, never faked
// (`validation`, `dedup`). Anything keyed by an upstream name is a list of records, never an object keyed by that
// name (`__proto__` or `constructor` must survive every JSON consumer).
import { COMPOSITION, DEPENDENCIES, INTERFACE, MODULE_TREE } from './block-facts.ts';
import { common } from './common.ts';
import { CITATION, PROVENANCE } from './provenance.ts';
import { Const, Enum, OrNull, schemaFile, Type, type Static } from './schema.ts';
import { USED_BY } from './used-by.ts';
import { VALIDATION } from './validation.ts';
import { CATEGORIES, INTRODUCING_EVIDENCE, PAPER_EVIDENCE, PAPER_ROLES } from './vocabulary.ts';

/** One category rule that fired on a block (`name:attention`, `method:squeeze-and-excitation`). */
const categoryHit = Type.Object(
  { category: common.ref.category(), rule: common.ref.nonEmpty() },
  { additionalProperties: false },
);

/**
 * A taxonomy method (docs/taxonomy.md) the block implements, and the rule that matched: `name`, `base`, `module`,
 * `composition` (layers, children), `structure` (forward data flow, roles of the children), each with the rule's
 * index in the method's list (`name#0`), or `cluster:<level>` when the block sits in a de-duplication cluster with a
 * matched one.
 */
const methodHit = Type.Object(
  {
    slug: common.ref.slug(),
    rule: Type.String({ pattern: '^((name|base|module|composition|structure)#\\d+|cluster:exact)$' }),
  },
  { additionalProperties: false },
);

/**
 * A paper a block's code or the taxonomy names: exactly one of `arxiv` or `doi`; where the fact came from —
 * `source` (the id is written in the block's class or in the docstring of a model builder beside it; only the id is
 * published, never the text) and/or `taxonomy` (a method the block implements names the paper); and what kind of
 * citation it is. `role` `introduced`: the block is an implementation of the paper (a class docstring's description,
 * a builder's docstring, a method's introducing paper: "Introduced in"); `mentioned`: the id appears only in a
 * comment, a method's docstring or a parameter's documentation — a detail cites it (ResNet's `zero_init_residual`
 * comment names Goyal et al.), the block is not from it ("Also cited"). `evidence`: every kind of place it was
 * found (PAPER_EVIDENCE). Both absent in catalogs built before them, whose papers all read as introduced. Titles
 * and BibTeX live in `methods.json` `papers`.
 */
const paperRef = Type.Object(
  {
    /** `arxiv:<id>` or `doi:<doi>`: the key of the paper in methods.json `papers` when the taxonomy knows it. */
    id: common.ref.paperId(),
    arxiv: Type.Optional(common.ref.arxivId()),
    doi: Type.Optional(common.ref.doi()),
    from: Type.Array(Enum(['source', 'taxonomy']), { minItems: 1, maxItems: 2, uniqueItems: true }),
    role: Type.Optional(Enum(PAPER_ROLES)),
    evidence: Type.Optional(
      Type.Array(Enum(PAPER_EVIDENCE), { minItems: 1, maxItems: PAPER_EVIDENCE.length, uniqueItems: true }),
    ),
  },
  {
    additionalProperties: false,
    oneOf: [{ required: ['arxiv'] }, { required: ['doi'] }],
    dependencies: { role: ['evidence'], evidence: ['role'] },
    allOf: [
      {
        description: 'A mention has only `comment` evidence; an introduction has at least one introducing kind.',
        if: { required: ['role'], properties: { role: Const('mentioned') } },
        then: { properties: { evidence: { type: 'array', items: Const('comment') } } },
        else: { properties: { evidence: { type: 'array', contains: Enum(INTRODUCING_EVIDENCE) } } },
      },
    ],
  },
);

const dedup = Type.Object(
  {
    /** Group of byte-identical (after normalization) definitions; null when alone. */
    exactGroup: OrNull(Type.String()),
    lexicalCluster: OrNull(Type.String()),
    structuralCluster: OrNull(Type.String()),
    /** Hash of the instantiated layer graph; null when validation did not construct the module. */
    archHash: OrNull(Type.String()),
    /** Most similar other blocks, highest similarity first (ties by id), at most 10; similarity in [0, 1]. */
    nearest: Type.Array(
      Type.Object({ id: common.ref.nonEmpty(), similarity: common.ref.unit() }, { additionalProperties: false }),
      { maxItems: 10 },
    ),
    /** Whether this block is the representative (or only member) of its group at each level. */
    unique: Type.Object(
      { exact: Type.Boolean(), lexical: Type.Boolean(), structural: Type.Boolean(), architecture: Type.Boolean() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const block = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    /**
     * Stable, unique across the catalog: `<sourceId>:<module>.<qualname>`, e.g. `torchvision:torchvision.ops.misc.MLP`.
     */
    id: common.ref.nonEmpty(),
    /** URL and file name (`blocks/<slug>.json`); matches SLUG_PATTERN; unique. */
    slug: common.ref.slug(),
    /** The class name as written upstream (may be anything Python allows, `__proto__` included). */
    name: common.ref.nonEmpty(),
    /** Python `__qualname__`, e.g. `SwinTransformerBlock` or `Outer.Inner`. */
    qualname: common.ref.nonEmpty(),
    /** Dotted module, e.g. `torchvision.models.swin_transformer`. */
    module: common.ref.nonEmpty(),
    sourceId: common.ref.slug(),
    /** Network block, data transform or loss (format 2; docs/catalog.md "Kinds"). */
    kind: common.ref.kind(),
    /** Id of the kind rule that decided it (`module:transforms`, `base:loss`, `default`). */
    kindRule: common.ref.nonEmpty(),
    /** One or more, in the order their first rule fired; `other` only alone (format 2 replaces `category`). */
    categories: Type.Array(common.ref.category(), { minItems: 1, maxItems: CATEGORIES.length, uniqueItems: true }),
    /** Every category rule that fired, in rule order. */
    categoryRules: Type.Array(categoryHit, { minItems: 1, maxItems: 64 }),
    /** Taxonomy methods the block implements (docs/taxonomy.md), sorted by slug; absent when none. */
    methods: Type.Optional(Type.Array(methodHit, { maxItems: 64 })),
    /** Papers the block's code or the taxonomy names (introduced in, or mentioned), sorted by id; absent when none. */
    papers: Type.Optional(Type.Array(paperRef, { maxItems: 24 })),
    interface: INTERFACE,
    composition: COMPOSITION,
    dependencies: DEPENDENCIES,
    /** Absent when validation did not run for this block. */
    validation: Type.Optional(VALIDATION),
    /** Absent when de-duplication did not run. */
    dedup: Type.Optional(dedup),
    /**
     * Where the corpus builds this block (usage mining, docs/usage.md): other blocks, builder functions and module
     * code, by source, path and line, at most USED_BY_LIMITS.entries. Absent in catalogs built before it.
     */
    usedBy: Type.Optional(USED_BY),
    provenance: PROVENANCE,
    citation: CITATION,
    /** Problems recorded for this block by any stage, ordered by stage then code. */
    diagnostics: Type.Array(common.ref.diagnostic()),
  },
  { additionalProperties: false },
);

/** schemas/catalog/block.schema.json. */
export const BLOCK_SCHEMA = schemaFile(
  'catalog/block.schema.json',
  {
    title: "nnblocks catalog: one block's neutral spec (blocks/<slug>.json)",
    description:
      'Facts only: no upstream function bodies, docstrings or comments. See pipeline/contract/block.ts (BlockSpec).',
  },
  block,
  { moduleTree: MODULE_TREE },
);

export type BlockSpec = Static<typeof block>;
export type CategoryHit = Static<typeof categoryHit>;
export type MethodHit = Static<typeof methodHit>;
export type PaperRef = Static<typeof paperRef>;
export type DedupRecord = Static<typeof dedup>;
