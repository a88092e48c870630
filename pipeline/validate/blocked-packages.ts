// What validation refuses to every block: the packages of the corpus itself. A block that imports its own
// repository or another source of the corpus does not stand on its own, so that import fails as it would for a
// user with only the extracted module.
import { isRuntimePackage } from '../assemble/extract.ts';
import type { IndexedModule } from '../index/types.ts';

/**
 * The packages validation refuses to every block: the top-level packages of every source of the corpus (its whole
 * resolution scope), so "import OK" means the assembled module stands on its own — it leans neither on its own
 * repository nor on another source it was resolved against. The runtime (`torch`) and the standard library are
 * never refused, even when a source provides them (docs/resolve.md, "Across sources").
 */
export function corpusPackages(modules: IndexedModule[]): string[] {
  const tops = new Set<string>();
  for (const m of modules) if (m.module) tops.add(m.module.split('.')[0]);
  return [...tops].filter((t) => !isRuntimePackage(t)).sort();
}
