// Value flow for usage mining: what a callee, a parameter, a local or an attribute of self may hold, followed
// through call sites, assignments and returns across the corpus. Context-insensitive (a parameter holds what any
// caller passes), memoized, bounded; a cycle or a dead end gives nothing rather than a guess.
//   def _resnet(block, layers): return ResNet(block, layers)     # ResNet.__init__'s block holds ...
//   def resnet50(): return _resnet(Bottleneck, [3, 4, 6, 3])     # ... Bottleneck, so block(...) builds one
import type { LiteralValue } from '../contract/common.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ArgFact, CallFact, FunctionFact, ValueFact } from '../parse/facts.ts';
import { scopeOf, type CallRef, type ClassInfo, type FnInfo, type UsageCorpus } from './corpus.ts';

export type FlowValue =
  | { kind: 'literal'; value: LiteralValue }
  | { kind: 'class'; cls: ClassInfo }
  | { kind: 'function'; fn: FnInfo }
  | { kind: 'external'; qualified: string }
  | { kind: 'instance'; cls: ClassInfo }
  /** `partial(X, ...)`: `of` is what X holds; the call gives the bound arguments. */
  | { kind: 'partial'; of: FlowValue; mod: IndexedModule; call: CallFact }
  | { kind: 'opaque' };

/** What a call calls, without following values. */
export type StaticCallee =
  | { kind: 'class'; cls: ClassInfo }
  /** `super().__init__(...)`: the first internal base's initialiser. */
  | { kind: 'super'; cls: ClassInfo }
  /** A module-level function, or a method through self (`bound`: the first parameter is self). */
  | { kind: 'function'; fn: FnInfo; bound: boolean }
  | { kind: 'partial' }
  /** A config dict naming a registered class: `dict(type='ResNet', depth=50)`. */
  | { kind: 'config'; name: string }
  /** `BLOCKS['basic'](...)` over a module-level dict of classes. */
  | { kind: 'registry'; classes: ClassInfo[] }
  /** A parameter, a local or an attribute of self: what it holds is a question for the flow. */
  | { kind: 'dynamic' }
  | { kind: 'external'; qualified: string }
  | { kind: 'none' };

const OPAQUE: FlowValue = { kind: 'opaque' };
const PARTIAL = new Set(['functools.partial']);
/** Values kept per question; depth of nested questions. */
const MAX_VALUES = 32;
const MAX_DEPTH = 12;

interface CallerSite extends CallRef {
  bound: boolean;
}

export class Flow {
  private callerIndex: Map<string, CallerSite[]> | null = null;
  private readonly memo = new Map<string, FlowValue[]>();
  private readonly busy = new Set<string>();
  private readonly callees = new WeakMap<CallFact, StaticCallee>();
  private readonly results = new WeakMap<CallFact, FlowValue[]>();

  constructor(readonly corpus: UsageCorpus) {}

  staticCallee(mod: IndexedModule, call: CallFact): StaticCallee {
    let c = this.callees.get(call);
    if (!c) this.callees.set(call, (c = this.computeCallee(mod, call)));
    return c;
  }

  private computeCallee(mod: IndexedModule, call: CallFact): StaticCallee {
    const corpus = this.corpus;
    if (call.head === 'param' || call.head === 'local') return { kind: 'dynamic' };
    if (call.callee === 'super().__init__') {
      // The initialiser of the first internal base, bound to the instance being built.
      const cls = corpus.classOf(mod, scopeOf(mod, call));
      const base = cls && corpus.basesOf(cls)[0];
      return base ? { kind: 'super', cls: base } : { kind: 'none' };
    }
    if (call.head === 'self') {
      const cls = corpus.classOf(mod, scopeOf(mod, call));
      const fn = cls && corpus.method(cls, call.callee.slice(call.callee.indexOf('.') + 1));
      return fn ? { kind: 'function', fn, bound: true } : { kind: 'dynamic' };
    }
    const r = corpus.resolve(mod, call.callee);
    if (call.key !== undefined) {
      if (r.kind !== 'dict') return { kind: 'none' };
      const classes: ClassInfo[] = [];
      for (const a of r.call.args) {
        if (call.key !== null && a.kw !== call.key) continue;
        for (const v of this.valuesOf(r.mod, '', a, 0)) if (v.kind === 'class') classes.push(v.cls);
      }
      return { kind: 'registry', classes };
    }
    if (r.kind === 'class') return { kind: 'class', cls: r.cls };
    if (r.kind === 'function') return { kind: 'function', fn: r.fn, bound: false };
    if (r.kind === 'external')
      return PARTIAL.has(r.qualified) ? { kind: 'partial' } : { kind: 'external', qualified: r.qualified };
    if (r.kind === 'builtin' && r.name === 'dict') {
      const type = call.args.find((a) => a.kw === 'type' && 'lit' in a);
      const name = type && 'lit' in type ? type.lit : null;
      return typeof name === 'string' ? { kind: 'config', name } : { kind: 'none' };
    }
    // A module-level instance (`net = Net()` then `net(x)` in a script) is a value like a local.
    if (
      r.kind === 'unknown' &&
      !call.callee.includes('.') &&
      this.corpus.inScope(mod, '').calls.some((c) => c.assign === call.callee)
    )
      return { kind: 'dynamic' };
    return { kind: 'none' };
  }

  /** What the callee of a dynamic call holds: `block` → classes passed for it; `self.enc` → what was assigned. */
  calledValues(mod: IndexedModule, call: CallFact): FlowValue[] {
    // A module-level name that is no definition is an instance built at module level: a local of the module.
    const head = call.head ?? 'local';
    const scope = call.head ? scopeOf(mod, call) : '';
    return this.valuesOf(mod, scope, { name: call.callee, head }, 0);
  }

  /** What a value written in `scope` of `mod` may hold. */
  valuesOf(mod: IndexedModule, scope: string, v: ValueFact, depth: number): FlowValue[] {
    if (depth > MAX_DEPTH) return [OPAQUE];
    if ('lit' in v) return [{ kind: 'literal', value: v.lit }];
    if ('call' in v) return this.resultOf(mod, mod.facts.usage.calls[v.call], depth + 1);
    if (!('name' in v)) return [OPAQUE];
    const dots = v.name.split('.');
    if (!v.head) {
      const r = this.corpus.resolve(mod, v.name);
      if (r.kind === 'class') return [{ kind: 'class', cls: r.cls }];
      if (r.kind === 'function') return [{ kind: 'function', fn: r.fn }];
      if (r.kind === 'external') return [{ kind: 'external', qualified: r.qualified }];
      if (r.kind === 'unknown' && dots.length === 1) return this.localValues(mod, '', v.name, depth);
      return [OPAQUE];
    }
    if (v.head === 'param' && dots.length === 1) {
      const fn = this.corpus.fnOf(mod, scope);
      return fn ? this.paramValues(fn, v.name, depth) : [OPAQUE];
    }
    if (v.head === 'local' && dots.length === 1) return this.localValues(mod, scope, v.name, depth);
    if (v.head === 'self' && dots.length === 2) {
      const cls = this.corpus.classOf(mod, scope);
      return cls ? this.attrValues(cls, dots[1], depth) : [OPAQUE];
    }
    return [OPAQUE];
  }

  /** What a parameter holds: the arguments every caller passes for it, and its default. */
  paramValues(fn: FnInfo, name: string, depth: number): FlowValue[] {
    return this.remember(`p\0${fn.key}\0${name}`, () => {
      const out: FlowValue[] = [];
      for (const site of this.callers(fn.key)) {
        const arg = bindArg(fn.fact, site.bound, site.call.args, name);
        if (arg) out.push(...this.valuesOf(site.mod, scopeOf(site.mod, site.call), arg, depth + 1));
        else out.push(...this.forwardedKeyword(site, name, depth));
        if (out.length >= MAX_VALUES) break;
      }
      // `if block is None: block = Bottleneck` rebinds the parameter in the function itself.
      out.push(...this.localValues(fn.mod, fn.fact.qualname, name, depth));
      const p = fn.fact.params.find((q) => q.name === name);
      if (p?.defaultLiteral !== undefined) out.push({ kind: 'literal', value: p.defaultLiteral });
      else if (p?.default && /^[\p{XID_Start}_][\p{XID_Continue}.]*$/u.test(p.default))
        out.push(...this.valuesOf(fn.mod, '', { name: p.default }, depth + 1));
      return out;
    });
  }

  /**
   * A keyword reaching a call through the caller's own `**kwargs`: what the caller's callers pass by that name.
   *   def _net(block, **kwargs): return Net(block, **kwargs)    # Net's encoder holds ...
   *   def net50(**kwargs): return _net(B, encoder=Encoder(16))  # ... an Encoder
   */
  private forwardedKeyword(site: CallerSite, name: string, depth: number): FlowValue[] {
    const fn = this.corpus.fnOf(site.mod, scopeOf(site.mod, site.call));
    const kw = fn?.fact.params.find((p) => p.kind === 'var-keyword');
    if (!fn || !kw) return [];
    const passes = site.call.args.some((a) => a.star === 2 && 'name' in a && a.name === kw.name);
    if (!passes) return [];
    return this.remember(`k\0${fn.key}\0${name}`, () => {
      const out: FlowValue[] = [];
      for (const outer of this.callers(fn.key)) {
        const arg = outer.call.args.find((a) => a.kw === name);
        if (arg) out.push(...this.valuesOf(outer.mod, scopeOf(outer.mod, outer.call), arg, depth + 1));
        else out.push(...this.forwardedKeyword(outer, name, depth + 1));
      }
      return out;
    });
  }

  /** What a local name holds: the calls and names assigned to it in its scope. */
  localValues(mod: IndexedModule, scope: string, name: string, depth: number): FlowValue[] {
    return this.remember(`l\0${mod.sourceId}\0${mod.path}\0${scope}\0${name}`, () => {
      const { calls, links } = this.corpus.inScope(mod, scope);
      const out: FlowValue[] = [];
      for (const c of calls) if (c.assign === name) out.push(...this.resultOf(mod, c, depth + 1));
      for (const l of links)
        if (l.kind === 'assign' && l.target === name) out.push(...this.valuesOf(mod, scope, l.value, depth + 1));
      return out;
    });
  }

  /** What `self.<attr>` holds in a class: what any of its (or its internal bases') methods assigns to it. */
  attrValues(cls: ClassInfo, attr: string, depth: number): FlowValue[] {
    return this.remember(`a\0${cls.key}\0${attr}`, () => {
      const out: FlowValue[] = [];
      const target = `self.${attr}`;
      for (const c of [cls, ...this.corpus.basesOf(cls)]) {
        for (const m of c.methods.values()) {
          const { calls, links } = this.corpus.inScope(c.mod, m.fact.qualname);
          for (const call of calls) if (call.assign === target) out.push(...this.resultOf(c.mod, call, depth + 1));
          for (const l of links)
            if (l.kind === 'assign' && l.target === target)
              out.push(...this.valuesOf(c.mod, m.fact.qualname, l.value, depth + 1));
        }
      }
      return out;
    });
  }

  /** What a call returns: an instance of the class it builds, what a function returns, a partial. */
  resultOf(mod: IndexedModule, call: CallFact, depth: number): FlowValue[] {
    const hit = this.results.get(call);
    if (hit) return hit;
    const key = `r\0${callId(call)}`;
    const out = this.remember(key, () => {
      const sc = this.staticCallee(mod, call);
      switch (sc.kind) {
        case 'class':
          return [{ kind: 'instance', cls: sc.cls }];
        case 'registry':
          return sc.classes.map((cls) => ({ kind: 'instance', cls }) as FlowValue);
        case 'function':
          return this.returnValues(sc.fn, depth);
        case 'partial': {
          const first = call.args[0];
          if (!first || first.kw !== undefined || first.star) return [OPAQUE];
          return this.valuesOf(mod, scopeOf(mod, call), first, depth + 1).map((of) => ({
            kind: 'partial',
            of,
            mod,
            call,
          }));
        }
        case 'dynamic':
          return this.calledValues(mod, call).flatMap((v) => instancesOf(v, this, depth));
        default:
          return [OPAQUE];
      }
    });
    this.results.set(call, out);
    return out;
  }

  /** What a function returns: its returned calls, and the names it returns (followed as locals). */
  returnValues(fn: FnInfo, depth: number): FlowValue[] {
    return this.remember(`f\0${fn.key}`, () => {
      const { calls, links } = this.corpus.inScope(fn.mod, fn.fact.qualname);
      const out: FlowValue[] = [];
      for (const c of calls) if (c.returned) out.push(...this.resultOf(fn.mod, c, depth + 1));
      for (const l of links)
        if (l.kind === 'return') out.push(...this.valuesOf(fn.mod, fn.fact.qualname, l.value, depth + 1));
      return out;
    });
  }

  /** Call sites of a function or method (a class's construction calls its `__init__`), built once. */
  callers(key: string): CallerSite[] {
    if (!this.callerIndex) {
      const index = new Map<string, CallerSite[]>();
      const add = (fn: FnInfo | undefined, site: CallerSite) => {
        if (!fn) return;
        const list = index.get(fn.key);
        if (list) list.push(site);
        else index.set(fn.key, [site]);
      };
      for (const mod of this.corpus.program.modules) {
        for (const call of mod.facts.usage.calls) {
          const sc = this.staticCallee(mod, call);
          if (sc.kind === 'function') add(sc.fn, { mod, call, bound: sc.bound });
          else if (sc.kind === 'class' || sc.kind === 'super')
            add(this.corpus.method(sc.cls, '__init__'), { mod, call, bound: true });
          else if (sc.kind === 'registry')
            for (const cls of sc.classes) add(this.corpus.method(cls, '__init__'), { mod, call, bound: true });
        }
      }
      this.callerIndex = index;
    }
    return this.callerIndex.get(key) ?? [];
  }

  /** Memoized, cycle-safe, capped and de-duplicated. */
  private remember(key: string, compute: () => FlowValue[]): FlowValue[] {
    const hit = this.memo.get(key);
    if (hit) return hit;
    if (this.busy.has(key)) return [];
    this.busy.add(key);
    const out = dedupe(compute());
    this.busy.delete(key);
    this.memo.set(key, out);
    return out;
  }
}

/** What calling a value gives: a class builds an instance, a function returns, a partial builds what it wraps. */
function instancesOf(v: FlowValue, flow: Flow, depth: number): FlowValue[] {
  if (v.kind === 'class') return [{ kind: 'instance', cls: v.cls }];
  if (v.kind === 'function') return flow.returnValues(v.fn, depth + 1);
  if (v.kind === 'partial') return instancesOf(v.of, flow, depth);
  return [OPAQUE];
}

const ids = new WeakMap<CallFact, number>();
let nextId = 0;
/** A call's identity for memo keys (facts carry no byte offsets). */
function callId(call: CallFact): number {
  let id = ids.get(call);
  if (id === undefined) ids.set(call, (id = nextId++));
  return id;
}

function identity(v: FlowValue): string {
  switch (v.kind) {
    case 'literal':
      return `l${JSON.stringify(v.value)}`;
    case 'class':
    case 'instance':
      return `${v.kind[0]}${v.cls.key}`;
    case 'function':
      return `f${v.fn.key}`;
    case 'external':
      return `e${v.qualified}`;
    case 'partial':
      return `p${callId(v.call)}\0${identity(v.of)}`;
    case 'opaque':
      return 'o';
  }
}

function dedupe(values: FlowValue[]): FlowValue[] {
  const seen = new Set<string>();
  const out: FlowValue[] = [];
  for (const v of values) {
    const id = identity(v);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(v);
    if (out.length >= MAX_VALUES) break;
  }
  return out;
}

/**
 * The argument a call passes for parameter `name` of `fn`, by position or keyword (`bound`: the call goes through
 * self or constructs the class, so the first parameter is not passed). Undefined when it is not passed, or when a
 * `*args` before it hides which position it is.
 */
export function bindArg(fn: FunctionFact, bound: boolean, args: ArgFact[], name: string): ArgFact | undefined {
  const positional = fn.params.filter((p) => p.kind === 'positional-only' || p.kind === 'positional');
  let pos = bound ? 1 : 0;
  let known = true;
  for (const a of args) {
    if (a.star === 1) known = false;
    if (a.star) continue;
    if (a.kw !== undefined) {
      if (a.kw === name) return a;
      continue;
    }
    if (known && positional[pos]?.name === name) return a;
    pos++;
  }
  return undefined;
}
