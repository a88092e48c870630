// What the change feed compares: a catalog snapshot, read from a directory or a published site. The feed it
// writes (`changes.json`) is a published record: pipeline/contract/changes.ts.
import type { BlockSpec } from '../contract/block.ts';
import type { SourceRecord } from '../contract/sources.ts';
import type { BlockSummary } from '../contract/summary.ts';

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
