// Dependency closure of one block: every top-level statement its code needs, found by following each free name
// of each included statement (class bodies, decorators, defaults, bases, function bodies, and the bodies of the
// methods that can run: methods.ts) to its binding, transitively.
// Internal = defined in one of the block's own source's modules; anything else stays an import.
// One ClosureBuilder computes it in phases over explicit state, as pyright's binder does: `seed` includes the
// block and the extra roots, `drain` visits each included statement and follows what it reads (which includes
// more), `finish` settles the dict entries kept and the methods left out. The record it returns: closure-record.ts.
// See docs/resolve.md.
import type { IndexedModule } from '../index/types.ts';
import type { DictFact, NameOccurrence, NameRef, TopStatement } from '../parse/facts.ts';
import { syntaxErrorIncluded, unresolvedName } from './closure-diagnostics.ts';
import { ClosureImports } from './closure-imports.ts';
import { defKey, externalKey, stmtKey, type BindingKey, type Closure, type IncludedStmt } from './closure-record.ts';
import { decoratorModuleReads } from './decorator-reads.ts';
import { DictUses, literalKeys } from './dict-use.ts';
import { fillers, importedFillers } from './fills.ts';
import { type Patch, patchesOf } from './patches.ts';
import { leaveOut } from './left-out.ts';
import { Lookup, type Target } from './lookup.ts';
import { classesOf, inBody, MethodReach, type Method } from './methods.ts';
import { ModuleObjects } from './module-objects.ts';
import type { Program } from './program.ts';
import { configTypeNames, MAX_SITES_PER_KEY, registrationIndex, type RegistrationSite } from './registry-keys.ts';
import { submodulesRead } from './submodules.ts';
import { readAtRunTime, typeCheckingOnly } from './type-checking.ts';

/**
 * Another definition the emitted module must hold under its name: a zero-argument builder that builds the block
 * (`resnet50`), which validation may build it through, or a class its class-valued parameters may take
 * (`Conv3DSimple` for `conv_builder`), both of the block's module; or a builder of another module of its source
 * whose model holds the block (`mod` set: a composite recipe's `fasterrcnn_resnet50_fpn` for its
 * RegionProposalNetwork) (docs/validate.md, "Recipes").
 */
export interface ClosureRoot {
  stmt: number;
  name: string;
  mod?: IndexedModule;
}

/** What a closure may read besides facts, and what the block's recipes ask for. */
export interface ClosureText {
  /** The decoded text of a module: without it, no registered name asked for by string comes (registry-keys.ts). */
  readText: (mod: IndexedModule) => Buffer;
  /**
   * Registered names the block's recipes ask for by string (the `type` of a config file's `backbone=dict(type=
   * 'ResNet')`): asked as if by the block's own statement.
   */
  asks?: string[];
}

export function computeClosure(
  program: Program,
  lookup: Lookup,
  mod: IndexedModule,
  stmt: number,
  name: string,
  roots: ClosureRoot[] = [],
  text?: ClosureText,
): Closure {
  return new ClosureBuilder(program, lookup, { mod, stmt, name }, roots, text).build();
}

type DefTarget = Extract<Target, { kind: 'def' }>;
type ExternalTarget = Extract<Target, { kind: 'external' }>;
type ModuleTarget = Extract<Target, { kind: 'module' }>;

class ClosureBuilder {
  private readonly c: Closure;
  /** Included statements waiting for a visit; a dict literal comes again when a read needs entries it left out. */
  private readonly queue: { mod: IndexedModule; stmt: number }[] = [];
  /** Keys of the statements visited once. */
  private readonly visited = new Set<string>();
  /** Names reported unresolved, by module: one diagnostic per module and name. */
  private readonly reported = new Set<string>();
  /** Which entries of the included dict literals are needed (dict-use.ts). */
  private readonly dicts = new DictUses();
  /** Methods that became reachable (methods.ts), each followed once from here when the queue is empty. */
  private readonly reached: Method[] = [];
  private readonly methods: MethodReach;
  /**
   * The statements of the block's class and its bases: the block's user builds it with what its signature names
   * (`block: Type[BasicBlock]`, maybe inherited), so every class they name may have instances, type uses included.
   */
  private readonly lineage: Set<string>;
  private readonly imports: ClosureImports;
  /**
   * Registered names asked for by string (registry-keys.ts): the statements asking, and the registrations of the
   * name that came (keys of their statements).
   */
  private readonly asked = new Map<string, { by: Set<string>; came: string[] }>();
  /** Statements whose text was read for the registered names it asks for. */
  private readonly scanned = new Set<string>();
  /** Header import statement key → the statements patching what it binds (fillPatched). */
  private readonly patches = new Map<string, Patch[]>();
  /**
   * Import-time reads of a name their module binds again later (Lookup.nameAt): each rebinding comes after the
   * reader, as upstream runs them (`orderRebindings`).
   */
  private readonly readsBefore: { st: IncludedStmt; name: string }[] = [];
  /** Definitions whose earlier bindings (`Program.bindingChain`) were included. */
  private readonly chained = new Set<BindingKey>();
  private readonly modules: ModuleObjects;

  constructor(
    private readonly program: Program,
    private readonly lookup: Lookup,
    private readonly block: { mod: IndexedModule; stmt: number; name: string },
    private readonly roots: ClosureRoot[],
    private readonly text?: ClosureText,
  ) {
    const { mod, stmt, name } = block;
    this.c = {
      blockKey: defKey(mod, stmt, name),
      rootKeys: roots.map((r) => defKey(r.mod ?? mod, r.stmt, r.name)),
      stmts: new Map(),
      namespaces: new Map(),
      bindings: new Map(),
      externals: new Set(),
      submodules: new Map(),
      diagnostics: [],
    };
    this.methods = new MethodReach(lookup, (m) => this.reached.push(m));
    this.lineage = new Set(this.methods.lineage(mod, stmt, name).map(([m, s]) => stmtKey(m, s)));
    this.modules = new ModuleObjects(lookup, this.c, {
      provide: (t, from, alias) => this.provide(t, from, alias),
      staticRead: (t, attr) => this.methods.staticRead(t.mod, t.stmt, t.name, attr),
    });
    this.imports = new ClosureImports(program, lookup, this.c, {
      provide: (t, from, alias) => this.provide(t, from, alias),
      useModule: (t, from, alias, uses) => this.modules.use(t, from, alias, uses),
    });
    for (const asked of text?.asks ?? []) this.asked.set(asked, { by: new Set([stmtKey(mod, stmt)]), came: [] });
  }

  build(): Closure {
    this.seed();
    this.drain();
    this.finish();
    return this.c;
  }

  // ---- phases -------------------------------------------------------------------------------------------------

  /** The block and the extra roots: included, bound under their names, and instantiated when they are classes. */
  private seed(): void {
    const { mod, stmt, name } = this.block;
    this.include(mod, stmt);
    // The block is what its user instantiates (with every class its statement defines).
    for (const k of classesOf(mod, stmt)) this.methods.instantiate(mod, stmt, k.qualname.split('.')[0]);
    this.c.bindings.set(this.c.blockKey, { key: this.c.blockKey, name, by: stmtKey(mod, stmt), kind: 'def' });
    this.chained.add(this.c.blockKey); // what it is: no earlier binding of its name comes with it
    this.roots.forEach((r, i) => {
      const key = this.c.rootKeys[i];
      const m = r.mod ?? mod;
      if (!this.c.bindings.has(key)) {
        this.c.bindings.set(key, { key, name: r.name, by: this.include(m, r.stmt), kind: 'def' });
        this.chained.add(key);
      }
      // A class root (a layer class the runner may pass to the block) is instantiated like the block itself.
      if (classesOf(m, r.stmt).some((k) => k.qualname === r.name)) this.methods.instantiate(m, r.stmt, r.name);
    });
  }

  /**
   * Visits included statements until none waits; then follows one reachable method (whose reads may include more);
   * when neither is left, the fillers of imported registries may bring more (fillImported).
   */
  private drain(): void {
    while (
      this.queue.length ||
      this.reached.length ||
      this.fillImported() ||
      this.fillRegistered() ||
      this.fillPatched()
    ) {
      const next = this.queue.shift();
      if (next) this.visit(next.mod, next.stmt);
      else this.followMethod(this.reached.shift()!);
    }
  }

  /**
   * Which entries each included dict literal keeps, the free names of the methods that never run, and the
   * rebindings that follow what read the binding before them.
   */
  private finish(): void {
    for (const st of this.c.stmts.values()) {
      const dict = st.mod.facts.statements[st.stmt].dict;
      if (dict) st.keptEntries = this.dicts.kept(st.key, dict);
    }
    this.orderRebindings();
    leaveOut(this.c, this.methods.unreached(), this.lookup, this.program, (t) => this.bindingOf(t));
  }

  /**
   * A statement that read a name at import time before the module binds it again runs before that rebinding, which
   * would otherwise be free to go first (nothing it reads needs the reader): an edge from each included rebinding.
   *   cfgs = {'a': {...}}
   *   _quick = [n for n, c in cfgs.items() if c.get('notes')]    # before the line below, as upstream
   *   cfgs = {k: Wrapped(v) for k, v in cfgs.items()}
   */
  private orderRebindings(): void {
    for (const { st, name } of this.readsBefore) {
      for (const later of this.program.bindersFrom(st.mod, name, st.stmt + 1))
        this.c.stmts.get(stmtKey(st.mod, later))?.eagerDeps.add(st.key);
    }
  }

  // ---- visiting statements ------------------------------------------------------------------------------------

  /** Includes a statement; `keys`: it is read only as `NAME['key']` with these keys (null: read whole). */
  private include(m: IndexedModule, s: number, headerImport = false, keys: string[] | null = null): string {
    const key = stmtKey(m, s);
    const dict = m.facts.statements[s].dict;
    // Read again with keys it left out: visit it again (read() says so only once it was visited).
    if (dict && this.dicts.read(key, dict, keys)) this.queue.push({ mod: m, stmt: s });
    if (!this.c.stmts.has(key)) {
      this.c.stmts.set(key, {
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
      this.queue.push({ mod: m, stmt: s });
    }
    return key;
  }

  private visit(m: IndexedModule, s: number): void {
    const st = this.c.stmts.get(stmtKey(m, s))!;
    const facts = m.facts.statements[s];
    if (this.visited.has(st.key)) {
      // A dict literal visited again: a later reference needs entries it left out.
      if (facts.dict) this.followReads(st, this.dicts.visit(st.key, facts.dict));
      return;
    }
    this.visited.add(st.key);
    if (facts.hasError) this.c.diagnostics.push(syntaxErrorIncluded(m, facts));
    if (st.headerImport) {
      this.imports.registerHeader(st);
      return;
    }
    if (facts.dict) this.visitDict(st, facts, facts.dict);
    else this.visitCode(st, facts);
    // Statements elsewhere in the module that fill what this one binds (registries): fills.ts.
    for (const other of fillers(this.program, m, s)) this.include(m, other);
    // Bindings a decorator reads off this module's object (timm's `default_cfgs`): decorator-reads.ts.
    for (const other of decoratorModuleReads(this.program, this.lookup, m, s)) this.include(m, other);
  }

  /** A dict literal: what its needed entries read (dict-use.ts), and what it reads outside them. */
  private visitDict(st: IncludedStmt, facts: TopStatement, dict: DictFact): void {
    // `ACTS = dict(...)` with `dict` rebound is a call like any other: no entries to leave out.
    if (facts.eager.some((r) => r.name === 'dict') && this.lookup.name(st.mod, 'dict').kind !== 'builtin')
      this.dicts.read(st.key, dict, null);
    this.followReads(st, this.dicts.visit(st.key, dict));
    this.imports.rewriteNested(st, () => true);
    this.methods.readIn(st.mod, facts, facts.attrReads, null);
  }

  /** Any other statement: method bodies wait until the method can run (followMethod); the rest runs now or may. */
  private visitCode(st: IncludedStmt, facts: TopStatement): void {
    const classes = classesOf(st.mod, st.stmt);
    const bodies = classes.flatMap((k) => k.methods);
    if (bodies.some((f) => !f.body)) this.methods.all(); // facts without method attribution: follow everything
    const outside = (byte: number) => !bodies.some((f) => inBody(f, byte));
    this.followReads(st, (occ) => outside(occ.startByte));
    this.imports.rewriteNested(st, (imp) => outside(imp.span.startByte));
    this.methods.readIn(st.mod, facts, facts.attrReads, null);
    if (classes.length) this.methods.addClasses(st.mod, st.key, classes);
  }

  /** A method that can run: what its body reads is needed now (methods.ts). */
  private followMethod(u: Method): void {
    const st = this.c.stmts.get(u.stmt)!;
    this.followReads(st, (occ) => inBody(u.fact, occ.startByte));
    this.imports.rewriteNested(st, (imp) => inBody(u.fact, imp.span.startByte));
    this.methods.readIn(st.mod, st.mod.facts.statements[st.stmt], u.fact.attrReads, u.cls);
  }

  /**
   * Includes the statements of the closure's modules that fill an object imported from another module that the
   * closure needs (`MODELS.register_module('Conv2d', ...)` in a module importing MODELS); whether any came.
   * Looked at again once the queue drains, as the closure grows.
   */
  private fillImported(): boolean {
    let added = false;
    const mods = new Set([...this.c.stmts.values()].map((st) => st.mod));
    for (const m of mods) {
      const needed = (n: string) => {
        const t = this.lookup.name(m, n);
        return t.kind === 'def' && t.mod !== m && this.c.bindings.has(defKey(t.mod, t.stmt, t.name));
      };
      for (const s of importedFillers(m, needed)) {
        if (this.c.stmts.has(stmtKey(m, s))) continue;
        this.include(m, s);
        added = true;
      }
    }
    return added;
  }

  /**
   * Includes the statements that patch an attribute of an outside object an included import binds, when the
   * closure reads that attribute (patches.ts); whether any came. Looked at again once the queue drains: the code
   * that came may read more.
   */
  private fillPatched(): boolean {
    if (!this.text) return false;
    let added = false;
    for (const st of [...this.c.stmts.values()]) {
      if (!st.headerImport) continue;
      let patches = this.patches.get(st.key);
      if (!patches) {
        const { readText } = this.text;
        this.patches.set(st.key, (patches = patchesOf(st.mod, st.stmt, () => readText(st.mod))));
      }
      for (const p of patches) {
        if (this.c.stmts.has(stmtKey(st.mod, p.stmt)) || !this.methods.readsAttr(p.attr)) continue;
        this.include(st.mod, p.stmt);
        added = true;
      }
    }
    return added;
  }

  /**
   * Includes the registration of each name the closure's code asks a registry for by string (`dict(type='BN')`),
   * when it fills a registry the closure holds (registry-keys.ts); whether any came. Looked at again once the
   * queue drains: new code asks for more names, and a registry that came makes more registrations visible.
   */
  private fillRegistered(): boolean {
    if (!this.text) return false;
    const { readText } = this.text;
    for (const st of this.c.stmts.values()) {
      if (st.headerImport || this.scanned.has(st.key)) continue;
      this.scanned.add(st.key);
      const { span } = st.mod.facts.statements[st.stmt];
      const text = readText(st.mod).subarray(span.startByte, span.endByte).toString('utf8');
      for (const name of configTypeNames(text)) {
        const ask = this.asked.get(name) ?? { by: new Set<string>(), came: [] };
        this.asked.set(name, ask);
        ask.by.add(st.key);
      }
    }
    const index = registrationIndex(this.program, readText);
    const before = this.queue.length + this.reached.length;
    for (const [name, ask] of this.asked) {
      if (!ask.came.length) {
        const sites = (index.get(name) ?? []).filter((site) => this.holdsRegistry(site)).slice(0, MAX_SITES_PER_KEY);
        ask.came = sites.map((site) =>
          site.className
            ? this.c.bindings.get(
                this.provideDef({ kind: 'def', mod: site.mod, stmt: site.stmt, name: site.className }, null, false),
              )!.by
            : this.include(site.mod, site.stmt),
        );
      }
      // Every statement asking, also those that asked after the registration came.
      for (const key of ask.came) {
        const st = this.c.stmts.get(key)!;
        st.askedBy ??= new Set();
        for (const by of ask.by) st.askedBy.add(by);
      }
    }
    // A registration already in the closure adds nothing to visit.
    return this.queue.length + this.reached.length > before;
  }

  /** Whether the registry a registration fills is a binding the closure holds. */
  private holdsRegistry(site: RegistrationSite): boolean {
    const t = this.lookup.dotted(site.mod, site.receiver);
    return t.kind === 'def' && this.c.bindings.has(defKey(t.mod, t.stmt, t.name));
  }

  // ---- following names ----------------------------------------------------------------------------------------

  /**
   * Follows the reads of a statement whose occurrences pass `keep`: all of them but those in a dict's left-out
   * entries, or in method bodies that can't run yet (methods.ts), or only those in one method's body.
   */
  private followReads(st: IncludedStmt, keep: (occ: NameOccurrence) => boolean): void {
    const facts = st.mod.facts.statements[st.stmt];
    // What an `if TYPE_CHECKING:` body reads is never needed: it never runs (type-checking.ts).
    const follow = (ref: NameRef, eager: boolean) => {
      const occurrences = ref.occurrences.filter((o) => keep(o) && !typeCheckingOnly(facts, o.startByte));
      if (occurrences.length) this.resolveRef(st, ref.name, occurrences, eager);
    };
    for (const ref of facts.eager) if (!facts.binds.includes(ref.name)) follow(ref, true);
    for (const ref of facts.deferred) follow(ref, false);
    // `global X; X = v` in a function: X is the module's X, so its import-time initialiser comes too (and a
    // rename on a clash reaches the `global` line and the assignment). docs/resolve.md, "global and nonlocal".
    for (const ref of facts.rebinds) if (!st.refs.has(ref.name)) follow(ref, false);
    for (const ref of facts.deferred.concat(facts.eager)) {
      if (!facts.binds.includes(ref.name)) continue;
      // `cfgs = wrap(cfgs)` after an earlier `cfgs = {...}` reads that one when it runs (Lookup.nameAt).
      if (facts.eager.includes(ref) && this.program.bindingBefore(st.mod, ref.name, st.stmt) >= 0) follow(ref, true);
      // A self-reference (`super(Foo, self)` inside Foo) reaches the statement itself.
      else if (!st.refs.has(ref.name)) follow(ref, false);
    }
  }

  /**
   * A free name of statement `st`, read at these occurrences: provides its binding, records the dependency. Read
   * `eager`ly (when the statement runs, at import time), it is the binding before `st` (Lookup.nameAt).
   */
  private resolveRef(st: IncludedStmt, name: string, occurrences: NameOccurrence[], eager: boolean): void {
    const t = eager ? this.lookup.nameAt(st.mod, name, st.stmt) : this.lookup.name(st.mod, name);
    if (eager && this.program.bindingBefore(st.mod, name, st.stmt) >= 0) this.readsBefore.push({ st, name });
    if (t.kind === 'module') {
      this.resolveModuleRef(st, name, t, occurrences, eager);
      return;
    }
    const asType = !this.lineage.has(st.key) && occurrences.every((o) => o.typeOnly);
    // `cast(Boxes, b)` with Boxes bound only under `if TYPE_CHECKING:`: NameError upstream too; said, not fixed.
    if (t.kind === 'typing' && occurrences.some((o) => !o.typeOnly) && this.firstTime(st.mod, name))
      this.c.diagnostics.push(readAtRunTime(st.mod, name, t.mod));
    const key = this.provide(t, st.mod, name, literalKeys(occurrences), asType);
    if (t.kind === 'external' && t.via) {
      const by = stmtKey(t.via.mod, t.via.stmt);
      for (const sub of submodulesRead(t, occurrences)) {
        const subs = this.c.submodules.get(by) ?? new Set<string>();
        this.c.submodules.set(by, subs.add(sub));
      }
    }
    // `Base.init_weights(self)`: a method read off the class by name runs whatever the live classes (methods.ts).
    if (t.kind === 'def')
      for (const o of occurrences) if (o.attrs.length) this.methods.staticRead(t.mod, t.stmt, t.name, o.attrs[0]);
    if (!key) return;
    st.refs.set(name, key);
    (eager ? st.eagerDeps : st.lateDeps).add(this.c.bindings.get(key)!.by);
  }

  /** A name bound to a module object: a namespace holding the members its occurrences read. */
  private resolveModuleRef(
    st: IncludedStmt,
    name: string,
    t: ModuleTarget,
    occurrences: NameOccurrence[],
    eager: boolean,
  ): void {
    const nsKey = this.modules.use(t, st.mod, name, occurrences);
    st.refs.set(name, nsKey);
    (eager ? st.eagerDeps : st.lateDeps).add(nsKey);
  }

  /**
   * Makes the binding that target `t` denotes available; returns its key, or null (builtin / unresolved).
   * `keys`: the references read it only with these literal keys (`ACTS['relu']`); null: read whole. `asType`:
   * they use it only as a type (`isinstance(x, Config)`), which makes no instance of a class (methods.ts).
   */
  private provide(
    t: Target,
    from: IndexedModule,
    alias: string,
    keys: string[] | null = null,
    asType = false,
  ): BindingKey | null {
    switch (t.kind) {
      case 'builtin':
        return null;
      case 'unresolved':
        if (this.firstTime(from, t.name)) this.c.diagnostics.push(unresolvedName(from, alias, t.reason));
        return null;
      case 'external':
        return this.provideExternal(t);
      case 'def':
        return this.provideDef(t, keys, asType);
      case 'module':
        return this.modules.namespaceFor(t.sourceId, t.module, alias);
      case 'typing':
        // Nothing to bind at run time: the `if TYPE_CHECKING:` comes along for type checkers (type-checking.ts).
        this.include(t.mod, t.stmt);
        return null;
    }
  }

  private provideExternal(t: ExternalTarget): BindingKey | null {
    this.c.externals.add(t.qualified.split('.')[0]);
    if (!t.via) return null; // a dotted use of an already-provided external module object
    const viaStmt = t.via.mod.facts.statements[t.via.stmt];
    const by = this.include(t.via.mod, t.via.stmt, viaStmt.kind === 'import');
    // Named as the importing statement binds it (`from torch import nn as tnn` → tnn), whatever alias the
    // referencing module used; references under another alias are renamed to it.
    const key = externalKey(t.qualified, t.via.name);
    const b = this.c.bindings.get(key);
    if (b) b.needed = true;
    else this.c.bindings.set(key, { key, name: t.via.name, by, kind: 'external', needed: true });
    return key;
  }

  private provideDef(t: DefTarget, keys: string[] | null, asType: boolean): BindingKey {
    if (!asType) this.methods.instantiate(t.mod, t.stmt, t.name);
    const key = defKey(t.mod, t.stmt, t.name);
    const by = this.include(t.mod, t.stmt, false, keys);
    if (!this.c.bindings.has(key)) this.c.bindings.set(key, { key, name: t.name, by, kind: 'def' });
    if (!this.chained.has(key)) {
      this.chained.add(key);
      // A conditional binding (try/if) may not run: the earlier bindings it would replace come too, first; as does
      // the one a rebinding reads (`X = f(X)`). Each is a binding of the name too: a rename on a clash renames all
      // of them alike (names.ts), so the rebinding still rebinds.
      for (const earlier of this.program.bindingChain(t.mod, t.name, t.stmt)) {
        if (earlier === t.stmt) continue;
        const was = defKey(t.mod, earlier, t.name);
        const wasBy = this.include(t.mod, earlier);
        if (!this.c.bindings.has(was)) this.c.bindings.set(was, { key: was, name: t.name, by: wasBy, kind: 'def' });
        this.c.stmts.get(by)!.eagerDeps.add(wasBy);
      }
    }
    return key;
  }

  /** The key of the binding target `t` denotes when the closure has it already, else undefined. */
  private bindingOf(t: Target): BindingKey | undefined {
    const key =
      t.kind === 'def'
        ? defKey(t.mod, t.stmt, t.name)
        : t.kind === 'external' && t.via
          ? externalKey(t.qualified, t.via.name)
          : undefined;
    const b = key === undefined ? undefined : this.c.bindings.get(key);
    return b && (b.kind !== 'external' || b.needed) ? b.key : undefined;
  }

  /** A name of a module not reported yet (one diagnostic per module and name). */
  private firstTime(m: IndexedModule, name: string): boolean {
    const k = `${m.path}\0${name}`;
    if (this.reported.has(k)) return false;
    this.reported.add(k);
    return true;
  }
}
