// Module objects of the corpus a closure reads (closure.ts; docs/resolve.md, "Module objects"): the namespace
// standing in for each, holding the members read through attributes; or, for a module used as an object, every
// public member, since which ones are read is decided when the code runs:
//   aggrs = [a for a in vars(aggr).values() if issubclass(a, Aggregation)]   # PyG's aggregation_resolver
//   backbone = getattr(torchvision.models, name)(...)                         # detr's Backbone
// A computed name taken from a table of strings reads one of those, not any member:
//   getattr(getattr(auto_module, PLACEHOLDERS[p][0]), PLACEHOLDERS[p][1])    # transformers' auto_docstring
import type { IndexedModule } from '../index/types.ts';
import type { NameOccurrence } from '../parse/facts.ts';
import { moduleNamespaceComplete, moduleNamespaceTooLarge } from './closure-diagnostics.ts';
import { namespaceKey, type BindingKey, type Closure } from './closure-record.ts';
import type { Lookup, Target } from './lookup.ts';

type ModuleTarget = Extract<Target, { kind: 'module' }>;

/**
 * A module with more public members than this gets a namespace of the members read statically instead (and a
 * diagnostic): every member of a large package would be assembled into every block that uses it so. Facades that
 * large are read dynamically by tooling (`inspect.getmembers(torchvision.ops)` in torchvision's FX feature
 * extraction, which every timm block reaches), not to build or run a block; the registries resolved by name are
 * small (PyG's `aggr` 27, `norm` 11). docs/resolve.md, "Module objects".
 */
const MAX_MODULE_MEMBERS = 32;

/** The longest attribute chain an occurrence records (NameOccurrence.attrs). */
const MAX_ATTRS = 4;

/** What the closure does with a member found: provide its binding, and note a class attribute read off it. */
interface MemberSink {
  /** The binding a target denotes, with its closure; its key, or null when there is none. */
  provide: (t: Target, from: IndexedModule, alias: string) => BindingKey | null;
  /** `alias.Cls.attr`: attribute `attr` is read off definition `t` (a method read off the class, methods.ts). */
  staticRead: (t: Extract<Target, { kind: 'def' }>, attr: string) => void;
}

export class ModuleObjects {
  /** Namespaces of modules used as objects, made complete (or found too large) once. */
  private readonly completed = new Set<BindingKey>();

  constructor(
    private readonly lookup: Lookup,
    private readonly c: Closure,
    private readonly sink: MemberSink,
  ) {}

  /** The namespace for module `module` of `sourceId`, made on first use under `alias` (its preferred name). */
  namespaceFor(sourceId: string, module: string, alias: string): BindingKey {
    const key = namespaceKey(sourceId, module);
    if (!this.c.namespaces.has(key)) {
      this.c.namespaces.set(key, { key, alias, members: new Map() });
      this.c.bindings.set(key, { key, name: alias, by: key, kind: 'namespace' });
    }
    return key;
  }

  /**
   * The namespace standing in for module object `t`, read under `alias` at these occurrences (a free name's, or
   * those of a function-local import's name: ImportedName.uses), holding the members they read.
   */
  use(t: ModuleTarget, from: IndexedModule, alias: string, occurrences: NameOccurrence[]): BindingKey {
    const nsKey = this.namespaceFor(t.sourceId, t.module, alias);
    for (const occ of occurrences) this.addMembers(nsKey, t, occ.attrs, from, occ.via);
    return nsKey;
  }

  /**
   * `alias.a.b` on a module object: adds members level by level, into the namespace `nsKey` and those below. A
   * chain that ends at a module object (`vars(alias)`, `getattr(alias.sub, name)`, `f(alias)`) or reads its
   * `__dict__` uses the module as an object: its namespace gets every public member.
   */
  private addMembers(nsKey: BindingKey, t: ModuleTarget, attrs: string[], from: IndexedModule, via?: string): void {
    let curKey = nsKey;
    let cur = t;
    for (const [i, a] of attrs.entries()) {
      if (a === '__dict__') {
        this.complete(curKey, cur, from);
        return;
      }
      const m = this.lookup.attrs(cur, [a], from.sourceId);
      const ns = this.c.namespaces.get(curKey)!;
      if (m.kind === 'module') {
        const sub = this.namespaceFor(m.sourceId, m.module, a);
        ns.members.set(a, sub);
        curKey = sub;
        cur = m;
        continue;
      }
      const member = this.sink.provide(m, from, a);
      if (member) ns.members.set(a, member);
      const next = attrs[i + 1]; // by position: a chain may repeat a name (`pkg.m.m.f`)
      if (m.kind === 'def' && next !== undefined) this.sink.staticRead(m, next);
      return;
    }
    // A chain read at its longest may go on past what was recorded (`a.b.c.d.e`): not known to end at the module.
    if (attrs.length >= MAX_ATTRS) return;
    const strings = via === undefined ? undefined : tableStrings(this.lookup, from, via);
    if (strings) this.tableMembers(curKey, cur, from, strings);
    else this.complete(curKey, cur, from);
  }

  /**
   * `getattr(alias, TABLE[k][0])`: the namespace holds the members the table's strings name. A submodule among them
   * holds those too, for `getattr(getattr(alias, TABLE[k][0]), TABLE[k][1])` (transformers' `auto_docstring` reads
   * `processing_auto.PROCESSOR_MAPPING_NAMES` so); a string that names nothing there is no member.
   */
  private tableMembers(nsKey: BindingKey, t: ModuleTarget, from: IndexedModule, strings: string[], top = true): void {
    const ns = this.c.namespaces.get(nsKey)!;
    for (const a of strings) {
      const m = this.lookup.attrs(t, [a], from.sourceId);
      const key = ns.members.get(a) ?? this.member(m, from, a);
      if (!key) continue;
      ns.members.set(a, key);
      if (top && m.kind === 'module') this.tableMembers(key, m, from, strings, false);
    }
  }

  /**
   * The binding of member `a` that lookup found as `m`: a namespace for a submodule, else the definition provided as
   * a read of `alias.a`; null for a name nothing binds at run time (unresolved, typing-only, a builtin).
   */
  private member(m: Target, from: IndexedModule, a: string): BindingKey | null {
    if (m.kind === 'unresolved' || m.kind === 'typing' || m.kind === 'builtin') return null;
    return m.kind === 'module' ? this.namespaceFor(m.sourceId, m.module, a) : this.sink.provide(m, from, a);
  }

  /**
   * Module `t` is used as an object: its namespace holds every public member, each provided as a read of `t.name`
   * would be, unless there are more than MAX_MODULE_MEMBERS. Said once per namespace.
   */
  private complete(nsKey: BindingKey, t: ModuleTarget, from: IndexedModule): void {
    if (this.completed.has(nsKey)) return;
    this.completed.add(nsKey);
    const ns = this.c.namespaces.get(nsKey)!;
    const file = this.lookup.program.findModule(t.module, t.sourceId);
    const names = file ? publicMembers(this.lookup, file) : [];
    if (names.length > MAX_MODULE_MEMBERS) {
      this.c.diagnostics.push(moduleNamespaceTooLarge(from, t.module, names.length, MAX_MODULE_MEMBERS));
      return;
    }
    ns.complete = true;
    this.c.diagnostics.push(moduleNamespaceComplete(from, t.module, names.length));
    for (const a of names) {
      if (ns.members.has(a)) continue;
      // A name `__all__` lists that nothing binds is an AttributeError upstream too (`from m import *` as well).
      const key = this.member(this.lookup.attrs(t, [a], from.sourceId), from, a);
      if (key) ns.members.set(a, key);
    }
  }
}

/**
 * The name-like strings of table `name` as module `from` binds it (a module-level dict literal: DictFact.strings), or
 * undefined when it binds no such table there.
 */
function tableStrings(lookup: Lookup, from: IndexedModule, name: string): string[] | undefined {
  const t = lookup.name(from, name);
  return t.kind === 'def' ? t.mod.facts.statements[t.stmt]?.dict?.strings : undefined;
}

/**
 * The public members of a module: the names in a static `__all__` when it defines one; else its module-level
 * bindings not starting with `_` (and those a dynamic `__all__` lists), with what its star imports of the corpus's
 * modules export, in source order. `import torch` binds `torch` in the module as `def f` binds `f`: both are members.
 */
function publicMembers(lookup: Lookup, mod: IndexedModule): string[] {
  return [...collect(lookup, mod, new Set())];
}

function collect(lookup: Lookup, mod: IndexedModule, seen: Set<string>): Set<string> {
  const all = mod.facts.all;
  if (all && !all.dynamic) return new Set(all.names);
  const names = new Set<string>();
  const key = `${mod.sourceId}\0${mod.path}`;
  if (seen.has(key)) return names; // a star-import cycle
  seen.add(key);
  const stars = mod.facts.imports.filter((i) => i.star && i.scope === 'module');
  for (const st of mod.facts.statements) {
    for (const n of st.binds) if (!n.startsWith('_')) names.add(n);
    for (const star of stars) {
      if (star.statementIndex !== st.index) continue;
      const base = lookup.program.absoluteFrom(mod, star);
      const target = base && lookup.sourceOf(base, mod.sourceId) ? lookup.program.findModule(base, mod.sourceId) : null;
      if (target) for (const n of collect(lookup, target, seen)) if (lookup.exports(target, n)) names.add(n);
    }
  }
  for (const n of all?.names ?? []) names.add(n);
  return names;
}
