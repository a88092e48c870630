// The search page's side of the name index (src/lib/name-index.ts): fetches the one shard that holds a query's key
// (each at most once) and turns its entry into the named blocks a search promotes. A shard that cannot be fetched
// leaves the search to Pagefind alone.
import { nameKey } from '../../pipeline/util/name-key.ts';
import { shardOf, type NamedBlock, type NameEntry, type NameShard } from '../lib/name-index-format.ts';
import { passesFilters, type NameMatch } from './rank.ts';

/** What the index says about a query: its entry, and the named blocks that have a Pagefind id. */
export interface Named {
  entry: NameEntry;
  /** Each hit's block, in the entry's order. */
  blocks: NamedBlock[];
}

export class NameLookup {
  private readonly shards = new Map<number, Promise<NameShard | null>>();

  /** `base`: the shards' folder URL (`/search/names/`); `count`: how many there are (0: no index). */
  constructor(
    private readonly base: string,
    private readonly count: number,
  ) {}

  async lookup(query: string): Promise<Named | null> {
    const key = nameKey(query);
    if (!key || this.count < 1) return null;
    const n = shardOf(key, this.count);
    if (!this.shards.has(n))
      this.shards.set(
        n,
        fetch(`${this.base}${n}.json`)
          .then((r) => (r.ok ? (r.json() as Promise<NameShard>) : null))
          .catch(() => null),
      );
    const shard = await this.shards.get(n)!;
    const entry = shard?.keys[key];
    return entry ? { entry, blocks: entry.hits.map((h) => shard.blocks[h.block]) } : null;
  }
}

/**
 * The named blocks a search lists: those among Pagefind's results (`present`: their ids), and those Pagefind's words
 * missed that pass the ticked filters (Pagefind applied them to the rest).
 */
export function namedMatches(named: Named | null, present: Set<string>, ticked: Record<string, string[]>): NameMatch[] {
  if (!named) return [];
  return named.entry.hits.flatMap((h, i) => {
    const b = named.blocks[i];
    if (!b.id || (!present.has(b.id) && !passesFilters(b.filters, ticked))) return [];
    return [{ id: b.id, tier: h.tier, status: b.status, title: b.title, ...(h.why ? { why: h.why } : {}) }];
  });
}

/** A stand-in for Pagefind's result of a named block it did not return: the same data, without an excerpt. */
export function standIn(named: Named, id: string): { id: string; data(): Promise<StandInData> } {
  const b = named.blocks.find((x) => x.id === id)!;
  return {
    id,
    data: async () => ({
      url: b.url,
      excerpt: '',
      meta: { title: b.title, module: b.module, status: b.status, params: b.params },
      filters: b.filters,
    }),
  };
}

export interface StandInData {
  url: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
  filters: Record<string, string[]>;
}
