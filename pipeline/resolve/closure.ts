// Dependency closure of one block: every top-level statement its code needs, found by following each free name
// of each included statement (class bodies, decorators, defaults, bases, function bodies, and the bodies of the
// methods that can run: methods.ts) to its binding, transitively.
// Internal = defined in one of the block's own source's modules; anything else stays an import.
// See docs/resolve.md.
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ImportFact, NameOccurrence, NameRef } from '../parse/facts.ts';
import { DictUses, literalKeys } from './dict-use.ts';
import { fillers, importedFillers } from './fills.ts';
import { leaveOut } from './left-out.ts';
import { Lookup, type Target } from './lookup.ts';
import { classesOf, inBody, MethodReach, type Method } from './methods.ts';
import type { Program } from './program.ts';
import { submodulesRead } from './submodules.ts';
import { readAtRunTime, typeCheckingOnly } from './type-checking.ts';

/** Identity of one module-level binding the emitted file must provide. */
export type BindingKey = string;

export function stmtKey(mod: IndexedModule, stmt: number): string {
  return `${mod.sourceId}\0${mod.path}\0${stmt}`;
}

export interface IncludedStmt {
  key: string;
  mod: IndexedModule;
  stmt: number;
  /** Plain module-level import of external names only: emitted in the grouped import header. */
  headerImport: boolean;
  /**
   * A header import that can't be copied as it is: relative (`from .sub import X`, which means nothing outside
   * its package) or of the block's own package (`from pkg.sub import X`, a module missing from the index). It
   * is emitted as absolute imports of the names that are needed, and of nothing else.
   */
  rewriteImport: boolean;
  /** Keys of statements/namespaces this one reads at import time (must be emitted before it). */
  eagerDeps: Set<string>;
  /** A dict literal read only with literal keys: the indices of its entries to emit (dict-use.ts). */
  keptEntries?: Set<number>;
  /**
   * Keys of statements/namespaces read by the code this statement defines (function and method bodies), when it
   * runs. A statement that calls this one's function at import time (a decorator, `X = f()`) needs them first.
   */
  lateDeps: Set<string>;
  /** Free name in this statement → the binding it reaches (for renaming on a clash). */
  refs: Map<string, BindingKey>;
  /**
   * Nested imports (function-local, or inside a module-level try/if) to rewrite: internal names become
   * assignments to the emitted definitions; with `absolute`, the external rest is imported from that absolute
   * module (a relative import means nothing in the emitted module); a star import of an internal module goes.
   */
  importRewrites: ImportRewrite[];
  /**
   * Free names read only by methods that never run from import, construction or forward (methods.ts), so not
   * followed, and those methods; unset when there are none. The emitted module says so next to the class.
   */
  unfollowed?: { names: string[]; methods: string[] };
}

export interface ImportRewrite {
  imp: ImportFact;
  binds: { bound: string; binding: BindingKey }[];
  absolute?: string;
}

/** A module object used through attributes (`helpers.f`), emitted as a namespace holding exactly those members. */
export interface NamespaceNode {
  key: BindingKey;
  /** Preferred emitted name: the alias the first reference used. */
  alias: string;
  /** Member name → binding key of a definition, or a nested namespace's key. */
  members: Map<string, BindingKey>;
}

export interface Binding {
  key: BindingKey;
  /** The name the binding has upstream. */
  name: string;
  /** Statement key that creates it (a def, an assignment, an import statement), or the namespace key. */
  by: string;
  kind: 'def' | 'external' | 'namespace';
  /** An external binding some reference reaches (a verbatim import statement also binds names nothing uses). */
  needed?: boolean;
}

export interface Closure {
  blockKey: BindingKey;
  /** Bindings of the extra roots (`computeClosure`'s `roots`), in order. */
  rootKeys: BindingKey[];
  stmts: Map<string, IncludedStmt>;
  namespaces: Map<BindingKey, NamespaceNode>;
  bindings: Map<BindingKey, Binding>;
  /** Top-level packages of external names reached (`torch`, `numpy`). */
  externals: Set<string>;
  /**
   * Dotted modules read through a plain `import X` of an outside package, by the statement holding that import:
   * `packaging.version.parse(v)` → `packaging.version` (submodules.ts; emitted as guarded imports).
   */
  submodules: Map<string, Set<string>>;
  diagnostics: Diagnostic[];
}

function defKey(mod: IndexedModule, stmt: number, name: string): BindingKey {
  return `d\0${stmtKey(mod, stmt)}\0${name}`;
}

export function computeClosure(
  program: Program,
  lookup: Lookup,
  mod: IndexedModule,
  stmt: number,
  name: string,
  /**
   * Other definitions the emitted module must hold under their names: the zero-argument builders that build the
   * block (`resnet50`), which validation may build it through, and classes its class-valued parameters may take
   * (`Conv3DSimple` for `conv_builder`), all of the block's module; and builders of other modules of its source
   * whose model holds the block (`mod` set: a composite recipe's `fasterrcnn_resnet50_fpn` for its
   * RegionProposalNetwork) (docs/validate.md, "Recipes").
   */
  roots: { stmt: number; name: string; mod?: IndexedModule }[] = [],
): Closure {
  const c: Closure = {
    blockKey: defKey(mod, stmt, name),
    rootKeys: roots.map((r) => defKey(r.mod ?? mod, r.stmt, r.name)),
    stmts: new Map(),
    namespaces: new Map(),
    bindings: new Map(),
    externals: new Set(),
    submodules: new Map(),
    diagnostics: [],
  };
  const queue: { mod: IndexedModule; stmt: number }[] = [];
  const seenUnresolved = new Set<string>();
  /** A name of a module not reported yet (one diagnostic per module and name). */
  const firstTime = (m: IndexedModule, name: string): boolean => {
    const k = `${m.path}\0${name}`;
    if (seenUnresolved.has(k)) return false;
    seenUnresolved.add(k);
    return true;
  };
  const dicts = new DictUses();
  const visited = new Set<string>();

  /** Includes a statement; `keys`: it is read only as `NAME['key']` with these keys (null: read whole). */
  const include = (m: IndexedModule, s: number, headerImport = false, keys: string[] | null = null): string => {
    const key = stmtKey(m, s);
    const dict = m.facts.statements[s].dict;
    // Read again with keys it left out: visit it again (read() says so only once it was visited).
    if (dict && dicts.read(key, dict, keys)) queue.push({ mod: m, stmt: s });
    if (!c.stmts.has(key)) {
      c.stmts.set(key, {
        key,
        mod: m,
        stmt: s,
        headerImport,
        rewriteImport: false,
        eagerDeps: new Set(),
        lateDeps: new Set(),
        refs: new Map(),
        importRewrites: [],
      });
      queue.push({ mod: m, stmt: s });
    }
    return key;
  };

  /**
   * Makes the binding that target `t` denotes available; returns its key, or null (builtin / unresolved).
   * `keys`: the references read it only with these literal keys (`ACTS['relu']`); null: read whole. `asType`:
   * they use it only as a type (`isinstance(x, Config)`), which makes no instance of a class (methods.ts).
   */
  const provide = (
    t: Target,
    from: IndexedModule,
    alias: string,
    keys: string[] | null = null,
    asType = false,
  ): BindingKey | null => {
    switch (t.kind) {
      case 'builtin':
        return null;
      case 'unresolved': {
        if (firstTime(from, t.name)) {
          c.diagnostics.push({
            code: 'unresolved-name',
            severity: 'warning',
            stage: 'resolve',
            source: from.sourceId,
            path: from.path,
            message: `cannot resolve '${alias}': ${t.reason}`,
            hint: 'a dynamic name (getattr, string registry, exec) or a module outside the configured sources; confidence: low',
          });
        }
        return null;
      }
      case 'external': {
        c.externals.add(t.qualified.split('.')[0]);
        if (!t.via) return null; // a dotted use of an already-provided external module object
        const viaStmt = t.via.mod.facts.statements[t.via.stmt];
        const by = include(t.via.mod, t.via.stmt, viaStmt.kind === 'import');
        // Named as the importing statement binds it (`from torch import nn as tnn` → tnn), whatever alias the
        // referencing module used; references under another alias are renamed to it.
        const key = `x\0${t.qualified}\0${t.via.name}`;
        const b = c.bindings.get(key);
        if (b) b.needed = true;
        else c.bindings.set(key, { key, name: t.via.name, by, kind: 'external', needed: true });
        return key;
      }
      case 'def': {
        if (!asType) methods.instantiate(t.mod, t.stmt, t.name);
        const key = defKey(t.mod, t.stmt, t.name);
        const by = include(t.mod, t.stmt, false, keys);
        if (!c.bindings.has(key)) {
          c.bindings.set(key, { key, name: t.name, by, kind: 'def' });
          // A conditional last binding (try/if) may not run: the earlier bindings it would replace come too, first.
          for (const earlier of program.bindingChain(t.mod, t.name)) {
            if (earlier !== t.stmt) c.stmts.get(by)!.eagerDeps.add(include(t.mod, earlier));
          }
        }
        return key;
      }
      case 'module':
        return namespaceFor(t.sourceId, t.module, alias);
      case 'typing':
        // Nothing to bind at run time: the `if TYPE_CHECKING:` comes along for type checkers (type-checking.ts).
        include(t.mod, t.stmt);
        return null;
    }
  };

  const namespaceFor = (sourceId: string, module: string, alias: string): BindingKey => {
    const key = `n\0${sourceId}\0${module}`;
    if (!c.namespaces.has(key)) {
      c.namespaces.set(key, { key, alias, members: new Map() });
      c.bindings.set(key, { key, name: alias, by: key, kind: 'namespace' });
    }
    return key;
  };

  /** `alias.a.b` on a module object: adds members level by level; returns the key of the outermost namespace. */
  const addMembers = (nsKey: BindingKey, sourceId: string, module: string, attrs: string[], from: IndexedModule) => {
    let curKey = nsKey;
    let curModule = module;
    for (const a of attrs) {
      const t = lookup.attrs({ kind: 'module', sourceId, module: curModule }, [a], from.sourceId);
      const ns = c.namespaces.get(curKey)!;
      if (t.kind === 'module') {
        const sub = namespaceFor(t.sourceId, t.module, a);
        ns.members.set(a, sub);
        curKey = sub;
        curModule = t.module;
        continue;
      }
      const member = provide(t, from, a);
      if (member) ns.members.set(a, member);
      const next = attrs[attrs.indexOf(a) + 1];
      if (t.kind === 'def' && next !== undefined) methods.staticRead(t.mod, t.stmt, t.name, next);
      return;
    }
  };

  const resolveRef = (st: IncludedStmt, name: string, occurrences: NameOccurrence[], eager: boolean) => {
    const t = lookup.name(st.mod, name);
    if (t.kind === 'module') {
      const nsKey = namespaceFor(t.sourceId, t.module, name);
      st.refs.set(name, nsKey);
      (eager ? st.eagerDeps : st.lateDeps).add(nsKey);
      for (const occ of occurrences) {
        if (occ.attrs.length === 0) {
          c.diagnostics.push({
            code: 'module-object-used',
            severity: 'info',
            stage: 'resolve',
            source: st.mod.sourceId,
            path: st.mod.path,
            message: `module '${t.module}' is used as an object (not only through attributes); its namespace holds only the members used elsewhere`,
          });
          continue;
        }
        addMembers(nsKey, t.sourceId, t.module, occ.attrs, st.mod);
      }
      return;
    }
    // The block's user builds it with what its signature names (`block: Type[BasicBlock]`, maybe inherited): every
    // class the statements of the block and its bases name may have instances, type uses included.
    const asType = !lineage.has(st.key) && occurrences.every((o) => o.typeOnly);
    // `cast(Boxes, b)` with Boxes bound only under `if TYPE_CHECKING:`: NameError upstream too; said, not fixed.
    if (t.kind === 'typing' && occurrences.some((o) => !o.typeOnly) && firstTime(st.mod, name))
      c.diagnostics.push(readAtRunTime(st.mod, name, t.mod));
    const key = provide(t, st.mod, name, literalKeys(occurrences), asType);
    if (t.kind === 'external' && t.via) {
      const by = stmtKey(t.via.mod, t.via.stmt);
      for (const sub of submodulesRead(t, occurrences)) {
        const subs = c.submodules.get(by) ?? new Set<string>();
        c.submodules.set(by, subs.add(sub));
      }
    }
    // `Base.init_weights(self)`: a method read off the class by name runs whatever the live classes (methods.ts).
    if (t.kind === 'def')
      for (const o of occurrences) if (o.attrs.length) methods.staticRead(t.mod, t.stmt, t.name, o.attrs[0]);
    if (!key) return;
    st.refs.set(name, key);
    (eager ? st.eagerDeps : st.lateDeps).add(c.bindings.get(key)!.by);
  };

  // Methods become reachable as names are read (methods.ts); each is followed once, from this queue.
  const reached: Method[] = [];
  const methods = new MethodReach(lookup, (m) => reached.push(m));
  const lineage = new Set(methods.lineage(mod, stmt, name).map(([m, s]) => stmtKey(m, s)));
  include(mod, stmt);
  // The block is what its user instantiates (with every class its statement defines).
  for (const k of classesOf(mod, stmt)) methods.instantiate(mod, stmt, k.qualname.split('.')[0]);
  c.bindings.set(c.blockKey, { key: c.blockKey, name, by: stmtKey(mod, stmt), kind: 'def' });
  roots.forEach((r, i) => {
    const key = c.rootKeys[i];
    const m = r.mod ?? mod;
    if (!c.bindings.has(key)) c.bindings.set(key, { key, name: r.name, by: include(m, r.stmt), kind: 'def' });
    // A class root (a layer class the runner may pass to the block) is instantiated like the block itself.
    if (classesOf(m, r.stmt).some((k) => k.qualname === r.name)) methods.instantiate(m, r.stmt, r.name);
  });
  while (queue.length || reached.length || fillImported()) {
    if (!queue.length) {
      if (reached.length) followMethod(reached.shift()!);
      continue;
    }
    const { mod: m, stmt: s } = queue.shift()!;
    const st = c.stmts.get(stmtKey(m, s))!;
    const facts = m.facts.statements[s];
    if (visited.has(st.key)) {
      // A dict literal visited again: a later reference needs entries it left out.
      if (facts.dict) followReads(st, dicts.visit(st.key, facts.dict));
      continue;
    }
    visited.add(st.key);
    if (facts.hasError) {
      c.diagnostics.push({
        code: 'syntax-error-included',
        severity: 'error',
        stage: 'resolve',
        source: m.sourceId,
        path: m.path,
        span: facts.span,
        message: 'a needed statement contains a syntax error; the assembled module will not parse',
      });
    }
    if (st.headerImport) {
      st.rewriteImport = program.importsOf(m, s).some((imp) => imp.level > 0 || ownPackage(imp, m.sourceId));
      // Every name the verbatim import binds is taken in the emitted module, needed or not: register them all so
      // that a clash with an internal definition is seen and renamed.
      for (const imp of program.importsOf(m, s)) {
        for (const n of imp.names) {
          c.externals.add(externalTop(program, m, imp, n.name));
          const base = imp.kind === 'import' ? null : program.absoluteFrom(m, imp);
          const qualified = imp.kind === 'import' ? (n.asname ? n.name : n.name.split('.')[0]) : `${base}.${n.name}`;
          const key = `x\0${qualified}\0${n.bound}`;
          if (!c.bindings.has(key)) c.bindings.set(key, { key, name: n.bound, by: st.key, kind: 'external' });
        }
      }
      continue;
    }
    if (facts.dict) {
      // `ACTS = dict(...)` with `dict` rebound is a call like any other: no entries to leave out.
      if (facts.eager.some((r) => r.name === 'dict') && lookup.name(m, 'dict').kind !== 'builtin')
        dicts.read(st.key, facts.dict, null);
      followReads(st, dicts.visit(st.key, facts.dict));
      nestedImports(st, () => true);
      methods.readIn(m, facts, facts.attrReads, null);
    } else {
      // Method bodies wait until the method can run (followMethod); the rest of the statement runs now or may.
      const classes = classesOf(m, s);
      const bodies = classes.flatMap((k) => k.methods);
      if (bodies.some((f) => !f.body)) methods.all(); // facts without method attribution: follow everything
      const outside = (byte: number) => !bodies.some((f) => inBody(f, byte));
      followReads(st, (occ) => outside(occ.startByte));
      nestedImports(st, (imp) => outside(imp.span.startByte));
      methods.readIn(m, facts, facts.attrReads, null);
      if (classes.length) methods.addClasses(m, st.key, classes);
    }
    // Statements elsewhere in the module that fill what this one binds (registries): fills.ts.
    for (const other of fillers(program, m, s)) include(m, other);
  }
  for (const st of c.stmts.values()) {
    const dict = st.mod.facts.statements[st.stmt].dict;
    if (dict) st.keptEntries = dicts.kept(st.key, dict);
  }
  leaveOut(c, methods.unreached(), lookup, program, bindingOf);
  return c;

  /**
   * Includes the statements of the closure's modules that fill an object imported from another module that the
   * closure needs (`MODELS.register_module('Conv2d', ...)` in a module importing MODELS); whether any came.
   * Looked at again once the queue drains, as the closure grows.
   */
  function fillImported(): boolean {
    let added = false;
    const mods = new Set([...c.stmts.values()].map((st) => st.mod));
    for (const m of mods) {
      const needed = (n: string) => {
        const t = lookup.name(m, n);
        return t.kind === 'def' && t.mod !== m && c.bindings.has(defKey(t.mod, t.stmt, t.name));
      };
      for (const s of importedFillers(m, needed)) {
        if (c.stmts.has(stmtKey(m, s))) continue;
        include(m, s);
        added = true;
      }
    }
    return added;
  }

  /** A method that can run: what its body reads is needed now (methods.ts). */
  function followMethod(u: Method) {
    const st = c.stmts.get(u.stmt)!;
    followReads(st, (occ) => inBody(u.fact, occ.startByte));
    nestedImports(st, (imp) => inBody(u.fact, imp.span.startByte));
    methods.readIn(st.mod, st.mod.facts.statements[st.stmt], u.fact.attrReads, u.cls);
  }

  /** The key of the binding target `t` denotes when the closure has it already, else undefined. */
  function bindingOf(t: Target): BindingKey | undefined {
    const key =
      t.kind === 'def'
        ? defKey(t.mod, t.stmt, t.name)
        : t.kind === 'external' && t.via
          ? `x\0${t.qualified}\0${t.via.name}`
          : undefined;
    const b = key === undefined ? undefined : c.bindings.get(key);
    return b && (b.kind !== 'external' || b.needed) ? b.key : undefined;
  }

  /**
   * Follows the reads of a statement whose occurrences pass `keep`: all of them but those in a dict's left-out
   * entries, or in method bodies that can't run yet (methods.ts), or only those in one method's body.
   */
  function followReads(st: IncludedStmt, keep: (occ: NameOccurrence) => boolean) {
    const facts = st.mod.facts.statements[st.stmt];
    // What an `if TYPE_CHECKING:` body reads is never needed: it never runs (type-checking.ts).
    const follow = (ref: NameRef, eager: boolean) => {
      const occurrences = ref.occurrences.filter((o) => keep(o) && !typeCheckingOnly(facts, o.startByte));
      if (occurrences.length) resolveRef(st, ref.name, occurrences, eager);
    };
    for (const ref of facts.eager) if (!facts.binds.includes(ref.name)) follow(ref, true);
    for (const ref of facts.deferred) follow(ref, false);
    // `global X; X = v` in a function: X is the module's X, so its import-time initialiser comes too (and a
    // rename on a clash reaches the `global` line and the assignment). docs/resolve.md, "global and nonlocal".
    for (const ref of facts.rebinds) if (!st.refs.has(ref.name)) follow(ref, false);
    for (const ref of facts.deferred.concat(facts.eager)) {
      // A self-reference (`super(Foo, self)` inside Foo) reaches the statement itself.
      if (facts.binds.includes(ref.name) && !st.refs.has(ref.name)) follow(ref, false);
    }
  }

  /** The module `imp` imports from belongs to the block's own source (so the emitted module can't import it). */
  function ownPackage(imp: ImportFact, sourceId: string): boolean {
    const modules = imp.kind === 'import' ? imp.names.map((n) => n.name) : [imp.module];
    return modules.some((mod) => mod !== '' && lookup.sourceOf(mod.split('.')[0], sourceId) === sourceId);
  }

  /**
   * Imports nested in the statement: internal ones are rewritten to point at the emitted definitions, relative
   * ones that stay imports become absolute (nothing relative is left in an emitted module).
   *   def forward(self, x):
   *       from .ops import nms          # internal: `pass` (nms is emitted at module level) or `nms = nms_ops`
   *       from ..ext import fast_op     # pkg/ext.py not in the index: `from pkg.ext import fast_op`
   */
  function nestedImports(st: IncludedStmt, keep: (imp: ImportFact) => boolean) {
    const facts = st.mod.facts.statements[st.stmt];
    for (const imp of st.mod.facts.imports) {
      if (imp.statementIndex !== st.stmt || !keep(imp)) continue;
      if (imp.scope === 'module' && facts.kind === 'import') continue; // handled as a binding statement
      const absolute = imp.kind === 'from' && imp.level > 0 ? program.absoluteFrom(st.mod, imp) : null;
      if (typeCheckingOnly(facts, imp.span.startByte)) {
        // Never runs: stays an import of what it names (absolute), which type checkers read; nothing followed.
        if (absolute !== null) st.importRewrites.push({ imp, binds: [], absolute });
        continue;
      }
      if (imp.star) {
        // `try: from ._ext import *`: the names it provides resolve on their own; an internal module's star
        // import goes (its needed names are emitted), an external relative one becomes absolute.
        const base = imp.level > 0 ? absolute : imp.module;
        if (base === null) continue;
        if (lookup.sourceOf(base, st.mod.sourceId)) st.importRewrites.push({ imp, binds: [] });
        else if (imp.level > 0) st.importRewrites.push({ imp, binds: [], absolute: base });
        continue;
      }
      const binds: { bound: string; binding: BindingKey }[] = [];
      for (const n of imp.names) {
        const t = importTarget(st.mod, imp, n.name, n.asname);
        // An outside module's name stays imported; one an internal module re-exports from outside comes from the
        // innermost import (`from .layers import _assert`, pkg/layers: `from torch import _assert`).
        if ((t.kind === 'external' && !t.via) || t.kind === 'builtin') {
          c.externals.add(externalTop(program, st.mod, imp, n.name));
          continue;
        }
        const key = provide(t, st.mod, n.bound);
        if (key) {
          binds.push({ bound: n.bound, binding: key });
          // A function-local import runs with the function; one in a module-level try/if or a class body now.
          (imp.scope === 'function' ? st.lateDeps : st.eagerDeps).add(c.bindings.get(key)!.by);
        }
      }
      if (absolute !== null) st.importRewrites.push({ imp, binds, absolute });
      else if (binds.length) st.importRewrites.push({ imp, binds });
    }
  }

  function importTarget(m: IndexedModule, imp: ImportFact, name: string, asname?: string): Target {
    if (imp.kind === 'import') {
      const moduleName = asname ? name : name.split('.')[0];
      const src = lookup.sourceOf(moduleName, m.sourceId);
      return src
        ? { kind: 'module', sourceId: src, module: moduleName }
        : { kind: 'external', qualified: moduleName, confidence: 'import' };
    }
    const base = program.absoluteFrom(m, imp);
    if (base === null) return { kind: 'unresolved', name, reason: 'relative import above the top-level package' };
    const src = lookup.sourceOf(base, m.sourceId);
    if (!src) return { kind: 'external', qualified: `${base}.${name}`, confidence: 'import' };
    return lookup.attrs({ kind: 'module', sourceId: src, module: base }, [name], m.sourceId);
  }
}

function externalTop(program: Program, mod: IndexedModule, imp: ImportFact, name: string): string {
  if (imp.kind === 'import') return name.split('.')[0];
  const base = program.absoluteFrom(mod, imp) ?? imp.module;
  return base.split('.')[0];
}
