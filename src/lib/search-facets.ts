// The search page's filters, drawn at build time: each value with the number of blocks that carry it, in a stable
// order, and no value that no block carries (a "Status: unvalidated" with 0 blocks only invites an empty search).
// Values are the strings block pages give Pagefind (data-pagefind-filter), so a ticked box matches exactly.
import { CATEGORIES } from '../../pipeline/contract/vocabulary.ts';
import { categoryLabel, type BlockSummary } from './catalog.ts';
import { STATUS_LABELS } from './status.ts';

/**
 * Up to this many blocks, the search page loads every filter index after a query's results to count the values
 * for that query. They cost ~8.8 kB gzipped per 1,000 blocks (4 filters × 22 kB at 10,000), and one query must stay
 * within 300 kB (docs/site.md): measured at 10,000 blocks a query costs 235 kB without them, 321 kB with them.
 * Past it, counts for the query load once the reader turns to the filters.
 */
export const QUERY_COUNTS_MAX_BLOCKS = 5000;

export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

export interface Facet {
  /** The Pagefind filter name. */
  name: 'category' | 'source' | 'status' | 'license';
  label: string;
  values: FacetValue[];
}

function counted(keys: string[], order: string[], label = (k: string) => k): FacetValue[] {
  const n = new Map<string, number>();
  for (const k of keys) n.set(k, (n.get(k) ?? 0) + 1);
  return order.filter((k) => (n.get(k) ?? 0) > 0).map((k) => ({ value: k, label: label(k), count: n.get(k)! }));
}

export function searchFacets(all: BlockSummary[]): Facet[] {
  const sorted = (keys: string[]) => [...new Set(keys)].sort();
  const categories = all.flatMap((b) => b.categories.map(categoryLabel));
  return [
    { name: 'category', label: 'Category', values: counted(categories, CATEGORIES.map(categoryLabel)) },
    {
      name: 'source',
      label: 'Source',
      values: counted(
        all.map((b) => b.sourceId),
        sorted(all.map((b) => b.sourceId)),
      ),
    },
    {
      name: 'status',
      label: 'Status',
      values: counted(
        all.map((b) => b.status),
        [...STATUS_LABELS.keys()],
        (k) => STATUS_LABELS.get(k as BlockSummary['status'])!,
      ),
    },
    {
      name: 'license',
      label: 'License',
      values: counted(
        all.map((b) => b.license),
        sorted(all.map((b) => b.license)),
      ),
    },
  ];
}
