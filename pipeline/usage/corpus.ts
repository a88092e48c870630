// The indexed corpus as usage mining reads it: classes, functions and methods by key, each scope's calls and links,
// and dotted names resolved to them through the resolver's Lookup (aliases, re-exports, module objects, stars).
//   from .resnet import Bottleneck as B     # B(...) in this module resolves to the class resnet.Bottleneck
//   Block = Bottleneck                      # so does Block(...): a module-level alias is followed
import { aliasOf, classAt, type Block } from '../discover/discover.ts';
import type { IndexedModule } from '../index/types.ts';
import type { CallFact, ClassFact, FunctionFact, LinkFact } from '../parse/facts.ts';
import { Lookup, type Target } from '../resolve/lookup.ts';
import type { Program } from '../resolve/program.ts';

export interface ClassInfo {
  /** `<sourceId>:<module>.<qualname>`, the form of a block id. */
  key: string;
  mod: IndexedModule;
  fact: ClassFact;
  /** Set when the class is a discovered block. */
  block?: Block;
  methods: Map<string, FnInfo>;
}

export interface FnInfo {
  /** `<sourceId>:<module>.<qualname>`. */
  key: string;
  mod: IndexedModule;
  fact: FunctionFact;
  /** The class it is a method of; absent for a module-level function. */
  cls?: ClassInfo;
}

/** A call with its module. */
export interface CallRef {
  mod: IndexedModule;
  call: CallFact;
}

/** What a dotted name is, where it is read at module level. */
export type Resolved =
  | { kind: 'class'; cls: ClassInfo }
  | { kind: 'function'; fn: FnInfo }
  /** A module-level dict literal of the corpus (`BLOCKS = {'basic': Basic}`): a registry when read with a key. */
  | { kind: 'dict'; mod: IndexedModule; call: CallFact }
  | { kind: 'external'; qualified: string }
  | { kind: 'builtin'; name: string }
  | { kind: 'unknown' };

const UNKNOWN: Resolved = { kind: 'unknown' };
const MAX_ALIAS = 8;

export class UsageCorpus {
  readonly lookup: Lookup;
  readonly classes = new Map<string, ClassInfo>();
  readonly functions = new Map<string, FnInfo>();
  /** Calls and links by `<source>\0<path>\0<scope>`. */
  private readonly scopes = new Map<string, { calls: CallFact[]; links: LinkFact[] }>();
  private readonly cache = new Map<string, Resolved>();
  private readonly baseCache = new Map<string, ClassInfo[]>();

  constructor(
    readonly program: Program,
    blocks: Block[],
  ) {
    this.lookup = new Lookup(program);
    const byId = new Map(blocks.map((b) => [b.id, b]));
    for (const mod of program.modules) {
      // Calls by scope for every file, one named as no module can be too (a config file, `tiny-wide_8xb32.py`).
      const usage = mod.facts.usage;
      for (const call of usage.calls) this.scope(mod, usage.scopes[call.scope]).calls.push(call);
      for (const link of usage.links) this.scope(mod, usage.scopes[link.scope]).links.push(link);
      if (!mod.module) continue;
      const prefix = `${mod.sourceId}:${mod.module}.`;
      for (const c of mod.facts.classes) {
        const info: ClassInfo = { key: prefix + c.qualname, mod, fact: c, methods: new Map() };
        const block = byId.get(info.key);
        if (block) info.block = block;
        this.classes.set(info.key, info);
        for (const m of c.methods) {
          const fn: FnInfo = { key: `${info.key}.${m.name}`, mod, fact: m, cls: info };
          info.methods.set(m.name, fn);
          this.functions.set(fn.key, fn);
        }
      }
      for (const f of mod.facts.functions)
        this.functions.set(prefix + f.qualname, { key: prefix + f.qualname, mod, fact: f });
    }
  }

  private scope(mod: IndexedModule, scope: string) {
    const key = `${mod.sourceId}\0${mod.path}\0${scope}`;
    let s = this.scopes.get(key);
    if (!s) this.scopes.set(key, (s = { calls: [], links: [] }));
    return s;
  }

  /** Calls and links written directly in a scope (`ResNet._make_layer`, '' for module level). */
  inScope(mod: IndexedModule, scope: string): { calls: CallFact[]; links: LinkFact[] } {
    return this.scopes.get(`${mod.sourceId}\0${mod.path}\0${scope}`) ?? { calls: [], links: [] };
  }

  /** The function or method a scope is, if it is one the index knows (nested functions are not). */
  fnOf(mod: IndexedModule, scope: string): FnInfo | undefined {
    return scope && mod.module ? this.functions.get(`${mod.sourceId}:${mod.module}.${scope}`) : undefined;
  }

  /** The class whose method or body a scope is: `ResNet._make_layer` → ResNet, `ResNet` → ResNet. */
  classOf(mod: IndexedModule, scope: string): ClassInfo | undefined {
    if (!scope || !mod.module) return undefined;
    const outer = scope.split('.<locals>.')[0];
    const prefix = `${mod.sourceId}:${mod.module}.`;
    const own = this.classes.get(prefix + outer);
    if (own) return own;
    const dot = outer.lastIndexOf('.');
    return dot > 0 ? this.classes.get(prefix + outer.slice(0, dot)) : undefined;
  }

  /** The class's internal bases, nearest first (its MRO as far as the corpus holds it, depth-first). */
  basesOf(cls: ClassInfo): ClassInfo[] {
    const hit = this.baseCache.get(cls.key);
    if (hit) return hit;
    const out: ClassInfo[] = [];
    this.baseCache.set(cls.key, out);
    for (const b of cls.fact.bases) {
      if (!b.dotted) continue;
      const r = this.resolve(cls.mod, b.dotted);
      if (r.kind !== 'class' || r.cls === cls) continue;
      for (const c of [r.cls, ...this.basesOf(r.cls)]) if (!out.includes(c) && c !== cls) out.push(c);
    }
    return out;
  }

  /** A method as Python finds it on the class: its own, else the first internal base's. */
  method(cls: ClassInfo, name: string): FnInfo | undefined {
    return (
      cls.methods.get(name) ??
      this.basesOf(cls)
        .find((b) => b.methods.has(name))
        ?.methods.get(name)
    );
  }

  /** What a dotted name read at module level of `mod` is. Cached; never throws. */
  resolve(mod: IndexedModule, dotted: string, depth = 0): Resolved {
    const key = `${mod.sourceId}\0${mod.path}\0${dotted}`;
    let r = this.cache.get(key);
    if (!r) {
      r = this.compute(mod, dotted, depth);
      this.cache.set(key, r);
    }
    return r;
  }

  private compute(mod: IndexedModule, dotted: string, depth: number): Resolved {
    const [head, ...attrs] = dotted.split('.');
    let t: Target = this.lookup.name(mod, head);
    for (let i = 0; i < attrs.length; i++) {
      if (t.kind === 'external') return { kind: 'external', qualified: [t.qualified, ...attrs.slice(i)].join('.') };
      // An attribute of a class or a value (`ResNet.from_config`, `cfg.build`) is not the class itself.
      if (t.kind !== 'module') return UNKNOWN;
      t = this.lookup.attrs(t, [attrs[i]], mod.sourceId);
    }
    if (t.kind === 'external') return { kind: 'external', qualified: t.qualified };
    if (t.kind === 'builtin') return { kind: 'builtin', name: t.name };
    if (t.kind !== 'def' || !t.mod.module) return UNKNOWN;
    const prefix = `${t.mod.sourceId}:${t.mod.module}.`;
    const cls = classAt(t.mod, t.stmt, t.name);
    if (cls)
      return this.classes.has(prefix + cls.qualname)
        ? { kind: 'class', cls: this.classes.get(prefix + cls.qualname)! }
        : UNKNOWN;
    let fn: FunctionFact | undefined;
    for (const f of t.mod.facts.functions) if (f.statementIndex === t.stmt && f.name === t.name) fn = f;
    if (fn) return { kind: 'function', fn: this.functions.get(prefix + fn.qualname)! };
    const alias = depth < MAX_ALIAS ? aliasOf(t.mod, t.stmt) : null;
    if (alias) return this.resolve(t.mod, alias, depth + 1);
    const dict = this.inScope(t.mod, '')
      .calls.filter((c) => c.callee === 'dict' && c.assign === t.name)
      .pop();
    return dict ? { kind: 'dict', mod: t.mod, call: dict } : UNKNOWN;
  }
}

/** The qualname of the scope a call or link sits in (`ResNet._make_layer`; '' at module level). */
export function scopeOf(mod: IndexedModule, x: { scope: number }): string {
  return mod.facts.usage.scopes[x.scope] ?? '';
}

/** The qualified name a published record gives a class or function: `torchvision.models.resnet.Bottleneck`. */
export function qualifiedName(info: ClassInfo | FnInfo): string {
  return `${info.mod.module}.${info.fact.qualname}`;
}
