// The change feed, `changes.json` (schemas/catalog/changes.schema.json): what changed since the previously
// published catalog, block by block and source by source. Lists only, never objects keyed by upstream names.
import { common } from './common.ts';
import { Const, Enum, OneOf, refs, schemaFile, Type, Typed, type Static } from './schema.ts';

export const CHANGES_FORMAT_VERSION = 1;

/** The facts compared, in the order they are reported. */
export const CHANGED_FIELDS = [
  'slug',
  'name',
  'category',
  'interface.constructorParams',
  'interface.forward',
  'interface.bases',
  'interface.methods',
  'validation.status',
  'validation.params',
  'validation.outputs',
  'dedup.exactGroup',
  'dedup.lexicalCluster',
  'dedup.structuralCluster',
  'dedup.archHash',
  'license',
] as const;
export type ChangedField = (typeof CHANGED_FIELDS)[number];

export const CHANGE_KINDS = ['new', 'removed', 'moved', 'changed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' });

/** How a block is named in a change: enough to link it and to find it upstream. */
const blockRef = Type.Object(
  {
    id: common.ref.nonEmpty(),
    slug: common.ref.slug(),
    name: common.ref.nonEmpty(),
    sourceId: common.ref.nonEmpty(),
    /** Absent when the snapshot had only a summary. */
    path: Type.Optional(Type.String()),
    lines: Type.Optional(common.ref.lines()),
  },
  { additionalProperties: false },
);

/** One fact that differs, with both values rendered as short text (signatures, `failed: timeout`, hashes). */
const fieldChange = Type.Object(
  { field: Enum(CHANGED_FIELDS), before: Type.String(), after: Type.String() },
  { additionalProperties: false },
);

/** The upstream pin of a source: a commit for checkouts, a distribution version (and tag) for releases. */
const pin = Type.Object(
  {
    commit: Type.Optional(Type.String({ pattern: '^[0-9a-f]{7,64}$' })),
    version: Type.Optional(common.ref.nonEmpty()),
    tag: Type.Optional(common.ref.nonEmpty()),
  },
  { additionalProperties: false },
);

const leaves = { timestamp, blockRef, fieldChange, pin };
const leaf = refs('#/definitions/', leaves);
const fields = Type.Array(leaf.fieldChange());

/** How a move was recognised: same id with a new path, same file blob and line range, or same exact-duplicate group. */
const MOVE_EVIDENCE = ['id', 'blob', 'exact-group'] as const;
export type MoveEvidence = (typeof MOVE_EVIDENCE)[number];

type BlockRefRecord = Static<typeof blockRef>;
const blockChange = OneOf([
  // One schema for both kinds; two members in TypeScript, so that a test of `kind` narrows to one of them.
  Typed<{ kind: 'new'; block: BlockRefRecord } | { kind: 'removed'; block: BlockRefRecord }>(
    Type.Object({ kind: Enum(['new', 'removed']), block: leaf.blockRef() }, { additionalProperties: false }),
  ),
  Type.Object(
    {
      kind: Const('moved'),
      from: leaf.blockRef(),
      block: leaf.blockRef(),
      matchedBy: Enum(MOVE_EVIDENCE),
      fields: Typed<Static<typeof fields>>({ $ref: '#/definitions/fields' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Const('changed'),
      block: leaf.blockRef(),
      fields: Typed<Static<typeof fields>>({
        allOf: [{ $ref: '#/definitions/fields' }, { type: 'array', minItems: 1 }],
      }),
    },
    { additionalProperties: false },
  ),
]);

const sourceChange = Type.Object(
  {
    sourceId: common.ref.slug(),
    /** `bumped`: same source, new commit or version. */
    kind: Enum(['added', 'removed', 'bumped']),
    before: Type.Optional(leaf.pin()),
    after: Type.Optional(leaf.pin()),
    /** Blocks of this source before and after (0 on the side where it is absent). */
    blocks: Type.Object({ before: common.ref.count(), after: common.ref.count() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const definitions = { ...leaves, fields, blockChange, sourceChange };
const local = refs('#/definitions/', definitions);

const changeFeed = Type.Object(
  {
    formatVersion: Const(CHANGES_FORMAT_VERSION),
    /** The current catalog's build-info `builtAt`: the feed adds no timestamp of its own. */
    generatedAt: local.timestamp(),
    /** null when there was no previous catalog (first build, or it could not be read: see diagnostics). */
    previous: OneOf([
      Type.Null(),
      Type.Object(
        { origin: common.ref.nonEmpty(), builtAt: Type.Optional(local.timestamp()), blocks: common.ref.count() },
        { additionalProperties: false },
      ),
    ]),
    current: Type.Object({ blocks: common.ref.count() }, { additionalProperties: false }),
    summary: Type.Object(
      {
        new: common.ref.count(),
        removed: common.ref.count(),
        moved: common.ref.count(),
        changed: common.ref.count(),
        upstream: common.ref.count(),
      },
      { additionalProperties: false },
    ),
    /** Sorted by source id. */
    upstream: Type.Array(local.sourceChange()),
    /** Sorted by kind (CHANGE_KINDS order), then block id. Empty when `previous` is null. */
    changes: Type.Array(local.blockChange()),
    /** Problems reading the previous catalog (stage `feed`); never fatal. */
    diagnostics: Type.Array(common.ref.diagnostic()),
  },
  { additionalProperties: false },
);

/** schemas/catalog/changes.schema.json. */
export const CHANGES_SCHEMA = schemaFile(
  'catalog/changes.schema.json',
  {
    title: 'nnblocks catalog: changes.json',
    description: 'What changed since the previous published catalog. See pipeline/contract/changes.ts (ChangeFeed).',
  },
  changeFeed,
  definitions,
);

export type ChangeFeed = Static<typeof changeFeed>;
export type BlockRef = Static<typeof blockRef>;
export type FieldChange = Static<typeof fieldChange>;
export type UpstreamPin = Static<typeof pin>;
export type SourceChange = Static<typeof sourceChange>;
export type BlockChange = Static<typeof blockChange>;
