// `methods.json` (schemas/catalog/methods.schema.json): the taxonomy's methods (docs/taxonomy.md) with the blocks
// that implement them, and the papers they cite.
import { common } from './common.ts';
import { schemaFile, Type, type Static } from './schema.ts';

const method = Type.Object(
  {
    /** Matches SLUG_PATTERN: `/methods/<slug>/`. */
    slug: common.ref.slug(),
    name: common.ref.nonEmpty(),
    /** One sentence, written in the taxonomy file (ours, not upstream text). */
    summary: common.ref.nonEmpty(),
    categories: Type.Array(common.ref.category()),
    /** Synonyms search expands to this method ("SE", "MHA", "drop path"). */
    aliases: Type.Array(common.ref.nonEmpty()),
    /** Paper ids (`arxiv:1709.01507`), introducing paper first. */
    papers: Type.Array(common.ref.paperId()),
    /** Blocks implementing it, sorted by block id, with the rule that matched. */
    members: Type.Array(
      Type.Object({ blockId: common.ref.nonEmpty(), rule: common.ref.nonEmpty() }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

const paper = Type.Object(
  {
    /** `arxiv:<id>` or `doi:<doi>`. */
    id: common.ref.paperId(),
    arxiv: Type.Optional(common.ref.arxivId()),
    doi: Type.Optional(common.ref.doi()),
    title: common.ref.nonEmpty(),
    authors: Type.Array(common.ref.nonEmpty(), { minItems: 1 }),
    year: Type.Integer({ minimum: 1950, maximum: 2100 }),
    /** Derived from the fields above (`@misc` with `eprint` for arXiv, `@article` with `doi` otherwise). */
    bibtex: common.ref.nonEmpty(),
  },
  { additionalProperties: false },
);

const methodsFile = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    /** Every method of the taxonomy, sorted by slug; `members` may be empty (no implementation in this corpus). */
    methods: Type.Array(method),
    /** Every paper a method or a block names that the taxonomy describes, sorted by id. */
    papers: Type.Array(paper),
  },
  { additionalProperties: false },
);

/** schemas/catalog/methods.schema.json. */
export const METHODS_SCHEMA = schemaFile(
  'catalog/methods.schema.json',
  {
    title: 'nnblocks catalog: methods.json',
    description:
      "The taxonomy's methods, the blocks that implement them and the papers they cite. See pipeline/contract/methods.ts (MethodsFile) and docs/taxonomy.md.",
  },
  methodsFile,
);

export type MethodsFile = Static<typeof methodsFile>;
export type MethodRecord = Static<typeof method>;
export type PaperRecord = Static<typeof paper>;
