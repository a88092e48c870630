// What a method page shows about its implementations, computed from their specs: one row per block (status, sizes,
// duplicates, provenance) and the interface side by side (constructor parameters and their defaults per block).
import { blockById, loadBlock, type BlockSpec, type MethodRecord } from './catalog.ts';
import { oneLine } from './format.ts';

export interface Implementation {
  spec: BlockSpec;
  /** The taxonomy rule that matched (`name#0`, `cluster:exact`). */
  rule: string;
  /** Other implementations of this method in the same dedup group, strictest level first. */
  duplicates: { level: 'exact' | 'lexical' | 'structural'; names: { slug: string; label: string }[] }[];
}

/** What a taxonomy rule label (`name#0`, `composition#1`, `structure#2`, `cluster:exact`) says, in words: the label is the record's. */
export function ruleText(rule: string): string {
  const kind = rule.split(/[#:]/)[0];
  if (kind === 'cluster')
    return `being ${rule.endsWith(':exact') ? 'an exact' : 'a near'} copy of another implementation`;
  const words: Record<string, string> = {
    name: 'its name',
    base: 'its base class',
    composition: 'its composition',
    structure: 'its structure (forward data flow and submodules)',
    module: 'its module',
  };
  return words[kind] ?? rule;
}

/** A member's label that tells same-named blocks apart: `InvertedResidual (mobilenetv3)`. */
export function memberLabel(spec: BlockSpec, all: BlockSpec[]): string {
  const same = all.filter((s) => s.name === spec.name).length > 1;
  return same ? `${spec.name} (${spec.module.split('.').pop()}, ${spec.sourceId})` : spec.name;
}

export function implementations(m: MethodRecord): Implementation[] {
  const specs = m.members.flatMap((x) => {
    const b = blockById(x.blockId);
    return b ? [{ spec: loadBlock(b.slug), rule: x.rule }] : [];
  });
  const all = specs.map((s) => s.spec);
  return specs.map(({ spec, rule }) => {
    const duplicates: Implementation['duplicates'] = [];
    for (const level of ['exact', 'lexical', 'structural'] as const) {
      const field = level === 'exact' ? 'exactGroup' : level === 'lexical' ? 'lexicalCluster' : 'structuralCluster';
      const key = (s: BlockSpec) => (s.dedup ? (s.dedup[field] ?? s.id) : null);
      const mine = key(spec);
      const names = all
        .filter((o) => o.id !== spec.id && mine !== null && key(o) === mine)
        .map((o) => ({ slug: o.slug, label: memberLabel(o, all) }));
      // A looser level repeats the stricter one's members: list only what it adds.
      const seen = new Set(duplicates.flatMap((d) => d.names.map((n) => n.slug)));
      const fresh = names.filter((n) => !seen.has(n.slug));
      if (fresh.length) duplicates.push({ level, names: fresh });
    }
    return { spec, rule, duplicates };
  });
}

/** Constructor parameters side by side: every name any implementation takes, and each one's default text. */
export function interfaceGrid(impls: Implementation[]): { name: string; cells: (string | null)[] }[] {
  const names: string[] = [];
  for (const i of impls)
    for (const p of i.spec.interface.constructorParams)
      if (p.name !== 'self' && !names.includes(p.name)) names.push(p.name);
  return names.map((name) => ({
    name,
    cells: impls.map((i) => {
      const p = i.spec.interface.constructorParams.find((x) => x.name === name);
      if (!p) return null;
      if (p.kind === 'var-positional' || p.kind === 'var-keyword') return p.kind === 'var-keyword' ? '**' : '*';
      return p.default === undefined ? 'required' : oneLine(p.default, 40);
    }),
  }));
}
