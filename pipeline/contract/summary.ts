// A block's summary: what listings, links, `/api/catalog.json` and the change feed know about every block (~200
// bytes each). Derived from the published spec, never stored beside it: `blockSummary` is the one place it is made.
import type { BlockSpec } from './block.ts';
import type { BlockKind, Category } from './vocabulary.ts';

/** A block's status as listings, the API and the change feed name it. */
export type BlockStatus = 'passed' | 'failed' | 'not-run' | 'blocked' | 'unvalidated';

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
