// The usage index: for every block, where the corpus builds it (construction sites), which module-level functions
// return a new one (builders) and where an instance's forward is called (forward calls), from the call facts the
// parse stage stored per blob. Computed per build from the index in one pass over the calls plus memoized value
// flow (flow.ts); nothing here reads files. docs/usage.md.
import type { Block } from '../discover/discover.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ArgFact, CallFact, ValueFact } from '../parse/facts.ts';
import type { Program } from '../resolve/program.ts';
import { qualifiedName, scopeOf, UsageCorpus, type ClassInfo, type FnInfo } from './corpus.ts';
import { readConfigs } from './configs.ts';
import { bindArg, Flow } from './flow.ts';
import { PartBuilders } from './parts.ts';
import type {
  BlockUsage,
  BuilderFn,
  ConstructionSite,
  ConstructionVia,
  PartBuilder,
  UsageArg,
  UsageLocation,
  UsageValue,
} from './types.ts';

const EMPTY: BlockUsage = { constructions: [], builders: [], forwardCalls: [], configs: [] };
/** `torch.randn(1, 3, 224, 224)`: factories whose positional integers (or one list of them) are the shape. */
const TENSOR_FACTORIES = new Set(['torch.randn', 'torch.rand', 'torch.zeros', 'torch.ones', 'torch.empty']);

export interface UsageIndex {
  /** Every construction site, builder and forward call of a block; empty lists for a block never used. */
  usageOf(blockId: string): BlockUsage;
  /** Zero-argument builders of the block's source whose model may hold it, nearest first (`parts.ts`). */
  partBuilders(blockId: string): PartBuilder[];
  /**
   * Lets go of what mining built (the corpus's call sites, flows and builders, half a gigabyte on the paper's
   * corpus) once the run has asked what it needs: answers given so far stay, a later question mines again.
   */
  release?(): void;
}

/** Builds the usage index of the corpus for these blocks (`discoverBlocks(program).blocks`). */
export function buildUsageIndex(program: Program, blocks: Block[]): UsageIndex {
  const corpus = new UsageCorpus(program, blocks);
  const flow = new Flow(corpus);
  const miner = new Miner(corpus, flow);
  for (const mod of program.modules) {
    for (const call of mod.facts.usage.calls) miner.visit(mod, call);
    miner.visitLinks(mod);
    if (mod.config) miner.visitConfig(mod);
  }
  for (const fn of corpus.functions.values()) if (!fn.cls) miner.builders(fn);
  const usage = miner.finish();
  const sources = new Map(blocks.map((b) => [b.id, b.sourceId]));
  let parts: PartBuilders | null = null; // built on first use: most commands never ask
  return {
    usageOf: usage.usageOf,
    partBuilders: (blockId) => {
      parts ??= new PartBuilders(corpus, flow, usage.usageOf, miner.zeroArg);
      return parts.of(blockId, sources.get(blockId) ?? '');
    },
  };
}

/**
 * One `<-` step of a builder: the class it ends at and the constructor's arguments in the builder's terms. A helper
 * that constructs one of its own parameters (`def build_model_with_cfg(model_cls, ...): model = model_cls(**kwargs)`)
 * builds `param` (`cls` null) until a caller passes a class for it (`build_model_with_cfg(ResNet, ...)`).
 */
interface Built {
  cls: ClassInfo | null;
  param?: string;
  args: UsageArg[];
  through: string[];
}

/** Nested `**dict(...)` spreads followed when a call's keywords are read. */
const MAX_SPREAD_DEPTH = 4;

class Miner {
  private readonly out = new Map<string, BlockUsage>();
  private readonly registered = new Map<string, ClassInfo[]>();
  private readonly built = new Map<string, Built[]>();
  private readonly busy = new Set<string>();
  /** Zero-argument module-level builders by function key, whatever class they build (the first). */
  readonly zeroArg = new Map<string, BuilderFn>();

  constructor(
    private readonly corpus: UsageCorpus,
    private readonly flow: Flow,
  ) {
    // `@MODELS.register_module()` registers the class under its name, or under `name='...'` when given.
    for (const cls of corpus.classes.values()) {
      for (const d of cls.fact.decorators) {
        const m = /(?:^|\.)register(?:_module)?\s*(\(([\s\S]*)\))?$/.exec(d);
        if (!m) continue;
        const named = /\bname\s*=\s*['"]([^'"\n]+)['"]/.exec(m[2] ?? '');
        const name = named ? named[1] : cls.fact.name;
        const list = this.registered.get(name) ?? [];
        list.push(cls);
        this.registered.set(name, list);
      }
    }
  }

  private usage(cls: ClassInfo): BlockUsage | undefined {
    if (!cls.block) return undefined;
    let u = this.out.get(cls.key);
    if (!u) this.out.set(cls.key, (u = { constructions: [], builders: [], forwardCalls: [], configs: [] }));
    return u;
  }

  private location(mod: IndexedModule, scope: string, line: number): UsageLocation {
    const loc: UsageLocation = { sourceId: mod.sourceId, module: mod.module ?? '', path: mod.path, line, scope };
    const owner = this.corpus.classOf(mod, scope)?.block;
    if (owner) loc.inBlock = owner.id;
    return loc;
  }

  private site(
    cls: ClassInfo,
    mod: IndexedModule,
    at: { scope: string; line: number; callee: string; assign?: string },
    via: ConstructionVia,
    args: UsageArg[],
    as?: string | number,
  ): void {
    const u = this.usage(cls);
    if (!u) return;
    const site: ConstructionSite = {
      blockId: cls.key,
      ...this.location(mod, at.scope, at.line),
      via,
      callee: at.callee,
      args,
    };
    if (as !== undefined) site.as = as;
    if (at.assign) site.assign = at.assign;
    u.constructions.push(site);
  }

  /** Classes registered under `name`, those of the module's own source when it has any. */
  registeredAs(name: string, mod: IndexedModule): ClassInfo[] {
    const named = this.registered.get(name) ?? [];
    const own = named.filter((c) => c.mod.sourceId === mod.sourceId);
    return own.length ? own : named;
  }

  /** A config file's configurations of registered blocks (`configs.ts`), labelled with the file's name. */
  visitConfig(mod: IndexedModule): void {
    const base = mod.path.slice(mod.path.lastIndexOf('/') + 1);
    const label = base.endsWith('.py') ? base.slice(0, -3) : base;
    for (const r of readConfigs(this.corpus, mod, (name, m) => this.registeredAs(name, m))) {
      const u = this.usage(r.cls);
      if (!u) continue;
      u.configs.push({ blockId: r.cls.key, ...this.location(mod, '', r.call.line), label, kwargs: r.kwargs });
    }
  }

  /** `block = CNBlock` in a function (a default filled in, a choice made): a reference bound to a name. */
  visitLinks(mod: IndexedModule): void {
    for (const l of mod.facts.usage.links) {
      if (l.kind !== 'assign' || !l.target || !('name' in l.value) || l.value.head) continue;
      const r = this.corpus.resolve(mod, l.value.name);
      const at = { scope: scopeOf(mod, l), line: l.line, callee: l.target };
      if (r.kind === 'class') this.site(r.cls, mod, at, 'reference', [], l.target);
    }
  }

  /** One call: a construction (direct, partial, registry, through a parameter or variable), a forward call, references. */
  visit(mod: IndexedModule, call: CallFact): void {
    const { flow } = this;
    const sc = flow.staticCallee(mod, call);
    const scope = scopeOf(mod, call);
    const at = { scope, line: call.line, callee: call.callee, assign: call.assign };
    const args = () => this.args(mod, scope, call.args, false);
    if (sc.kind === 'class') this.site(sc.cls, mod, at, 'call', args());
    else if (sc.kind === 'super') this.site(sc.cls, mod, at, 'super', args());
    else if (sc.kind === 'registry') for (const cls of sc.classes) this.site(cls, mod, at, 'registry', args());
    else if (sc.kind === 'config') {
      for (const cls of this.registeredAs(sc.name, mod))
        this.site(
          cls,
          mod,
          at,
          'registry',
          args().filter((a) => a.name !== 'type'),
        );
    } else if (sc.kind === 'partial') {
      const [first, ...rest] = call.args;
      if (first && first.kw === undefined && !first.star)
        for (const v of flow.valuesOf(mod, scope, first, 0))
          if (v.kind === 'class') this.site(v.cls, mod, at, 'partial', this.args(mod, scope, rest, false));
    } else if (sc.kind === 'dynamic') {
      const via: ConstructionVia = call.head === 'param' ? 'parameter' : 'variable';
      for (const v of flow.calledValues(mod, call)) {
        if (v.kind === 'class') this.site(v.cls, mod, at, via, args());
        else if (v.kind === 'partial' && v.of.kind === 'class')
          this.site(
            v.of.cls,
            mod,
            at,
            via,
            merge(this.args(v.mod, scopeOf(v.mod, v.call), v.call.args.slice(1), false), args()),
          );
        else if (v.kind === 'instance') this.forward(v.cls, mod, call);
      }
    }
    // References: a block named where a value goes (`block=Bottleneck`, `_resnet(Bottleneck, ...)`).
    const callee = call.callee === 'dict' && call.assign ? call.assign : call.callee;
    call.args.forEach((a, i) => {
      if (a.star || (sc.kind === 'partial' && i === 0)) return;
      for (const v of 'list' in a ? a.list : [a]) {
        if (!('name' in v) || v.head) continue;
        const r = this.corpus.resolve(mod, v.name);
        if (r.kind === 'class') this.site(r.cls, mod, { ...at, callee }, 'reference', [], a.kw ?? i);
      }
    });
  }

  private forward(cls: ClassInfo, mod: IndexedModule, call: CallFact): void {
    const u = this.usage(cls);
    if (!u) return;
    const scope = scopeOf(mod, call);
    const args = this.args(mod, scope, call.args, true);
    u.forwardCalls.push({
      blockId: cls.key,
      ...this.location(mod, scope, call.line),
      callee: call.callee,
      args,
      arity: call.args.filter((a) => !a.star && a.kw === undefined).length,
      keywords: call.args.flatMap((a) => (a.kw !== undefined ? [a.kw] : [])),
    });
  }

  /** A module-level function returning a new block (directly, or through helpers that do). */
  builders(fn: FnInfo): void {
    const seen = new Set<string>();
    for (const b of this.builtBy(fn)) {
      if (!b.cls) continue;
      const u = this.usage(b.cls);
      if (seen.has(b.cls.key)) continue;
      seen.add(b.cls.key);
      const params = fn.fact.params.map((p) => ({
        name: p.name,
        kind: p.kind,
        hasDefault: p.default !== undefined || p.kind === 'var-positional' || p.kind === 'var-keyword',
      }));
      const builder: BuilderFn = {
        blockId: b.cls.key,
        ...this.location(fn.mod, fn.fact.qualname, fn.fact.span.startLine),
        name: fn.fact.name,
        params,
        zeroArg: params.every((p) => p.hasDefault),
        args: b.args,
        through: b.through,
      };
      // Zero-argument builders of any class, a block or not (`symbols` may leave the model out): part recipes'.
      if (builder.zeroArg && !this.zeroArg.has(fn.key)) this.zeroArg.set(fn.key, builder);
      u?.builders.push(builder);
    }
  }

  /** What a module-level function returns a new instance of, with the constructor's arguments in its own terms. */
  private builtBy(fn: FnInfo): Built[] {
    const hit = this.built.get(fn.key);
    if (hit) return hit;
    if (this.busy.has(fn.key) || fn.cls) return [];
    this.busy.add(fn.key);
    const scope = fn.fact.qualname;
    const { calls, links } = this.corpus.inScope(fn.mod, scope);
    const returned = new Set(links.flatMap((l) => (l.kind === 'return' && 'name' in l.value ? [l.value.name] : [])));
    const out: Built[] = [];
    for (const call of calls) {
      if (!call.returned && !(call.assign !== undefined && returned.has(call.assign))) continue;
      const sc = this.flow.staticCallee(fn.mod, call);
      if (sc.kind === 'class') out.push({ cls: sc.cls, args: this.args(fn.mod, scope, call.args, false), through: [] });
      else if (sc.kind === 'registry')
        for (const cls of sc.classes) out.push({ cls, args: this.args(fn.mod, scope, call.args, false), through: [] });
      else if (sc.kind === 'dynamic' && call.head === 'param' && !call.callee.includes('.'))
        out.push({ cls: null, param: call.callee, args: this.args(fn.mod, scope, call.args, false), through: [] });
      else if (sc.kind === 'function' && !sc.bound && !sc.fn.cls) {
        for (const b of this.builtBy(sc.fn)) {
          const step = { args: this.substitute(b.args, sc.fn, fn, call), through: [sc.fn.fact.name, ...b.through] };
          if (b.cls) out.push({ cls: b.cls, ...step });
          else for (const t of this.passedFor(b.param!, sc.fn, fn, call)) out.push({ ...t, ...step });
        }
      }
    }
    this.busy.delete(fn.key);
    this.built.set(fn.key, out);
    return out;
  }

  /**
   * What a caller passes for the helper's parameter that the helper constructs: the classes it may hold, or the
   * caller's own parameter (still to be bound further out).
   *   def _create_resnet(variant, pretrained=False, **kwargs):
   *       return build_model_with_cfg(ResNet, variant, pretrained, **kwargs)   # model_cls: ResNet
   */
  private passedFor(
    param: string,
    helper: FnInfo,
    caller: FnInfo,
    call: CallFact,
  ): { cls: ClassInfo | null; param?: string }[] {
    const scope = caller.fact.qualname;
    const bound = bindArg(helper.fact, false, this.expand(caller.mod, scope, call.args), param);
    if (!bound) return [];
    if ('name' in bound && bound.head === 'param' && !bound.name.includes('.'))
      return [{ cls: null, param: bound.name }];
    const out: { cls: ClassInfo }[] = [];
    for (const v of this.flow.valuesOf(caller.mod, scope, bound, 0))
      if (v.kind === 'class' && !out.some((o) => o.cls === v.cls)) out.push({ cls: v.cls });
    return out;
  }

  /**
   * A call's arguments with its keyword spreads of dicts written in the code opened up, the way timm's builders
   * pass their configuration on: `**dict(model_args, **kwargs)` and `**model_args` (a local bound once to `dict(...)`
   * or a `{...}` display) become the keywords they hold; a spread of anything else stays as it is.
   *   model_args = dict(block=Bottleneck, layers=(3, 4, 6, 3))
   *   return _create_resnet('resnet50', pretrained, **dict(model_args, **kwargs))   # block=, layers=, **kwargs
   */
  private expand(mod: IndexedModule, scope: string, args: ArgFact[], depth = 0): ArgFact[] {
    if (!args.some((a) => a.star === 2)) return args;
    const out: ArgFact[] = [];
    for (const a of args) {
      const made = a.star === 2 && depth < MAX_SPREAD_DEPTH ? this.dictCall(mod, scope, a) : undefined;
      if (!made) {
        out.push(a);
        continue;
      }
      for (const x of made.args) {
        if (x.kw !== undefined) out.push(x);
        else if (x.star === 1) out.push({ ...x, star: 2 });
        else out.push(...this.expand(mod, scope, [{ ...x, star: 2 }], depth + 1));
      }
    }
    return out;
  }

  /** The `dict(...)` call (or `{...}` display) a spread value is: written in place or bound once to a local. */
  private dictCall(mod: IndexedModule, scope: string, v: ValueFact): CallFact | undefined {
    const calls = mod.facts.usage.calls;
    let call: CallFact | undefined;
    if ('call' in v) call = calls[v.call];
    else if ('name' in v && v.head === 'local' && !v.name.includes('.')) {
      const { calls: inScope, links } = this.corpus.inScope(mod, scope);
      const made = inScope.filter((c) => c.assign === v.name);
      if (made.length === 1 && !links.some((l) => l.kind === 'assign' && l.target === v.name)) call = made[0];
    }
    if (!call || call.head || call.key !== undefined) return undefined;
    const r = this.corpus.resolve(mod, call.callee);
    return r.kind === 'builtin' && r.name === 'dict' ? call : undefined;
  }

  /** A helper's constructor arguments with its parameters replaced by what the caller passes for them. */
  private substitute(args: UsageArg[], helper: FnInfo, caller: FnInfo, call: CallFact): UsageArg[] {
    const out: UsageArg[] = [];
    const named = new Set(helper.fact.params.filter((p) => p.kind !== 'var-keyword').map((p) => p.name));
    for (const a of args) {
      if (a.value.kind !== 'param') {
        out.push(a);
        continue;
      }
      const p = helper.fact.params.find((q) => q.name === (a.value as { name: string }).name);
      if (p?.kind === 'var-keyword' && a.star === 2) {
        // `**kwargs` passed on: the caller's keywords the helper does not name, and the caller's own `**`.
        const passed = this.expand(caller.mod, caller.fact.qualname, call.args);
        const rest = passed.filter((c) => (c.kw !== undefined && !named.has(c.kw)) || c.star === 2);
        out.push(...this.args(caller.mod, caller.fact.qualname, rest, false));
        continue;
      }
      const bound =
        p && !a.star
          ? bindArg(helper.fact, false, this.expand(caller.mod, caller.fact.qualname, call.args), p.name)
          : undefined;
      if (bound) out.push({ ...a, value: this.value(caller.mod, caller.fact.qualname, bound, false) });
      else if (p?.defaultLiteral !== undefined) out.push({ ...a, value: { kind: 'literal', value: p.defaultLiteral } });
      else if (p?.default !== undefined) out.push({ ...a, value: { kind: 'expr', text: p.default.slice(0, 80) } });
      else out.push(a);
    }
    return out;
  }

  private args(mod: IndexedModule, scope: string, args: ArgFact[], forward: boolean): UsageArg[] {
    return this.expand(mod, scope, args).map((a) => {
      const u: UsageArg = { value: this.value(mod, scope, a, forward) };
      if (a.kw !== undefined) u.name = a.kw;
      if (a.star) u.star = a.star;
      return u;
    });
  }

  /** An argument as the API gives it: a literal, a reference, a partial, an instance, a tensor, a name or text. */
  private value(mod: IndexedModule, scope: string, v: ValueFact, forward: boolean): UsageValue {
    if ('lit' in v) return { kind: 'literal', value: v.lit };
    if ('expr' in v) return { kind: 'expr', text: v.expr };
    if ('list' in v) return { kind: 'list', items: v.list.map((item) => this.value(mod, scope, item, forward)) };
    if ('name' in v) {
      if (v.head === 'param' && !forward && !v.name.includes('.')) return { kind: 'param', name: v.name };
      if (v.head === 'local' && forward) {
        // `x = torch.rand(1, 3, 299, 299)` then `model(x)`: the input's shape, when one factory call made it.
        const made = this.corpus.inScope(mod, scope).calls.filter((c) => c.assign === v.name);
        const t =
          made.length === 1 ? this.value(mod, scope, { call: mod.facts.usage.calls.indexOf(made[0]) }, true) : null;
        if (t?.kind === 'tensor') return t;
      }
      if (v.head) return { kind: 'name', name: v.name };
      const r = this.corpus.resolve(mod, v.name);
      if (r.kind === 'class') return ref(r.cls);
      if (r.kind === 'function') return { kind: 'ref', name: qualifiedName(r.fn) };
      if (r.kind === 'external') return { kind: 'ref', name: r.qualified };
      return { kind: 'name', name: v.name };
    }
    const call = mod.facts.usage.calls[v.call];
    const sc = this.flow.staticCallee(mod, call);
    if (sc.kind === 'external' && TENSOR_FACTORIES.has(sc.qualified)) {
      const shape = shapeOf(call.args);
      if (shape) return { kind: 'tensor', factory: sc.qualified, shape };
    }
    if (sc.kind === 'class') return { ...ref(sc.cls), kind: 'instance' };
    if (sc.kind === 'config') {
      // The block registered under that name, its own source's first (as a config's construction site counts).
      const named = this.registered.get(sc.name) ?? [];
      const cls = named.find((c) => c.mod.sourceId === mod.sourceId) ?? named[0];
      const args = this.args(
        mod,
        scope,
        call.args.filter((a) => a.kw !== 'type'),
        forward,
      );
      return { kind: 'config', type: sc.name, ...(cls?.block ? { blockId: cls.block.id } : {}), args };
    }
    if (sc.kind === 'partial' && call.args[0] && call.args[0].kw === undefined) {
      const [first, ...rest] = call.args;
      const of = this.value(mod, scope, first, false);
      if (of.kind === 'ref') return { ...of, kind: 'partial', args: this.args(mod, scope, rest, forward) };
    }
    return { kind: 'expr', text: `${call.callee}(...)` };
  }

  finish(): { usageOf(blockId: string): BlockUsage } {
    for (const u of this.out.values()) {
      u.constructions.sort(byPlace);
      u.builders.sort(byPlace);
      u.forwardCalls.sort(byPlace);
      u.configs.sort(byPlace);
    }
    const out = this.out;
    return { usageOf: (blockId: string) => out.get(blockId) ?? EMPTY };
  }
}

/** `partial(Norm, eps=1e-3)(64)` is `Norm(64, eps=1e-3)`: positional arguments first, then keywords, partial's first. */
function merge(bound: UsageArg[], passed: UsageArg[]): UsageArg[] {
  const positional = (a: UsageArg) => a.name === undefined && a.star !== 2;
  return [
    ...bound.filter(positional),
    ...passed.filter(positional),
    ...bound.filter((a) => !positional(a)),
    ...passed.filter((a) => !positional(a)),
  ];
}

function ref(cls: ClassInfo): Extract<UsageValue, { kind: 'ref' }> {
  const r: Extract<UsageValue, { kind: 'ref' }> = { kind: 'ref', name: qualifiedName(cls) };
  if (cls.block) r.blockId = cls.block.id;
  return r;
}

/** `torch.randn(1, 3, 224, 224)` or `torch.zeros((2, 8))`: the literal shape, else undefined. */
function shapeOf(args: ArgFact[]): number[] | undefined {
  const positional = args.filter((a) => a.kw === undefined);
  const values: unknown[] = [];
  for (const a of positional) {
    if (a.star || !('lit' in a)) return undefined;
    values.push(a.lit);
  }
  const dims = values.length === 1 && Array.isArray(values[0]) ? values[0] : values;
  return dims.length > 0 && dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)
    ? (dims as number[])
    : undefined;
}

function byPlace(a: UsageLocation, b: UsageLocation): number {
  const ka = [a.sourceId, a.path];
  const kb = [b.sourceId, b.path];
  for (let i = 0; i < 2; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return a.line - b.line || (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0);
}
