// Re-ranking of the first page of search results, on top of Pagefind's relevance (which knows words, not names):
// a block whose name (or one of its own synonyms) is the query comes first, and among blocks with the same name a
// passed one always precedes one that failed, was blocked or never ran. Pure, so it is unit-tested without a browser.
import { nameKey } from '../../pipeline/util/name-key.ts';

export interface RankedHit {
  title: string;
  /** The block's own synonyms (Pagefind metadata `aliases`, `|`-separated on the page). */
  aliases: string[];
  status: string;
}

const STATUS_ORDER = new Map([
  ['passed', 0],
  ['unvalidated', 1],
  ['blocked', 2],
  ['not-run', 2],
  ['failed', 3],
]);
const statusRank = (s: string) => STATUS_ORDER.get(s) ?? 3;

/** 0: the name is the query; 1: a synonym of its own is; 2: anything else. */
function tier(hit: RankedHit, query: string): number {
  if (nameKey(hit.title) === query) return 0;
  return hit.aliases.some((a) => nameKey(a) === query) ? 1 : 2;
}

export function rerank<T extends RankedHit>(hits: T[], query: string): T[] {
  const q = nameKey(query);
  // Array.prototype.sort is stable: equal tiers keep Pagefind's order; exact matches rank passed ones first.
  const out = hits
    .map((hit, i) => ({ hit, i, t: q ? tier(hit, q) : 2 }))
    .sort((a, b) => a.t - b.t || (a.t < 2 ? statusRank(a.hit.status) - statusRank(b.hit.status) : 0) || a.i - b.i)
    .map((x) => x.hit);
  // Same name: the slots those blocks hold are refilled best status first, so a failed duplicate never leads.
  const byName = new Map<string, number[]>();
  out.forEach((h, i) => byName.set(nameKey(h.title), [...(byName.get(nameKey(h.title)) ?? []), i]));
  for (const slots of byName.values()) {
    if (slots.length < 2) continue;
    const members = slots.map((i) => out[i]).sort((a, b) => statusRank(a.status) - statusRank(b.status));
    slots.forEach((slot, k) => (out[slot] = members[k]));
  }
  return out;
}
