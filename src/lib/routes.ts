// Every internal URL is built here, so the base path (GitHub Pages project sites serve under /<repo>/) is
// applied in one place. URLs end in `/` to match `trailingSlash: 'always'`.
import type { Category } from '../../pipeline/contract/vocabulary.ts';
import type { Scope, Sort } from './catalog.ts';

const BASE = import.meta.env.BASE_URL.replace(/\/+$/, '');

/** `href('blocks/')` → `/nnblocks/blocks/` under base `/nnblocks`. */
export function href(path: string): string {
  return `${BASE}/${path.replace(/^\/+/, '')}`;
}

export const blockHref = (slug: string) => href(`blocks/${slug}/`);
export const blockJsonHref = (slug: string) => href(`api/blocks/${slug}.json`);
export const sourceHref = (id: string) => href(`sources/${id}/`);
export const methodHref = (slug: string) => href(`methods/${slug}/`);
/** A paper's page at its publisher: arXiv's abstract or the DOI resolver; ids were checked by strict patterns. */
export const paperHref = (p: { arxiv?: string; doi?: string }) =>
  p.arxiv ? `https://arxiv.org/abs/${p.arxiv}` : `https://doi.org/${encodeURI(p.doi ?? '')}`;
export const categoryHref = (c: Category) => browseHref({ kind: 'category', category: c }, 'name', 1);

/** The path segments after /browse/ for a scope: `all`, `category/<c>`, `source/<id>`. */
export function scopeSegments(scope: Scope): string[] {
  if (scope.kind === 'all') return ['all'];
  if (scope.kind === 'category') return ['category', scope.category];
  return ['source', scope.sourceId];
}

/** Listing URL; `/blocks/` is the canonical first page of all blocks by name. */
export function browseHref(scope: Scope, sort: Sort, page: number): string {
  if (scope.kind === 'all' && sort === 'name' && page === 1) return href('blocks/');
  return href(`browse/${[...scopeSegments(scope), sort, ...(page > 1 ? [String(page)] : [])].join('/')}/`);
}

/** Software Heritage's resolver takes the (qualified) SWHID as the path. */
export const swhResolverHref = (swhid: string) => `https://archive.softwareheritage.org/${swhid}`;
