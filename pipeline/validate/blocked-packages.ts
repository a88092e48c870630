// What validation refuses to a block: the packages of the corpus its resolution could have served it from. A block
// that imports its own repository or another source it was resolved against does not stand on its own, so that
// import fails as it would for a user with only the extracted module.
import { isRuntimePackage } from '../assemble/extract.ts';
import type { IndexedModule } from '../index/types.ts';

/**
 * The top-level packages of every source of the corpus (its whole resolution scope), sorted. The runtime (`torch`)
 * and the standard library are never among them, even when a source provides them (docs/resolve.md, "Across
 * sources").
 */
export function corpusPackages(modules: IndexedModule[]): string[] {
  return [...new Set([...packagesBySource(modules).values()].flat())].sort();
}

/** Each source's top-level packages (the runtime left out), sorted. */
export function packagesBySource(modules: IndexedModule[]): Map<string, string[]> {
  const tops = new Map<string, Set<string>>();
  for (const m of modules) {
    const top = m.module?.split('.')[0];
    if (!top || isRuntimePackage(top)) continue;
    let set = tops.get(m.sourceId);
    if (!set) tops.set(m.sourceId, (set = new Set()));
    set.add(top);
  }
  return new Map([...tops].map(([id, set]) => [id, [...set].sort()]));
}

/**
 * The packages validation refuses to one block (docs/validate.md, "What a block may import"): its own source's, those
 * of every source its module draws definitions from, and any other corpus package its module imports itself (an
 * import the resolver left, `resolveAcross: false` or unresolved). A package of an unrelated source is not refused:
 * detr's `datasets/` folder does not hide Hugging Face's `datasets` from the transformers an mmdet block imports.
 */
export function blockedPackagesOf(
  block: { sourceId: string; drawnFrom: Iterable<string>; imports: Iterable<string> },
  bySource: Map<string, string[]>,
  corpus: ReadonlySet<string>,
): string[] {
  const out = new Set(bySource.get(block.sourceId) ?? []);
  for (const id of block.drawnFrom) for (const top of bySource.get(id) ?? []) out.add(top);
  for (const top of block.imports) if (corpus.has(top)) out.add(top);
  return [...out].sort();
}
