// Patches of an outside object: a module-level assignment to an attribute of something a module imports from
// outside the corpus. It binds no name of the module, so nothing reaches it by name, yet code of the module counts
// on it having run when the module was imported (docs/resolve.md, "Patches of outside objects"):
//   import logging                                  # transformers/utils/logging.py
//   def warning_once(self, *args, **kwargs): ...
//   logging.Logger.warning_once = warning_once      # every `logger.warning_once(...)` needs this line
// Such a statement comes with the import it patches when the closure reads the attribute it sets (off anything:
// which object a read is off is not known statically); a patch of an attribute nothing reads stays out.
import type { IndexedModule } from '../index/types.ts';

/** `a.b.c = value` (one target, an attribute chain of two or more names): the chain's head and its last name. */
const ATTRIBUTE_TARGET =
  /^\s*([\p{L}_][\p{L}\p{N}_]*)(?:\s*\.\s*[\p{L}_][\p{L}\p{N}_]*)*\s*\.\s*([\p{L}_][\p{L}\p{N}_]*)\s*=(?!=)/u;

export interface Patch {
  stmt: number;
  /** The attribute it sets (`warning_once`). */
  attr: string;
}

/**
 * The statements of `mod` that patch an attribute of what its import statement `importStmt` binds, with the
 * attribute each sets. `text` reads the module's source (only when a statement may be one).
 */
export function patchesOf(mod: IndexedModule, importStmt: number, text: () => Buffer): Patch[] {
  const bound = new Set(mod.facts.statements[importStmt].binds);
  const out: Patch[] = [];
  for (const s of mod.facts.statements) {
    if (s.kind !== 'assign' || s.binds.length > 0 || !s.mutates.some((n) => bound.has(n))) continue;
    const m = ATTRIBUTE_TARGET.exec(text().subarray(s.span.startByte, s.span.endByte).toString('utf8'));
    if (m && bound.has(m[1])) out.push({ stmt: s.index, attr: m[2] });
  }
  return out;
}
