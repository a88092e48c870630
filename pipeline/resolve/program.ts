// The whole indexed corpus as Python would see it on sys.path: modules by dotted name, per source, with the
// import-time bindings of each module precomputed (which top-level statement last binds each name).
import type { IndexedModule } from '../index/types.ts';
import type { ClassFact, ImportFact } from '../parse/facts.ts';

export interface SourceInfo {
  id: string;
  priority: 1 | 2;
}

interface ModuleBindings {
  /** Name → statements binding it at import time (directly, or by calling a function that rebinds it), in order. */
  binders: Map<string, number[]>;
  /** Name → statements whose functions rebind it through `global` when they run, in order. */
  rebinders: Map<string, number[]>;
  /** Name → the last statement binding it only under `if TYPE_CHECKING:` (never at run time). */
  typing: Map<string, number>;
}

/** Compound statements whose bindings may not happen when the module runs. */
const CONDITIONAL = new Set(['if', 'try', 'for', 'while', 'with']);

export class Program {
  /** sourceId → module name → module. */
  private readonly bySource = new Map<string, Map<string, IndexedModule>>();
  /** sourceId → every package prefix that exists (so namespace packages without __init__ resolve). */
  private readonly prefixes = new Map<string, Set<string>>();
  /** Search order for a module not found in the importing source: priority, then id. */
  private readonly order: string[];
  private bindingCache = new WeakMap<IndexedModule, ModuleBindings>();
  private importsByStmt = new WeakMap<IndexedModule, Map<number, ImportFact[]>>();
  /** `<sourceId>\0<path>` → module, made on first use. */
  private byPath?: Map<string, IndexedModule>;
  /** `<module>.<qualname>` → class, made on first use. */
  private byQualified?: Map<string, ClassFact>;

  constructor(
    readonly modules: IndexedModule[],
    sources: SourceInfo[],
  ) {
    for (const m of modules) {
      if (!m.module) continue;
      let map = this.bySource.get(m.sourceId);
      if (!map) this.bySource.set(m.sourceId, (map = new Map()));
      // A package's __init__.py and a same-named module can't both exist in Python; keep the first seen.
      if (!map.has(m.module)) map.set(m.module, m);
      let pre = this.prefixes.get(m.sourceId);
      if (!pre) this.prefixes.set(m.sourceId, (pre = new Set()));
      const parts = m.module.split('.');
      for (let i = 1; i < parts.length; i++) pre.add(parts.slice(0, i).join('.'));
      if (m.isPackage) pre.add(m.module);
    }
    this.order = [...sources]
      .sort((a, b) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => s.id);
  }

  /** Drops what was derived from the facts on demand (each module's bindings, imports by statement): made again. */
  forgetDerived(): void {
    this.bindingCache = new WeakMap();
    this.importsByStmt = new WeakMap();
  }

  /** Sources to search for a module imported from `fromSource`: its own first (its own copy wins), then the rest. */
  private searchOrder(fromSource: string): string[] {
    return [fromSource, ...this.order.filter((s) => s !== fromSource)];
  }

  /** The module file for a dotted name, or undefined (external, or a namespace package with no file). */
  findModule(name: string, fromSource: string): IndexedModule | undefined {
    for (const s of this.searchOrder(fromSource)) {
      const m = this.bySource.get(s)?.get(name);
      if (m) return m;
    }
    return undefined;
  }

  /** The module file at `path` of a source, or undefined when it was not indexed. */
  moduleAt(sourceId: string, path: string): IndexedModule | undefined {
    this.byPath ??= new Map(this.modules.map((m) => [`${m.sourceId}\0${m.path}`, m]));
    return this.byPath.get(`${sourceId}\0${path}`);
  }

  /**
   * The class a qualified name (`torchvision.ops.misc.Conv2dNormActivation`, as a block's base chain names its
   * bases) names, or undefined. A name two sources both define is the last indexed source's: base chains carry no
   * source, and every caller reads the same one.
   */
  classNamed(qualified: string): ClassFact | undefined {
    if (!this.byQualified) {
      this.byQualified = new Map();
      for (const m of this.modules)
        if (m.module) for (const c of m.facts.classes) this.byQualified.set(`${m.module}.${c.qualname}`, c);
    }
    return this.byQualified.get(qualified);
  }

  /** Whether any source of the corpus provides top-level package `top` (whether or not a source may resolve into it). */
  providesPackage(top: string): boolean {
    return this.order.some((s) => this.provides(s, top));
  }

  /** The source that provides module or package `name` (a file or a namespace-package folder), if any. */
  sourceOfModule(name: string, fromSource: string): string | undefined {
    return this.searchOrder(fromSource).find((s) => this.provides(s, name));
  }

  /** Whether source `s` has module or package `name` (a file or a namespace-package folder). */
  private provides(s: string, name: string): boolean {
    return !!(this.bySource.get(s)?.has(name) || this.prefixes.get(s)?.has(name));
  }

  /**
   * Index of the top-level statement that binds `name` last in module `mod`, or -1. The last binding is what
   * functions see after the module finished executing: `x = 1` ... `x = 2` → the second. A function that rebinds
   * the name through `global` is not a binding of it (it runs later, if ever); only when nothing at import time
   * binds the name does the last such function stand in (docs/resolve.md, "global and nonlocal").
   */
  lastBinding(mod: IndexedModule, name: string): number {
    const b = this.bindingsOf(mod);
    const at = b.binders.get(name) ?? b.rebinders.get(name);
    return at ? at[at.length - 1] : -1;
  }

  /**
   * Index of the last top-level statement before `stmt` that binds `name` at import time, or -1: what a statement
   * that runs at import time reads (Python runs a module's statements in order), while a function body run later
   * reads `lastBinding`. timm's vision_transformer.py:
   *   default_cfgs = {'vit_tiny_patch16_224.augreg_in21k_ft_in1k': _cfg(...), ...}          # statement 1
   *   _quick_gelu_cfgs = [n for n, c in default_cfgs.items() if c.get('notes', ())]   # reads statement 1's dict
   *   default_cfgs = generate_default_cfgs(default_cfgs)                                 # what functions read
   */
  bindingBefore(mod: IndexedModule, name: string, stmt: number): number {
    const binders = this.bindingsOf(mod).binders.get(name) ?? [];
    for (let i = binders.length - 1; i >= 0; i--) if (binders[i] < stmt) return binders[i];
    return -1;
  }

  /** Indices of the top-level statements from `stmt` on (itself included) that bind `name` at import time. */
  bindersFrom(mod: IndexedModule, name: string, stmt: number): number[] {
    return (this.bindingsOf(mod).binders.get(name) ?? []).filter((i) => i >= stmt);
  }

  /**
   * Index of the last top-level statement that binds `name` only for type checkers (`if TYPE_CHECKING:`), or -1.
   * Not a binding at run time: `lastBinding` never returns it; lookup falls back to it (lookup.ts).
   */
  typingBinding(mod: IndexedModule, name: string): number {
    return this.bindingsOf(mod).typing.get(name) ?? -1;
  }

  /**
   * Statements that must run for `name` to be bound after the module ran: the last binding, and when that one is
   * conditional (inside if/try/for/while/with, which may not bind it), reads the name itself (`X += [...]`) or
   * binds it by calling a function that rebinds it through `global` (`_init()`), the earlier ones back to a plain
   * binding. `def f(): ...` then `try: ...; def f(): ... except OSError: pass` needs both. A name only functions
   * bind (through `global`, when called) gives every such function.
   *   _USE_FAST_NORM = False            # the chain of _USE_FAST_NORM: this statement alone
   *   def set_fast_norm(enable=True):
   *       global _USE_FAST_NORM; _USE_FAST_NORM = enable
   * `upTo`: the chain of an earlier binding, the one an import-time read before a rebinding sees (`bindingBefore`).
   */
  bindingChain(mod: IndexedModule, name: string, upTo?: number): number[] {
    const b = this.bindingsOf(mod);
    const binders = b.binders.get(name);
    if (!binders) return [...(b.rebinders.get(name) ?? [])];
    const chain: number[] = [];
    const last = upTo === undefined ? binders.length - 1 : binders.lastIndexOf(upTo);
    for (let i = last; i >= 0; i--) {
      const st = mod.facts.statements[binders[i]];
      chain.push(st.index);
      // `X += [...]` / `X = X + 1` rebind X from its earlier value, which must exist too.
      const readsItself = st.eager.some((r) => r.name === name);
      const byCall = !st.binds.includes(name);
      if (!CONDITIONAL.has(st.kind) && !readsItself && !byCall) break;
    }
    return chain.reverse();
  }

  /**
   * Per name, the statements binding it at import time, in order, and the statements whose deferred code rebinds
   * it through `global`. A statement that calls such a function at import time counts as binding the name:
   *   def _init():
   *       global _TABLE; _TABLE = build()
   *   _init()                           # binds _TABLE (by call)
   */
  private bindingsOf(mod: IndexedModule): ModuleBindings {
    let b = this.bindingCache.get(mod);
    if (b) return b;
    b = { binders: new Map(), rebinders: new Map(), typing: new Map() };
    const latest = new Map<string, number>();
    const add = (map: Map<string, number[]>, name: string, index: number) => {
      const list = map.get(name);
      if (!list) map.set(name, [index]);
      else if (list[list.length - 1] !== index) list.push(index);
    };
    const statements = mod.facts.statements;
    for (const st of statements) {
      for (const ref of st.eager) {
        const def = latest.get(ref.name);
        if (def !== undefined) for (const rb of statements[def].rebinds) add(b.binders, rb.name, st.index);
      }
      for (const name of st.binds) {
        add(b.binders, name, st.index);
        latest.set(name, st.index);
      }
      for (const rb of st.rebinds) add(b.rebinders, rb.name, st.index);
      for (const name of st.typing ?? []) b.typing.set(name, st.index);
    }
    this.bindingCache.set(mod, b);
    return b;
  }

  /** Module-scope imports of one top-level statement (a plain import, or imports nested in a module-level if/try). */
  importsOf(mod: IndexedModule, stmtIndex: number): ImportFact[] {
    let map = this.importsByStmt.get(mod);
    if (!map) {
      map = new Map();
      for (const imp of mod.facts.imports) {
        if (imp.scope !== 'module') continue;
        const list = map.get(imp.statementIndex) ?? [];
        list.push(imp);
        map.set(imp.statementIndex, list);
      }
      this.importsByStmt.set(mod, map);
    }
    return map.get(stmtIndex) ?? [];
  }

  /** Absolute module name targeted by a `from` import in `mod` (relative levels resolved). Null if it climbs too high. */
  absoluteFrom(mod: IndexedModule, imp: ImportFact): string | null {
    if (imp.level === 0) return imp.module;
    return resolveRelative(mod.module ?? '', mod.isPackage, imp.level, imp.module);
  }
}

/**
 * `from ..x import y` inside package module `a.b.c` (a file) → 'a.x'. In a package's __init__ the package itself is
 * the anchor: `from . import y` in `a/b/__init__.py` → 'a.b'.
 */
export function resolveRelative(module: string, isPackage: boolean, level: number, rest: string): string | null {
  const parts = module ? module.split('.') : [];
  const pkg = isPackage ? parts : parts.slice(0, -1);
  const up = level - 1;
  if (up > pkg.length || (up === pkg.length && !rest)) return null;
  const base = pkg.slice(0, pkg.length - up);
  return [...base, ...(rest ? rest.split('.') : [])].join('.');
}
