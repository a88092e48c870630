// The imports of a closure's statements (closure.ts). A plain module-level import of outside names is copied into
// the emitted module's header, and every name it binds is registered so that a clash with an internal definition is
// seen. An import nested in a statement (function-local, or inside a module-level try/if) is rewritten: internal
// names point at the emitted definitions, and relative imports that stay become absolute.
import type { IndexedModule } from '../index/types.ts';
import type { ImportFact, NameOccurrence, TopStatement } from '../parse/facts.ts';
import { defKey, externalKey, type BindingKey, type Closure, type IncludedStmt } from './closure-record.ts';
import type { Lookup, Target } from './lookup.ts';
import type { Program } from './program.ts';
import { typeCheckingOnly } from './type-checking.ts';

/** How the closure (closure.ts) makes what an import binds available. */
interface Providers {
  /** The binding a target denotes; its key, or null when there is none. */
  provide: (t: Target, from: IndexedModule, alias: string) => BindingKey | null;
  /** The namespace standing in for a module object, with the members these reads of its name use. */
  useModule: (t: ModuleTarget, from: IndexedModule, alias: string, uses: NameOccurrence[]) => BindingKey;
}

type ModuleTarget = Extract<Target, { kind: 'module' }>;

export class ClosureImports {
  constructor(
    private readonly program: Program,
    private readonly lookup: Lookup,
    private readonly c: Closure,
    private readonly providers: Providers,
  ) {}

  /**
   * A header import (`from torch import nn`): whether it must be rewritten (relative, or of the block's own
   * package), and the bindings of every name it binds. Every name the verbatim import binds is taken in the emitted
   * module, needed or not: registered all, so that a clash with an internal definition is seen and renamed.
   */
  registerHeader(st: IncludedStmt): void {
    const m = st.mod;
    const imports = this.program.importsOf(m, st.stmt);
    st.rewriteImport = imports.some((imp) => imp.level > 0 || this.ownPackage(imp, m.sourceId));
    for (const imp of imports) {
      for (const n of imp.names) {
        this.c.externals.add(externalTop(this.program, m, imp, n.name));
        const base = imp.kind === 'import' ? null : this.program.absoluteFrom(m, imp);
        const qualified = imp.kind === 'import' ? (n.asname ? n.name : n.name.split('.')[0]) : `${base}.${n.name}`;
        const key = externalKey(qualified, n.bound);
        if (!this.c.bindings.has(key)) this.c.bindings.set(key, { key, name: n.bound, by: st.key, kind: 'external' });
      }
    }
  }

  /**
   * Imports nested in the statement whose position passes `keep`: internal ones are rewritten to point at the
   * emitted definitions, relative ones that stay imports become absolute (nothing relative is left in an emitted
   * module).
   *   def forward(self, x):
   *       from .ops import nms          # internal: `pass` (nms is emitted at module level) or `nms = nms_ops`
   *       from ..ext import fast_op     # pkg/ext.py not in the index: `from pkg.ext import fast_op`
   */
  rewriteNested(st: IncludedStmt, keep: (imp: ImportFact) => boolean): void {
    const facts = st.mod.facts.statements[st.stmt];
    for (const imp of st.mod.facts.imports) {
      if (imp.statementIndex !== st.stmt || !keep(imp)) continue;
      // A module-level import statement comes as code only as an earlier binding of a name a later statement
      // rebinds (closure.ts, provideDef): it binds just those names, from their emitted definitions.
      //   from pkg.datasets.categories import CIFAR100_CATEGORIES, IMAGENET_CATEGORIES
      //   CIFAR100_CATEGORIES = [' '.join(c.split('_')) for c in CIFAR100_CATEGORIES]
      // → `CIFAR100_CATEGORIES = CIFAR100_CATEGORIES_categories` (was the verbatim import, of a package refused).
      if (imp.scope === 'module' && facts.kind === 'import')
        this.rewrite(st, facts, imp, (bound) => this.c.bindings.has(defKey(st.mod, st.stmt, bound)));
      else this.rewrite(st, facts, imp);
    }
  }

  private rewrite(
    st: IncludedStmt,
    facts: TopStatement,
    imp: ImportFact,
    wanted: (bound: string) => boolean = () => true,
  ): void {
    const absolute = imp.kind === 'from' && imp.level > 0 ? this.program.absoluteFrom(st.mod, imp) : null;
    if (typeCheckingOnly(facts, imp.span.startByte)) {
      // Never runs: stays an import of what it names (absolute), which type checkers read; nothing followed.
      if (absolute !== null) st.importRewrites.push({ imp, binds: [], absolute });
      return;
    }
    if (imp.star) {
      this.rewriteStar(st, imp, absolute);
      return;
    }
    const binds: { bound: string; binding: BindingKey }[] = [];
    for (const n of imp.names) {
      if (!wanted(n.bound)) continue;
      const t = this.target(st.mod, imp, n.name, n.asname);
      // An outside module's name stays imported; one an internal module re-exports from outside comes from the
      // innermost import (`from .layers import _assert`, pkg/layers: `from torch import _assert`).
      if ((t.kind === 'external' && !t.via) || t.kind === 'builtin') {
        this.c.externals.add(externalTop(this.program, st.mod, imp, n.name));
        continue;
      }
      // A module object (`import pkg.aggr as aggr` in a function): what its uses there read are its members.
      const key =
        t.kind === 'module'
          ? this.providers.useModule(t, st.mod, n.bound, n.uses ?? [])
          : this.providers.provide(t, st.mod, n.bound);
      if (key) {
        binds.push({ bound: n.bound, binding: key });
        // A function-local import runs with the function; one in a module-level try/if or a class body now.
        (imp.scope === 'function' ? st.lateDeps : st.eagerDeps).add(this.c.bindings.get(key)!.by);
      }
    }
    if (absolute !== null) st.importRewrites.push({ imp, binds, absolute });
    else if (binds.length) st.importRewrites.push({ imp, binds });
  }

  /**
   * `try: from ._ext import *`: the names it provides resolve on their own; an internal module's star import goes
   * (its needed names are emitted), an external relative one becomes absolute.
   */
  private rewriteStar(st: IncludedStmt, imp: ImportFact, absolute: string | null): void {
    const base = imp.level > 0 ? absolute : imp.module;
    if (base === null) return;
    if (this.lookup.sourceOf(base, st.mod.sourceId)) st.importRewrites.push({ imp, binds: [] });
    else if (imp.level > 0) st.importRewrites.push({ imp, binds: [], absolute: base });
  }

  /** What name `name` of import `imp` in module `m` denotes. */
  private target(m: IndexedModule, imp: ImportFact, name: string, asname?: string): Target {
    if (imp.kind === 'import') {
      const moduleName = asname ? name : name.split('.')[0];
      const src = this.lookup.sourceOf(moduleName, m.sourceId);
      return src
        ? { kind: 'module', sourceId: src, module: moduleName }
        : { kind: 'external', qualified: moduleName, confidence: 'import' };
    }
    const base = this.program.absoluteFrom(m, imp);
    if (base === null) return { kind: 'unresolved', name, reason: 'relative import above the top-level package' };
    const src = this.lookup.sourceOf(base, m.sourceId);
    if (!src) return { kind: 'external', qualified: `${base}.${name}`, confidence: 'import' };
    return this.lookup.attrs({ kind: 'module', sourceId: src, module: base }, [name], m.sourceId);
  }

  /** The module `imp` imports from belongs to the block's own source (so the emitted module can't import it). */
  private ownPackage(imp: ImportFact, sourceId: string): boolean {
    const modules = imp.kind === 'import' ? imp.names.map((n) => n.name) : [imp.module];
    return modules.some((mod) => mod !== '' && this.lookup.sourceOf(mod.split('.')[0], sourceId) === sourceId);
  }
}

/** The top-level package an import's name comes from: `torch` for `from torch.nn import Conv2d`. */
function externalTop(program: Program, mod: IndexedModule, imp: ImportFact, name: string): string {
  if (imp.kind === 'import') return name.split('.')[0];
  const base = program.absoluteFrom(mod, imp) ?? imp.module;
  return base.split('.')[0];
}
