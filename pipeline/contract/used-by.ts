// Where the corpus builds a block (block.schema.json `usedBy`, usage mining: docs/usage.md), as neutral facts:
// names, paths, lines and literal values, never the text of the code that does it.
import { common } from './common.ts';
import { KWARG_NAME_PATTERN } from './rules.ts';
import { Enum, Type, type Static } from './schema.ts';
import { USED_BY_LIMITS, USED_BY_VIA } from './vocabulary.ts';

const arg = Type.Object(
  {
    /** Keyword name; absent for a positional argument. */
    name: Type.Optional(Type.String({ pattern: KWARG_NAME_PATTERN })),
    /** 0-based position of a positional argument. */
    position: Type.Optional(Type.Integer({ minimum: 0 })),
    /** A literal value (capped like a recipe's: RUN_LIMITS). Exactly one of `value` and `ref` is set. */
    value: Type.Optional(common.ref.recipeLiteral()),
    /** A class or function passed, by qualified name (TYPE_NAME_PATTERN): `torchvision.models.resnet.Bottleneck`. */
    ref: Type.Optional(common.ref.typeName()),
  },
  {
    additionalProperties: false,
    oneOf: [
      { required: ['name'], not: { required: ['position'] } },
      { required: ['position'], not: { required: ['name'] } },
    ],
    anyOf: [
      { required: ['value'], not: { required: ['ref'] } },
      { required: ['ref'], not: { required: ['value'] } },
    ],
  },
);

const usedBy = Type.Object(
  {
    /**
     * `block`: a method or the body of another block; `function`: any other function or method; `module`: module code.
     */
    kind: Enum(['block', 'function', 'module']),
    /**
     * Qualified name of the user: `torchvision.models.resnet.ResNet._make_layer`, `torchvision.models.resnet.resnet50`.
     */
    name: common.ref.typeName(),
    /** The user's block id when `kind` is `block`: the site links to its page when it is in the catalog. */
    blockId: Type.Optional(common.ref.nonEmpty()),
    sourceId: common.ref.slug(),
    /** Path relative to the source root. */
    path: common.ref.nonEmpty(),
    /** 1-based line of the site (of the `def` line or its first decorator for a builder). */
    line: Type.Integer({ minimum: 1 }),
    /** The upstream file at that line, pinned like the provenance permalink. */
    permalink: common.ref.nonEmpty(),
    via: Enum(USED_BY_VIA),
    /** A builder callable with no arguments (every parameter has a default). */
    zeroArg: Type.Optional(Type.Boolean()),
    /** The literal arguments and the classes or functions passed; other arguments are left out (never their text). */
    args: Type.Array(arg, { maxItems: USED_BY_LIMITS.args }),
  },
  { additionalProperties: false },
);

/** At most USED_BY_LIMITS.entries, the first by source, path and line. */
export const USED_BY = Type.Array(usedBy, {
  description: `Where the corpus builds this block: other blocks, builder functions and module code (usage mining, docs/usage.md). Names, paths, lines and literal values only; at most ${USED_BY_LIMITS.entries} (USED_BY_LIMITS in vocabulary.ts).`,
  maxItems: USED_BY_LIMITS.entries,
});

export type UsedBy = Static<typeof usedBy>;
export type UsedByArg = Static<typeof arg>;
