// Types of the change feed: what a catalog snapshot holds, and `content/catalog/changes.json` (schema:
// schemas/catalog/changes.schema.json). Lists only, never objects keyed by upstream names (`__proto__`).
import type { BlockSpec, BlockStatus, BlockSummary, SourceRecord } from '../catalog/contract.ts';
import type { Diagnostic } from '../diagnostics.ts';

export const CHANGES_FORMAT_VERSION = 1;

export type { BlockStatus };

/**
 * One block of a snapshot. A catalog directory always gives the full spec; a published `/api/catalog.json`
 * gives a summary, and the spec only when the block's own JSON could also be fetched. The diff compares
 * only the facts both sides have.
 */
export interface SnapshotBlock extends Omit<BlockSummary, 'module' | 'kind' | 'categories'> {
  /** Absent in summaries of catalogs published before it was listed. */
  module?: string;
  /** The block's categories as published, joined by `, ` (format 2 is multi-label); compared as one fact. */
  category: string;
  spec?: BlockSpec;
}

export interface CatalogSnapshot {
  /** Where it was read from, exactly as given (a directory, a file or a URL): recorded in changes.json. */
  origin: string;
  /** build-info.json's `builtAt`; absent when the snapshot has none (an API listing does not carry it). */
  builtAt?: string;
  blocks: SnapshotBlock[];
  sources: SourceRecord[];
}

/** How a block is named in a change: enough to link it and to find it upstream. */
export interface BlockRef {
  id: string;
  slug: string;
  name: string;
  sourceId: string;
  /** Absent when the snapshot had only a summary. */
  path?: string;
  lines?: [number, number];
}

/** One fact that differs, with both values rendered as short text (signatures, `failed: timeout`, hashes). */
export interface FieldChange {
  field: ChangedField;
  before: string;
  after: string;
}

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

/** How a move was recognised: same id with a new path, same file blob and line range, or same exact-duplicate group. */
export type MoveEvidence = 'id' | 'blob' | 'exact-group';

export type BlockChange =
  | { kind: 'new'; block: BlockRef }
  | { kind: 'removed'; block: BlockRef }
  | { kind: 'moved'; from: BlockRef; block: BlockRef; matchedBy: MoveEvidence; fields: FieldChange[] }
  | { kind: 'changed'; block: BlockRef; fields: FieldChange[] };

export const CHANGE_KINDS = ['new', 'removed', 'moved', 'changed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The upstream pin of a source: a commit for checkouts, a distribution version (and tag) for releases. */
export interface UpstreamPin {
  commit?: string;
  version?: string;
  tag?: string;
}

export interface SourceChange {
  sourceId: string;
  /** `bumped`: same source, new commit or version. */
  kind: 'added' | 'removed' | 'bumped';
  before?: UpstreamPin;
  after?: UpstreamPin;
  /** Blocks of this source before and after (0 on the side where it is absent). */
  blocks: { before: number; after: number };
}

export interface ChangeFeed {
  formatVersion: typeof CHANGES_FORMAT_VERSION;
  /** The current catalog's build-info `builtAt`: the feed adds no timestamp of its own. */
  generatedAt: string;
  /** null when there was no previous catalog (first build, or it could not be read: see diagnostics). */
  previous: { origin: string; builtAt?: string; blocks: number } | null;
  current: { blocks: number };
  summary: Record<ChangeKind, number> & { upstream: number };
  /** Sorted by source id. */
  upstream: SourceChange[];
  /** Sorted by kind (CHANGE_KINDS order), then block id. Empty when `previous` is null. */
  changes: BlockChange[];
  /** Problems reading the previous catalog (stage `feed`); never fatal. */
  diagnostics: Diagnostic[];
}
