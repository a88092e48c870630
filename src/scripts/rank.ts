// Search ranking on top of Pagefind's relevance, which knows words, not names (docs/site.md, "Search"). `arrange`
// puts the blocks the name index says a query names exactly (src/lib/name-index.ts) before all of Pagefind's other
// results, wherever Pagefind ranked them, and adds those its words missed; `passedFirst` keeps a failed block below a
// passed one of the same name. Pure, so both are unit-tested without a browser.
import { nameKey } from '../../pipeline/util/name-key.ts';
import { statusRank, TIERS, type Filters, type Tier } from '../lib/name-index-format.ts';

/** A block the query names, from the name index: Pagefind's id for its page and what ranks it. */
export interface NameMatch {
  id: string;
  tier: Tier;
  status: string;
  title: string;
  why?: string;
}

export interface Arranged<R> {
  result: R;
  /** Set for a named block: what the query named (for the result's "why" line). */
  match?: NameMatch;
}

/**
 * Named blocks first — by tier, passed before the rest, then in Pagefind's order (those it did not return last, by
 * name) — then Pagefind's other results in its order. `make` stands in a result for a named block Pagefind missed.
 */
export function arrange<R extends { id: string }>(
  results: R[],
  matches: NameMatch[],
  make: (m: NameMatch) => R,
): Arranged<R>[] {
  const position = new Map(results.map((r, i) => [r.id, i]));
  const at = (m: NameMatch) => position.get(m.id) ?? Infinity;
  const named = [...new Map(matches.map((m) => [m.id, m])).values()].sort(
    (a, b) =>
      TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier) ||
      statusRank(a.status) - statusRank(b.status) ||
      at(a) - at(b) ||
      (a.title < b.title ? -1 : a.title > b.title ? 1 : 0),
  );
  const ids = new Set(named.map((m) => m.id));
  return [
    ...named.map((m) => ({ result: position.has(m.id) ? results[position.get(m.id)!] : make(m), match: m })),
    ...results.filter((r) => !ids.has(r.id)).map((result) => ({ result })),
  ];
}

/** Whether a block's filters pass the ticked ones: any value within a filter, every ticked filter. */
export function passesFilters(filters: Filters, ticked: Record<string, string[]>): boolean {
  return Object.entries(ticked).every(
    ([name, values]) => values.length === 0 || (filters[name as keyof Filters] ?? []).some((v) => values.includes(v)),
  );
}

/**
 * Blocks of the same name keep the slots they hold, refilled best status first, so a failed duplicate never leads
 * a passed one; nothing else moves.
 */
export function passedFirst<T extends { title: string; status: string }>(hits: T[]): T[] {
  const out = [...hits];
  const byName = new Map<string, number[]>();
  out.forEach((h, i) => byName.set(nameKey(h.title), [...(byName.get(nameKey(h.title)) ?? []), i]));
  for (const slots of byName.values()) {
    if (slots.length < 2) continue;
    const members = slots.map((i) => out[i]).sort((a, b) => statusRank(a.status) - statusRank(b.status));
    slots.forEach((slot, k) => (out[slot] = members[k]));
  }
  return out;
}
