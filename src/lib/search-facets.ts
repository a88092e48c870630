// The search page's filters, drawn at build time: each value with the number of blocks that carry it, in a stable
// order, and no value that no block carries (a "Status: unvalidated" with 0 blocks only invites an empty search).
// Values are the strings block pages give Pagefind (data-pagefind-filter), so a ticked box matches exactly.
import { CATEGORIES } from '../../pipeline/contract/vocabulary.ts';
import { categoryLabel, type BlockSummary } from './catalog.ts';
import { STATUS_LABELS } from './status.ts';

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
