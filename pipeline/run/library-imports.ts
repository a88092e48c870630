// Which heavy installed libraries (validate/companions.ts LIBRARIES: seaborn, scipy, pandas...) the children of an
// import root's blocks import, so that the root's workers import them once instead (companions.ts). A block's child
// imports its assembled module, then, for fidelity, the original's module with everything that module imports at
// module level: here, the same walk over the index. From each block's original module (and its parent packages,
// which Python imports first), every module-scope import is followed through the corpus's modules; a library
// module met on the way is collected, never followed, and neither is torch (every worker holds it already) or the
// standard library. Guarded imports (`try:`, `if`) count as taken: the list is only a guess of what the children
// will import, and a wrong guess costs a worker's start, never a record.
import { isRuntimePackage } from '../assemble/extract.ts';
import type { IndexedModule } from '../index/types.ts';
import type { Program } from '../resolve/program.ts';
import { isLibrary } from '../validate/companions.ts';

/** What the walk starts from for one block: its original's module, and the library imports of its assembled one. */
export interface ImportStart {
  sourceId: string;
  /** The import root its original is imported from (the lane its blocks run in). */
  importRoot: string;
  /** The original's dotted module. */
  module: string;
  /** Modules the block's assembled module imports (extract's `imports`). */
  imports: readonly string[];
}

/** Import root → the library modules its blocks' children import, sorted. */
export function libraryImports(program: Program, starts: readonly ImportStart[]): Map<string, string[]> {
  const byRoot = new Map<string, ImportStart[]>();
  for (const s of starts) {
    const list = byRoot.get(s.importRoot);
    if (list) list.push(s);
    else byRoot.set(s.importRoot, [s]);
  }
  const out = new Map<string, string[]>();
  for (const [root, list] of byRoot) {
    const found = new Set(list.flatMap((s) => s.imports.filter(isLibrary)));
    walk(program, list, found);
    if (found.size) out.set(root, [...found].sort());
  }
  return out;
}

/** Adds to `found` the library modules reached from `starts`' modules by module-scope imports. */
function walk(program: Program, starts: readonly ImportStart[], found: Set<string>): void {
  const seen = new Set<IndexedModule>();
  const queue: IndexedModule[] = [];
  const visit = (name: string, fromSource: string) => {
    const parts = name.split('.');
    if (isRuntimePackage(parts[0])) return; // torch and the stdlib: the worker has them, or they are cheap
    for (let i = 1; i <= parts.length; i++) {
      const mod = program.findModule(parts.slice(0, i).join('.'), fromSource);
      if (mod && !seen.has(mod)) {
        seen.add(mod);
        queue.push(mod);
      }
    }
  };
  for (const s of starts) visit(s.module, s.sourceId);
  while (queue.length) {
    const mod = queue.pop()!;
    for (const imp of mod.facts.imports) {
      if (imp.scope !== 'module') continue;
      const targets =
        imp.kind === 'import'
          ? imp.names.map((n) => n.name)
          : fromTargets(program, mod, imp.names, program.absoluteFrom(mod, imp));
      for (const t of targets) {
        if (isLibrary(t)) found.add(t);
        else visit(t, mod.sourceId);
      }
    }
  }
}

/** `from x import a, b`: module x, and x.a, x.b where those are modules (a submodule imported by name). */
function fromTargets(
  program: Program,
  mod: IndexedModule,
  names: readonly { name: string }[],
  base: string | null,
): string[] {
  if (base === null) return [];
  if (isLibrary(base)) return [base];
  return [base, ...names.map((n) => `${base}.${n.name}`).filter((t) => program.findModule(t, mod.sourceId))];
}
