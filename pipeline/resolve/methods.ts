// Method-level reachability (docs/resolve.md, "Methods"): a needed class statement is copied whole, but what a
// method body reads is followed only once the method can run: rapid type analysis by name. A class is *live*
// when reached code may make instances of it (it uses the class other than as a type: `Config(...)`,
// `dict(type=Config)`, `Config.fromfile(...)`, not `isinstance(x, Config)`, an annotation or a base), it is
// decorated (a registry decorator keeps it, to be built from a string), or it is the block. A method K.name then runs when, for some live class L deriving from K (or K itself) whose lookup of
// `name` finds K's (no subclass of K between them defines it):
//   - reached code reads `name` off anything (`m.init_weights()`, `getattr(m, 'extra_repr')`), or off `self` in a
//     method of a class L derives from (`self.norm(x)`), or `name` is a dunder (Python calls them on its own), or
//     probes it (`hasattr(m, 'name')`) and K's is decorated (a property runs then; a plain method does not);
//   - L derives from torch and torch calls `name` on its own (`forward`, `extra_repr`, `_load_from_state_dict`,
//     `train`, `to`...: torch-calls.json, generated), or from another outside class (`logging.Handler` calls
//     `emit`): then any name, we can't see;
//   - reached code reads attributes by a computed name: off `self` in a method of a class L derives from
//     (`getattr(self, self.mode)`), or off anything we can't look up (`getattr(obj, name)`).
// And K.name runs whatever the live classes when code reads it off `super()` (K in the family of a live class),
// or off K or a subclass by name (`BaseModule.init_weights(self)`); `__init_subclass__` runs on each subclass.
//   class BaseModule(nn.Module):
//       def init_weights(self): print_log(...)   # not followed when every live subclass overrides init_weights
import { createRequire } from 'node:module';
import type { IndexedModule } from '../index/types.ts';
import type { AttrReads, ClassFact, FunctionFact, TopStatement } from '../parse/facts.ts';
import type { Lookup } from './lookup.ts';

const TORCH_CALLS: ReadonlySet<string> = new Set(
  (createRequire(import.meta.url)('./torch-calls.json') as { names: string[] }).names,
);
const DUNDER = /^__\w+__$/;
/** Run on the class itself, instances or not: when a subclass is defined, when `Cls[...]` is written. */
const CLASS_LEVEL = new Set(['__init_subclass__', '__class_getitem__']);
/** Outside bases that call no method of a subclass by a name of their own: typing's, `abc.ABC`. */
const INERT = /^(?:typing|typing_extensions)\.|^abc\.ABC$/;

export interface Method {
  /** Key of the statement defining the class. */
  stmt: string;
  /** Key of the class. */
  cls: string;
  fact: FunctionFact;
}

/** Whether a byte offset lies in a method's body. */
export function inBody(fact: FunctionFact, byte: number): boolean {
  return fact.body !== undefined && byte >= fact.body.startByte && byte < fact.body.endByte;
}

/** Classes defined by a statement that are not inside a function (their methods are the unit of reachability). */
export function classesOf(mod: IndexedModule, stmt: number): ClassFact[] {
  return mod.facts.classes.filter((c) => c.statementIndex === stmt && !c.qualname.includes('<locals>'));
}

/** A decorated method may be a descriptor (`@property`), which `hasattr` runs. */
function descriptor(fact: FunctionFact): boolean {
  return fact.decorators.some((d) => !/^(?:staticmethod|classmethod|(?:abc\.)?abstractmethod)$/.test(d));
}

function classKey(mod: IndexedModule, qualname: string): string {
  return `${mod.sourceId}\0${mod.path}\0${qualname}`;
}

/** A nested class is live with its outermost class (`Outer.Inner(...)` reads Outer). */
function outermost(key: string): string {
  const at = key.lastIndexOf('\0');
  const dot = key.indexOf('.', at);
  return dot < 0 ? key : key.slice(0, dot);
}

interface ClassInfo {
  /** Keys of the bases defined in the corpus. */
  bases: string[];
  /** Every base of the corpus, transitively. */
  ancestors: Set<string>;
  /** Derives from torch (directly or through a base of the corpus): torch calls TORCH_CALLS on it. */
  torch: boolean;
  /** Derives from an outside class that may call any of its methods. */
  opaque: boolean;
  /** Names of the methods it defines. */
  defines: Set<string>;
}

const NO_INFO: ClassInfo = { bases: [], ancestors: new Set(), torch: false, opaque: false, defines: new Set() };

export class MethodReach {
  /**
   * Names read off anything, off `super()`, probed by `hasattr`, off `self` (class → names) and off a class by its
   * name (name → classes).
   */
  private readonly dispatched = new Set<string>();
  private readonly supers = new Set<string>();
  private readonly probes = new Set<string>();
  private readonly selfReads = new Map<string, Set<string>>();
  private readonly statics = new Map<string, Set<string>>();
  /** Classes whose methods read attributes off `self` by a computed name. */
  private readonly dynamicRoots = new Set<string>();
  private everything = false;

  private readonly facts = new Map<string, { mod: IndexedModule; cls: ClassFact }>();
  private readonly info = new Map<string, ClassInfo>();
  /** Outermost classes made live by a reference; the live classes known so far; them and their bases. */
  private readonly liveRoots = new Set<string>();
  private readonly live = new Set<string>();
  private readonly family = new Set<string>();
  private readonly registered = new Set<string>();
  /** Methods not reached yet, by name and by class. */
  private readonly byName = new Map<string, Set<Method>>();
  private readonly byClass = new Map<string, Set<Method>>();

  constructor(
    private readonly lookup: Lookup,
    /** Called once per method that becomes reachable. */
    private readonly onReach: (m: Method) => void,
  ) {}

  /** A needed statement defines these classes: their methods run now, or wait for a reason to. */
  addClasses(mod: IndexedModule, stmtKey: string, classes: ClassFact[]): void {
    const grew: string[] = [];
    for (const cls of classes) {
      const key = classKey(mod, cls.qualname);
      this.facts.set(key, { mod, cls });
      this.registered.add(key);
      // A decorated class may be kept by its decorator (`@MODELS.register_module()`) and built from a string.
      const live = this.liveRoots.has(outermost(key)) || cls.decorators.length > 0;
      if (live && this.makeLive(key)) grew.push(key);
      for (const fact of cls.methods) {
        const m: Method = { stmt: stmtKey, cls: key, fact };
        if (this.reachable(m)) this.onReach(m);
        else {
          this.index(this.byName, fact.name).add(m);
          this.index(this.byClass, key).add(m);
        }
      }
    }
    for (const key of grew) this.recheckLive(key);
  }

  /**
   * Reached code uses class `name` of statement `stmt` other than as a type: it may have instances, so its
   * methods (and its bases') may run.
   */
  instantiate(mod: IndexedModule, stmt: number, name: string): void {
    const key = this.classAt(mod, stmt, name);
    if (!key || this.liveRoots.has(key)) return;
    this.liveRoots.add(key);
    for (const k of [key, ...[...this.registered].filter((r) => r !== key && outermost(r) === key)]) {
      if (this.makeLive(k)) this.recheckLive(k);
    }
  }

  /** The statements defining class `name` of statement `stmt` and its bases of the corpus, as [module, index]. */
  lineage(mod: IndexedModule, stmt: number, name: string): [IndexedModule, number][] {
    const key = this.classAt(mod, stmt, name);
    if (!key) return [];
    return [key, ...this.classInfo(key).ancestors].map((k) => {
      const at = this.facts.get(k)!;
      return [at.mod, at.cls.statementIndex];
    });
  }

  /** `Base.init_weights(self)`: a read of `attr` off class `name` of statement `stmt` by its name. */
  staticRead(mod: IndexedModule, stmt: number, name: string, attr: string): void {
    const key = this.classAt(mod, stmt, name);
    if (!key) return;
    const set = this.index(this.statics, attr);
    if (set.has(key)) return;
    set.add(key);
    this.recheck(this.byName.get(attr));
  }

  /** Reached code reads these attributes; `cls`: the class of the method reading them (null: not a method). */
  private read(reads: AttrReads | undefined, cls: string | null): void {
    if (!reads) return;
    const add = (set: Set<string>, names: string[] | undefined) => {
      for (const n of names ?? []) {
        if (set.has(n)) continue;
        set.add(n);
        this.recheck(this.byName.get(n));
      }
    };
    add(this.dispatched, reads.names);
    add(this.supers, reads.superNames);
    add(this.probes, reads.probeNames);
    add(cls === null ? this.dispatched : this.index(this.selfReads, cls), reads.selfNames);
    if (reads.dynamic === 'self' && cls !== null) this.dynamicOn(cls);
    else if (reads.dynamic) this.all();
  }

  /**
   * `read`, for code of statement `facts` in `mod`: a dynamic read off a named object is looked up there. A
   * module or an outside object holds no method of ours; a class of ours, its own methods may be read; a local
   * or a variable may be anything, so every method may be.
   *   getattr(handlers, name)     # logging.handlers: nothing of ours
   *   getattr(Block, name)        # Block's methods (and its family's)
   */
  readIn(mod: IndexedModule, facts: TopStatement, reads: AttrReads | undefined, cls: string | null): void {
    if (!reads) return;
    this.read(reads, cls);
    for (const r of reads.dynamicOn ?? []) {
      const head = r.name.split('.')[0];
      const free = facts.deferred
        .concat(facts.eager)
        .some((ref) => ref.name === head && ref.occurrences.some((o) => o.startByte === r.startByte));
      const t = free ? this.lookup.dotted(mod, r.name) : null;
      // A name bound only for type checkers holds nothing at run time either.
      if (t?.kind === 'module' || t?.kind === 'external' || t?.kind === 'builtin' || t?.kind === 'typing') continue;
      const key = t?.kind === 'def' ? this.classAt(t.mod, t.stmt, t.name) : null;
      if (key) this.dynamicOn(key);
      else this.all();
    }
  }

  /** Whether reached code reads attribute `name` off something (or may: a dynamic read). */
  readsAttr(name: string): boolean {
    return this.everything || this.dispatched.has(name) || this.supers.has(name);
  }

  /** Every method of every live class may run (correctness first: a read we can't attribute). */
  all(): void {
    if (this.everything) return;
    this.everything = true;
    for (const list of [...this.byClass.values()]) this.recheck(list);
  }

  /** The methods still unreached. */
  unreached(): Method[] {
    return [...this.byClass.values()].flatMap((s) => [...s]);
  }

  private dynamicOn(key: string): void {
    if (this.dynamicRoots.has(key)) return;
    this.dynamicRoots.add(key);
    for (const l of this.live) if (l === key || this.classInfo(l).ancestors.has(key)) this.recheckLive(l);
  }

  private index<T>(map: Map<string, Set<T>>, key: string): Set<T> {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    return set;
  }

  /** Marks a class (with known facts) live; true when it was not. */
  private makeLive(key: string): boolean {
    if (this.live.has(key)) return false;
    this.live.add(key);
    this.family.add(key);
    for (const a of this.classInfo(key).ancestors) this.family.add(a);
    return true;
  }

  /** A live class appeared (or may now reach more): the methods of it and its bases may run. */
  private recheckLive(key: string): void {
    for (const k of [key, ...this.classInfo(key).ancestors]) this.recheck(this.byClass.get(k));
  }

  private recheck(pending: Set<Method> | undefined): void {
    if (!pending) return;
    for (const m of [...pending]) {
      if (!this.reachable(m)) continue;
      this.byName.get(m.fact.name)?.delete(m);
      this.byClass.get(m.cls)?.delete(m);
      this.onReach(m);
    }
  }

  private reachable(m: Method): boolean {
    const name = m.fact.name;
    const k = m.cls;
    if (CLASS_LEVEL.has(name)) return true;
    for (const s of this.statics.get(name) ?? []) if (s === k || this.classInfo(s).ancestors.has(k)) return true;
    if (!this.family.has(k)) return false;
    if (this.supers.has(name)) return true;
    for (const l of this.live) {
      if (l !== k && !this.classInfo(l).ancestors.has(k)) continue;
      if (this.shadowed(k, name, l)) continue;
      if (this.dispatches(l, name) || (this.probes.has(name) && descriptor(m.fact))) return true;
    }
    return false;
  }

  /** Whether something may look `name` up on an instance of live class `l`. */
  private dispatches(l: string, name: string): boolean {
    if (this.everything || DUNDER.test(name) || this.dispatched.has(name)) return true;
    const info = this.classInfo(l);
    if (info.opaque || (info.torch && TORCH_CALLS.has(name))) return true;
    for (const c of [l, ...info.ancestors]) {
      if (this.dynamicRoots.has(c) || this.selfReads.get(c)?.has(name)) return true;
    }
    return false;
  }

  /** A subclass of `k` on `l`'s side defines `name` too: `l`'s lookup finds that one first (C3 puts it before k). */
  private shadowed(k: string, name: string, l: string): boolean {
    for (const d of [l, ...this.classInfo(l).ancestors]) {
      if (d !== k && this.classInfo(d).defines.has(name) && this.classInfo(d).ancestors.has(k)) return true;
    }
    return false;
  }

  private classAt(mod: IndexedModule, stmt: number, name: string): string | null {
    const cls = mod.facts.classes.find((c) => c.statementIndex === stmt && c.qualname === name);
    if (!cls) return null;
    const key = classKey(mod, name);
    if (!this.facts.has(key)) this.facts.set(key, { mod, cls });
    return key;
  }

  /** Bases of a class resolved to corpus classes, or to what derives from torch / an opaque outside class. */
  private classInfo(key: string, stack = new Set<string>()): ClassInfo {
    const known = this.info.get(key);
    if (known) return known;
    const at = this.facts.get(key);
    if (!at || stack.has(key)) return NO_INFO;
    stack.add(key);
    const info: ClassInfo = {
      bases: [],
      ancestors: new Set(),
      torch: false,
      opaque: false,
      defines: new Set(at.cls.methods.map((f) => f.name)),
    };
    for (const base of at.cls.bases) {
      const r = this.resolveBase(at.mod, base.dotted);
      if (r.kind === 'class') {
        info.bases.push(r.key);
        const b = this.classInfo(r.key, stack);
        info.ancestors.add(r.key);
        for (const a of b.ancestors) info.ancestors.add(a);
        info.torch ||= b.torch;
        info.opaque ||= b.opaque;
      } else if (r.kind === 'torch') info.torch = true;
      else if (r.kind === 'opaque') info.opaque = true;
    }
    stack.delete(key);
    this.info.set(key, info);
    return info;
  }

  private resolveBase(
    mod: IndexedModule,
    dotted: string | null,
  ): { kind: 'class'; key: string } | { kind: 'torch' | 'opaque' | 'inert' } {
    if (dotted === null) return { kind: 'opaque' }; // `with_metaclass(Meta, Base)`: a call we don't follow
    const parts = dotted.split('.');
    for (let k = 1; k <= parts.length; k++) {
      const t = this.lookup.dotted(mod, parts.slice(0, k).join('.'));
      if (t.kind === 'module' && k < parts.length) continue;
      if (t.kind === 'builtin') return { kind: 'inert' };
      if (t.kind === 'external') {
        const q = [t.qualified, ...parts.slice(k)].join('.');
        if (q.startsWith('torch.nn.') || q.startsWith('torch.autograd.')) return { kind: 'torch' };
        return INERT.test(q) ? { kind: 'inert' } : { kind: 'opaque' };
      }
      if (t.kind === 'def') {
        const key = this.classAt(t.mod, t.stmt, [t.name, ...parts.slice(k)].join('.'));
        // An alias (`Base = make_base()`) or a nested class we can't place: we can't see what it calls.
        return key ? { kind: 'class', key } : { kind: 'opaque' };
      }
      return { kind: 'opaque' };
    }
    return { kind: 'opaque' };
  }
}
