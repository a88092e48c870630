// The search page's name index as written at build time (src/lib/name-index.ts) and read in the browser
// (src/scripts/search.ts): one definition of a shard's shape, of which shard holds a key, and of the order of hits.
// Imports nothing the browser cannot run.

/**
 * Why a block is a hit for a name key, strongest first: its name is the query; its name is, less a dimension or
 * version suffix (FrozenBatchNorm2d for "frozen batchnorm", PatchMergingV2); the query is a synonym of its name
 * (pipeline/util/data/synonyms.json: "SE block" for SqueezeExcitation); it implements a taxonomy method the query
 * names ("ViT block" for EncoderBlock); it takes a compound parameter the query names ("layer scale": CNBlock's
 * `layer_scale`).
 */
export const TIERS = ['name', 'name-variant', 'synonym', 'method', 'parameter'] as const;
export type Tier = (typeof TIERS)[number];

/** The Pagefind filters a result carries, by filter name; a named block is checked against ticked ones with them. */
export type Filters = Record<'category' | 'source' | 'status' | 'license', string[]>;

/** A block a key names, with what its search result shows (the same facts its Pagefind metadata carries). */
export interface NamedBlock {
  /** The page's path, base included. */
  url: string;
  title: string;
  /** `module.qualname`. */
  module: string;
  status: string;
  /** A passed block's parameter count as text; empty otherwise. */
  params: string;
  filters: Filters;
  /** Pagefind's id for the page, added once Pagefind has indexed the site (src/integrations/name-index-ids.ts). */
  id?: string;
}

export interface NameHit {
  /** Index into the shard's `blocks`. */
  block: number;
  tier: Tier;
  /** What matched, for the result's "why" line: the synonym, the method's name or the parameter. */
  why?: string;
}

export interface NameEntry {
  /** Best first: tier, then status; at most MAX_HITS. */
  hits: NameHit[];
  /** Taxonomy methods this key names that no block of the catalog implements. */
  unimplemented?: string[];
}

export interface NameShard {
  keys: Record<string, NameEntry>;
  blocks: NamedBlock[];
}

/** Hits kept per key: past these, Pagefind's relevance orders the rest (a synthetic `mlp` may name thousands). */
export const MAX_HITS = 50;

/** The shard holding `key`, of `count` (FNV-1a): a query downloads one small file whatever the catalog's size. */
export function shardOf(key: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % count;
}

const STATUS_ORDER = new Map([
  ['passed', 0],
  ['unvalidated', 1],
  ['blocked', 2],
  ['not-run', 2],
  ['failed', 3],
]);
/** Passed first: among blocks that match as well, one that ran is the one a reader wants. */
export const statusRank = (s: string): number => STATUS_ORDER.get(s) ?? 3;
