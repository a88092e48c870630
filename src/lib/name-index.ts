// The search page's name index (docs/site.md, "Search"): for every name key (pipeline/util/name-key.ts) that names
// something exactly, the blocks it names and how (src/lib/name-index-format.ts: by name, by a synonym, by a method they
// implement, by a compound parameter), and the taxonomy methods it names that no block implements. The search page
// reads it beside Pagefind, so an exact concept ranks first among all results rather than only within Pagefind's
// first page, and a block Pagefind's words miss ("layernorm 2d" for LayerNorm2d) is still found. Written as shards
// (`/search/names/<n>.json`) so one query downloads one small file at any catalog size.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { MethodRecord } from '../../pipeline/contract/methods.ts';
import { nameKey } from '../../pipeline/util/name-key.ts';
import { blockSynonyms, synonymGroups, type SynonymGroup } from '../../pipeline/util/synonyms.ts';
import { blocks, categoryLabel, loadBlock, methods } from './catalog.ts';
import {
  MAX_HITS,
  shardOf,
  statusRank,
  TIERS,
  type NamedBlock,
  type NameShard,
  type Tier,
} from './name-index-format.ts';
import { blockHref } from './routes.ts';
import { searchRecord } from './search-terms.ts';

/** What the index needs of a block: its result's facts, its id (methods list members by id) and its parameters. */
export interface NameSource {
  id: string;
  name: string;
  block: NamedBlock;
  paramNames: string[];
}

/**
 * A parameter name says what a block does only when it is compound (`layer_scale`, `window_size`: not `p`, `dim`)
 * and rare: one carried by more blocks than this (`norm_layer`, `in_channels`) names no concept of its own.
 */
const MAX_PARAM_BLOCKS = 25;
/** Hits per shard the shard count aims at: a few kB gzipped. */
const HITS_PER_SHARD = 150;

/** A name less a dimension or version suffix: `frozenbatchnorm2d` → `frozenbatchnorm`, `patchmergingv2`. */
const variantKey = (key: string): string | null => {
  const stem = key.replace(/(?:[123]d|v\d+)$/, '');
  return stem !== key && stem.length >= 3 ? stem : null;
};
const compound = (param: string) => /[a-z0-9][_A-Z]|[a-z][0-9]/.test(param.replace(/^_+/, ''));

interface Candidate {
  block: number;
  tier: Tier;
  why?: string;
}

/** Every key's hits (best tier per block) and the methods without members it names. */
export class NameIndexBuilder {
  private readonly hits = new Map<string, Map<number, Candidate>>();
  private readonly unimplemented = new Map<string, string[]>();

  constructor(
    private readonly sources: NameSource[],
    private readonly methodList: MethodRecord[],
    private readonly groups: SynonymGroup[] = synonymGroups(),
  ) {}

  build(): NameShard[] {
    this.addNames();
    this.addMethods();
    this.addParameters();
    return this.shard();
  }

  private add(key: string, c: Candidate): void {
    if (!key) return;
    const byBlock = this.hits.get(key) ?? new Map<number, Candidate>();
    const had = byBlock.get(c.block);
    if (!had || TIERS.indexOf(c.tier) < TIERS.indexOf(had.tier)) byBlock.set(c.block, c);
    this.hits.set(key, byBlock);
  }

  /** Its name, the name less a suffix, and the synonyms of its name's group (not its layers': those are parts). */
  private addNames(): void {
    this.sources.forEach((s, block) => {
      const key = nameKey(s.name);
      this.add(key, { block, tier: 'name' });
      const variant = variantKey(key);
      if (variant) this.add(variant, { block, tier: 'name-variant' });
      for (const term of blockSynonyms({ name: s.name, layerTypes: [] }, this.groups).own)
        this.add(nameKey(term), { block, tier: 'synonym', why: term });
    });
  }

  private addMethods(): void {
    const byId = new Map(this.sources.map((s, i) => [s.id, i]));
    for (const m of this.methodList) {
      const keys = [...new Set([m.name, ...m.aliases].map(nameKey))];
      const members = m.members.flatMap((x) => byId.get(x.blockId) ?? []);
      for (const key of keys) {
        if (members.length === 0) this.unimplemented.set(key, [...(this.unimplemented.get(key) ?? []), m.name]);
        for (const block of members) this.add(key, { block, tier: 'method', why: m.name });
      }
    }
  }

  private addParameters(): void {
    const carriers = new Map<string, { block: number; name: string }[]>();
    this.sources.forEach((s, block) => {
      for (const name of new Set(s.paramNames.filter(compound)))
        carriers.set(nameKey(name), [...(carriers.get(nameKey(name)) ?? []), { block, name }]);
    });
    for (const [key, list] of carriers)
      if (list.length <= MAX_PARAM_BLOCKS)
        for (const { block, name } of list) this.add(key, { block, tier: 'parameter', why: name });
  }

  /** Best first (tier, then status, then name), cut at MAX_HITS; the unimplemented only where nothing is named. */
  private shard(): NameShard[] {
    const rank = (c: Candidate) => TIERS.indexOf(c.tier);
    const entries = new Map<string, { hits: Candidate[]; unimplemented?: string[] }>();
    for (const [key, byBlock] of this.hits) {
      const hits = [...byBlock.values()].sort(
        (a, b) =>
          rank(a) - rank(b) ||
          statusRank(this.sources[a.block].block.status) - statusRank(this.sources[b.block].block.status) ||
          (this.sources[a.block].name < this.sources[b.block].name ? -1 : 1),
      );
      entries.set(key, { hits: hits.slice(0, MAX_HITS) });
    }
    for (const [key, names] of this.unimplemented)
      if (!entries.has(key)) entries.set(key, { hits: [], unimplemented: names });

    const total = [...entries.values()].reduce((n, e) => n + Math.max(1, e.hits.length), 0);
    const count = Math.max(1, Math.ceil(total / HITS_PER_SHARD));
    const shards = Array.from({ length: count }, () => ({ keys: {}, blocks: [], at: new Map<number, number>() }));
    for (const key of [...entries.keys()].sort()) {
      const e = entries.get(key)!;
      const s: { keys: NameShard['keys']; blocks: NamedBlock[]; at: Map<number, number> } = shards[shardOf(key, count)];
      const local = (block: number) => {
        if (!s.at.has(block)) s.at.set(block, s.blocks.push(this.sources[block].block) - 1);
        return s.at.get(block)!;
      };
      s.keys[key] = {
        hits: e.hits.map((h) => ({ block: local(h.block), tier: h.tier, ...(h.why ? { why: h.why } : {}) })),
        ...(e.unimplemented ? { unimplemented: e.unimplemented } : {}),
      };
    }
    return shards.map(({ keys, blocks: list }) => ({ keys, blocks: list }));
  }
}

/** A block's entry as its search result shows it: the facts of its Pagefind metadata and filters. */
export function nameSource(spec: BlockSpec): NameSource {
  const r = searchRecord(spec);
  return {
    id: spec.id,
    name: spec.name,
    paramNames: spec.interface.constructorParams.map((p) => p.name),
    block: {
      url: blockHref(spec.slug),
      title: spec.name,
      module: r.meta.module,
      status: r.meta.status,
      params: r.meta.params,
      filters: {
        category: spec.categories.map(categoryLabel),
        source: [spec.sourceId],
        status: [r.meta.status],
        license: [spec.provenance.license.spdx],
      },
    },
  };
}

let cache: NameShard[] | undefined;
/** The site's name index, built once per build from every block's spec and methods.json. */
export function siteNameIndex(): NameShard[] {
  cache ??= new NameIndexBuilder(
    blocks().map((b) => nameSource(loadBlock(b.slug))),
    methods(),
  ).build();
  return cache;
}
