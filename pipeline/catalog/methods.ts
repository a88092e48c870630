// methods.json: the taxonomy's methods with the blocks that implement them (docs/taxonomy.md). Blocks matched by
// their own facts in block-spec.ts; here, after de-duplication, a block that is an exact duplicate of a matched one
// joins its methods too (rule `cluster:exact`): a renamed copy of SqueezeExcitation is still one. Lexical clusters
// are too loose for this: on torchvision they join RoIPool with RoIAlign (thin wrappers around different ops).
import type { BlockSpec, MethodHit } from '../contract/block.ts';
import type { MethodsFile, PaperRecord } from '../contract/methods.ts';
import { CATALOG_FORMAT_VERSION } from '../contract/vocabulary.ts';
import { blockPapers, sourcePapersOf } from './papers.ts';
import { paperRecord, taxonomy, type Taxonomy } from './taxonomy.ts';

const bySlug = (a: MethodHit, b: MethodHit) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);

/**
 * Adds the methods of a block's exact duplicates to it, in place. Clusters are read from the dedup
 * records (a member points at its representative; the representative's field is null). Only network blocks take
 * part: a transform is never a method's implementation. Categories are not recomputed: they stay the block's own.
 */
export function propagateMethods(specs: BlockSpec[], t: Taxonomy = taxonomy()): void {
  for (const level of ['exact'] as const) {
    const field = 'exactGroup';
    const groups = new Map<string, BlockSpec[]>();
    for (const s of specs) {
      if (!s.dedup || s.kind !== 'block') continue;
      const key = s.dedup[field] ?? s.id;
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
    for (const members of groups.values()) {
      if (members.length < 2) continue;
      const slugs = new Set(members.flatMap((s) => (s.methods ?? []).map((m) => m.slug)));
      for (const s of members) {
        const have = new Set((s.methods ?? []).map((m) => m.slug));
        const added = [...slugs].filter((x) => !have.has(x));
        if (added.length === 0) continue;
        s.methods = [...(s.methods ?? []), ...added.map((slug) => ({ slug, rule: `cluster:${level}` }))].sort(bySlug);
        const papers = blockPapers(
          sourcePapersOf(s.papers),
          s.methods.map((m) => m.slug),
          t,
        );
        if (papers.length) s.papers = papers;
      }
    }
  }
}

/** Every method (members sorted by block id) and every paper the taxonomy describes that something names. */
export function methodsFile(specs: BlockSpec[], t: Taxonomy = taxonomy()): MethodsFile {
  const members = new Map<string, { blockId: string; rule: string }[]>();
  for (const s of specs)
    for (const m of s.methods ?? [])
      members.set(m.slug, [...(members.get(m.slug) ?? []), { blockId: s.id, rule: m.rule }]);
  const named = new Set<string>();
  const methods = t.methods
    .map((m) => {
      for (const p of m.papers) named.add(p);
      return {
        slug: m.slug,
        name: m.name,
        summary: m.summary,
        categories: m.categories,
        aliases: m.aliases,
        papers: m.papers,
        members: (members.get(m.slug) ?? []).sort((a, b) => (a.blockId < b.blockId ? -1 : 1)),
      };
    })
    .sort((a, b) => (a.slug < b.slug ? -1 : 1));
  for (const s of specs) for (const p of s.papers ?? []) named.add(p.id);
  const papers: PaperRecord[] = t.papers
    .filter((p) => named.has(p.id))
    .map(paperRecord)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return { formatVersion: CATALOG_FORMAT_VERSION, methods, papers };
}
