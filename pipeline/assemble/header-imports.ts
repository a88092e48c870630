// A module's import header as the assembler builds it (emit.ts for one block, package.ts for a package module):
// upstream's import lines each once, `from __future__` lines apart, then the standard library's and the rest, and a
// guarded import for each submodule a statement reads that no header import loads; an import only function bodies
// read is guarded too, binding a stand-in when its module is missing (lazy-imports.ts).
import { ABSENT_HELPER, absentGuard } from './lazy-imports.ts';
import { STDLIB } from './stdlib.ts';

export class HeaderImports {
  readonly futures = new Set<string>();
  readonly stdlib: string[] = [];
  readonly thirdParty: string[] = [];
  private readonly seen = new Set<string>();

  /**
   * `loaded`: the dotted modules the header imports load (importedModules), added to as guarded imports are;
   * `preloaded`: packages whose import loads their submodules themselves (no guarded import for them).
   */
  constructor(
    private readonly loaded: Set<string>,
    private readonly preloaded: (top: string) => boolean,
  ) {}

  /** Third-party lines written guarded (lazy-imports.ts), by their text: where they are in `thirdParty`. */
  private readonly guarded = new Map<string, number>();

  /**
   * One import line of upstream's; the same text twice is written once. `lazy`: only function bodies read what it
   * binds, so a third-party module that is missing binds a stand-in instead of failing the import; the same line
   * read at import time by another statement is written plain.
   */
  line(l: { text: string; top: string; future?: boolean }, lazy = false): void {
    if (this.seen.has(l.text)) {
      const at = this.guarded.get(l.text);
      if (!lazy && at !== undefined) {
        this.thirdParty[at] = l.text;
        this.guarded.delete(l.text);
      }
      return;
    }
    this.seen.add(l.text);
    if (l.future) l.text.split('\n').forEach((f) => this.futures.add(f));
    else if (STDLIB.has(l.top)) this.stdlib.push(l.text);
    else {
      const guard = lazy && !this.preloaded(l.top) ? absentGuard(l.text) : null;
      if (guard) this.guarded.set(l.text, this.thirdParty.length);
      this.thirdParty.push(guard ?? l.text);
    }
  }

  /** A guarded statement of the module's body binds the stand-in too (lazy-imports.ts `guardedStatement`). */
  private absentInBody = false;

  useAbsent(): void {
    this.absentInBody = true;
  }

  /** The third-party lines, the stand-in's class first when a guarded import needs it. */
  thirdPartyLines(): string[] {
    return this.guarded.size || this.absentInBody ? [ABSENT_HELPER, ...this.thirdParty] : this.thirdParty;
  }

  /** The submodules a statement reads (closure `submodules`), in name order, each imported once. */
  submodules(subs: Iterable<string> | undefined): void {
    for (const sub of [...(subs ?? [])].sort()) {
      if (this.loaded.has(sub) || this.preloaded(sub.split('.')[0])) continue;
      this.loaded.add(sub);
      this.thirdParty.push(guardedImport(sub));
    }
  }
}

/**
 * A submodule read through a plain `import X` of an outside package (closure `submodules`): upstream another
 * import of the module (left out here) may have loaded it; the emitted module imports it itself. Guarded: an
 * attribute chain that is not a module after all (`X.Config.default`) fails to import and changes nothing, as does
 * a submodule the installed version lacks (upstream would fail only where it reads it).
 *   import packaging
 *   packaging.version.parse(v)     # → try: import packaging.version / except ImportError: pass
 */
function guardedImport(sub: string): string {
  return `try:  # nnblocks: ${sub} is read; upstream another import of its module may load it\n    import ${sub}\nexcept ImportError:\n    pass`;
}
