// Submodules of an outside package read through a plain `import X`: what the emitted module imports on its own
// (guarded) because upstream another import of the module may have loaded them. See docs/resolve.md.
import type { NameOccurrence } from '../parse/facts.ts';
import type { Target } from './lookup.ts';

/**
 * The dotted modules that reads of an outside module object bound by a plain `import X` (or `import X.sub`,
 * which binds X) may need loaded: each chain's attributes but the last, when there are at least two. A submodule
 * is an attribute of its package only once something imports it, and upstream that is often another import of
 * the same module, which the emitted module leaves out:
 *   import packaging                      # packaging/__init__.py imports no submodule
 *   import pandas                         # (not needed, left out) imports packaging.version on the way
 *   packaging.version.parse(v)            # → 'packaging.version'
 * An aliased import (`import numpy as np`) and a from-import give nothing: emitting `import numpy.random` would
 * bind a name the module may not have. A chain of one attribute (`cv2.imread`) reads a member, not a module.
 */
export function submodulesRead(t: Extract<Target, { kind: 'external' }>, occurrences: NameOccurrence[]): string[] {
  if (!t.via || !plainImport(t)) return [];
  const out = new Set<string>();
  for (const occ of occurrences) {
    if (occ.attrs.length >= 2) out.add([t.qualified, ...occ.attrs.slice(0, -1)].join('.'));
  }
  return [...out];
}

/** The statement binds the name by `import X` or `import X.sub`, unaliased, and X is what the name denotes. */
function plainImport(t: Extract<Target, { kind: 'external' }>): boolean {
  const via = t.via!;
  if (t.qualified !== via.name) return false;
  return via.mod.facts.imports.some(
    (i) =>
      i.statementIndex === via.stmt &&
      i.scope === 'module' &&
      i.kind === 'import' &&
      i.names.some((n) => n.bound === via.name && !n.asname),
  );
}
