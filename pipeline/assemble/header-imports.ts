// A module's import header as the assembler builds it (emit.ts for one block, package.ts for a package module):
// upstream's import lines each once, `from __future__` lines apart, then the standard library's and the rest, and a
// guarded import for each submodule a statement reads that no header import loads.
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

  /** One import line of upstream's; the same text twice is written once. */
  line(l: { text: string; top: string; future?: boolean }): void {
    if (this.seen.has(l.text)) return;
    this.seen.add(l.text);
    if (l.future) l.text.split('\n').forEach((f) => this.futures.add(f));
    else (STDLIB.has(l.top) ? this.stdlib : this.thirdParty).push(l.text);
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
