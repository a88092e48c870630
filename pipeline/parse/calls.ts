// Usage facts of one module: call sites with their arguments, and the names joining them to a builder's return or
// a block's attribute (facts.ts, `UsageFacts`). The usage index (pipeline/usage/) resolves them across files.
//
// Found from the statement walk's reads rather than by walking every node again: every name read is recorded with
// its scope (`RawRef`), so a read followed in the text by `(` (after an attribute chain) is a call, classified by
// its head (global, parameter, self, local) before anything else is looked at. Its arguments are read from the
// text (call-args.ts); where its value goes comes from the simple statements (call-context.ts, a cursor pass over
// statements only). Dict literals are found by their `'type':` key or as module-level values.
//   def _make_layer(self, block, planes):      # scope ResNet._make_layer
//       layers.append(block(self.inplanes, planes))   # block(...): head param; `layers.append` (local) is not kept
import { literalValue } from './literals.ts';
import { isIdentifier, pyName } from '../util/identifier.ts';
import { cap, isDotted, readArgs, readPairs, readValue, USAGE_LIMITS, type ArgContext } from './call-args.ts';
import { StatementIndex, type SimpleStatement } from './call-context.ts';
import { skipString } from './strings.ts';
import type { ArgFact, CallFact, FunctionFact, LinkFact, NameHead, UsageFacts, ValueFact } from './facts.ts';
import { namedId, type TsNode, type TsTree } from './grammar.ts';
import type { TextMap } from './text-map.ts';
import type { RawRef } from './walk-state.ts';
import type { ModuleWalker } from './walk-stmt.ts';

/** The slice of node-tree-sitter's node API used for the rare `'type':` keys: ids and ranges, by position. */
interface Node extends TsNode {
  readonly typeId: number;
  readonly parent: Node | null;
  descendantForIndex(start: number, end: number): Node;
}

const N = {
  dictionary: namedId('dictionary'),
  pair: namedId('pair'),
  string: namedId('string'),
};

const IDENT = /[\p{XID_Start}_][\p{XID_Continue}]*/uy;

/** A call or dict literal found, before its arguments are read. */
interface Found {
  start: number;
  /** The opening bracket of the arguments and the end of the whole call. */
  open: number;
  end: number;
  callee: string;
  head: NameHead;
  key?: string | null;
  scope: string;
  dict: boolean;
  /** A statement of its own: `quantize_model(model, backend)`. */
  dropped: boolean;
  assign?: [number, number];
  returned: boolean;
}

export function usageFacts(tree: TsTree, w: ModuleWalker, text: string, map: TextMap): UsageFacts {
  const statements = new StatementIndex(text);
  return new UsageReader(tree.rootNode as Node, statements, w, text, map).read();
}

class UsageReader implements ArgContext {
  /** Every name read, by its UTF-16 start. */
  private readonly refs = new Map<number, RawRef>();
  /** Functions and methods by qualname (nested functions are not facts: names in them count as local). */
  private readonly fns = new Map<string, { params: Set<string>; self: string | null }>();
  /** Names the module binds at import time, and whether a star import may bind more. */
  private readonly moduleNames = new Set<string>();
  private readonly star: boolean;
  /** Definitions by span, sorted by start: the scope of a dict literal, which has no read of its own. */
  private readonly defs: { start: number; end: number; qualname: string }[] = [];
  private readonly calls = new Map<number, number>();
  private readonly scopes = new Map<string, number>([['', 0]]);

  constructor(
    private readonly root: Node,
    private readonly statements: StatementIndex,
    private readonly w: ModuleWalker,
    readonly text: string,
    private readonly map: TextMap,
  ) {
    for (const r of w.refs) this.refs.set(r.pos, r);
    const addFn = (f: FunctionFact, method: boolean) => {
      const first = f.params[0];
      const plain = method && !f.decorators.some((d) => /^(?:staticmethod|classmethod)\b/.test(d));
      const self =
        plain && first && (first.kind === 'positional' || first.kind === 'positional-only') ? first.name : null;
      this.fns.set(f.qualname, { params: new Set(f.params.map((p) => p.name)), self });
      this.defs.push({ start: f.span.startByte, end: f.span.endByte, qualname: f.qualname });
    };
    for (const f of w.functions) addFn(f, false);
    for (const cls of w.classes) {
      this.defs.push({ start: cls.span.startByte, end: cls.span.endByte, qualname: cls.qualname });
      for (const m of cls.methods) addFn(m, true);
    }
    this.defs.sort((a, b) => a.start - b.start);
    for (const st of w.statements) for (const n of st.binds) this.moduleNames.add(n);
    this.star = w.imports.some((i) => i.fact.star && i.fact.scope === 'module');
  }

  callAt(pos: number): number | undefined {
    return this.calls.get(pos);
  }

  headAt(pos: number): NameHead | undefined {
    const ref = this.refs.get(pos);
    return ref && this.head(ref);
  }

  read(): UsageFacts {
    const found: Found[] = [];
    const links: LinkFact[] = [];
    // A statement the walk gave up on (nested past MAX_NESTING) has no reads; its dict literals are skipped too.
    const deep = this.w.statements.filter((st) => st.tooDeep);
    for (const r of this.w.refs) {
      const call = this.fromRead(r);
      if (call) found.push(call);
    }
    for (const st of this.statements.assignsAndReturns()) if (!st.top) this.links(st, links);
    for (const d of this.dicts()) if (!deep.some((st) => st.start <= d.start && d.start < st.end)) found.push(d);
    found.sort((a, b) => a.start - b.start);
    const kept: Found[] = [];
    for (const f of found) {
      if (kept.length >= USAGE_LIMITS.calls) break;
      if (kept.length && kept[kept.length - 1].start === f.start) continue;
      this.calls.set(f.start, kept.length);
      kept.push(f);
    }
    // Arguments last: a nested call (`partial(...)` as an argument) is then known by its index.
    // An outer call starts first, so a call's being an argument of a kept one is known when it is read.
    const nested = new Set<number>();
    const facts: (CallFact | null)[] = kept.map((f, i) => {
      const fact = this.fact(f, nested.has(i));
      if (fact)
        for (const a of fact.args) for (const v of 'list' in a ? a.list : [a]) if ('call' in v) nested.add(v.call);
      return fact;
    });
    const calls = facts.some((f) => f === null) ? compact(facts) : (facts as CallFact[]);
    return { scopes: [...this.scopes.keys()], calls, links };
  }

  private fact(f: Found, nested: boolean): CallFact | null {
    const args = f.dict ? readPairs(this, f.open + 1, f.end - 1) : readArgs(this, f.open + 1, f.end - 1);
    const fact: CallFact = { callee: f.callee, scope: this.scopeIndex(f.scope), line: this.map.line(f.start), args };
    if (f.head !== 'global') fact.head = f.head;
    if (f.key !== undefined) fact.key = f.key;
    const target = f.assign && this.target(f.assign, f.scope);
    if (target) fact.assign = target;
    if (f.returned) fact.returned = true;
    const typed = args.some((a) => a.kw === 'type' && 'lit' in a);
    // `dict(...)` and `{...}` matter as configs (a `type` key), as module-level registries (`BLOCKS = {...}`), as a
    // builder's configuration bound to a local or spread (`model_args = dict(...)`, `**dict(model_args, **kwargs)`),
    // and inside another kept call (a config's `init_cfg=dict(...)`): what a keyword spread holds is read from them.
    if (f.callee === 'dict' && f.head === 'global' && !typed && !fact.assign && !nested) return null;
    // A function (a lowercase module-level name) whose value goes nowhere usage mining follows — not assigned, not
    // returned, not an argument of a kept call — matters only as a call site its parameters get values from (a
    // statement of its own passing names on), or as where a class is passed by name:
    //   torch.manual_seed(0); n = len(xs) + count(ys)       # left out
    //   quantize_model(model, backend)                       # kept: model flows into the function
    //   if is_block(Bottleneck): ...                         # kept: a reference to a class
    if (f.head !== 'global' || f.dict || fact.assign || f.returned || nested || f.callee === 'dict') return fact;
    if (!/^[a-z_]/.test(f.callee.slice(f.callee.lastIndexOf('.') + 1))) return fact;
    const flows = (v: ValueFact) => 'name' in v || 'list' in v || 'call' in v;
    const classLike = (v: ValueFact) =>
      'name' in v && !v.head && /^[A-Z]/.test(v.name.slice(v.name.lastIndexOf('.') + 1));
    const kept = f.dropped ? args.some(flows) : args.some((a) => ('list' in a ? a.list.some(classLike) : classLike(a)));
    return kept ? fact : null;
  }

  /** A read followed by `(` (after an attribute chain: `self.layer1(`) or by `[...](` is a call. */
  private fromRead(r: RawRef): Found | null {
    const text = this.text;
    let j = r.end;
    let dots = 0;
    for (;;) {
      let k = skipBlank(text, j);
      if (text.charCodeAt(k) !== 46) break;
      k = skipBlank(text, k + 1);
      IDENT.lastIndex = k;
      if (!IDENT.test(text)) break;
      j = IDENT.lastIndex;
      dots++;
    }
    const k = skipBlank(text, j);
    const ch = text.charCodeAt(k);
    return ch === 40 || ch === 91 ? this.callFrom(r, j, k, dots) : null;
  }

  private callFrom(r: RawRef, chainEnd: number, k: number, dots: number): Found | null {
    const text = this.text;
    let open = k;
    let key: string | null | undefined;
    let callee = dots ? pyName(text.slice(r.pos, chainEnd).replace(/\s+/g, '')) : r.name;
    let head = this.head(r);
    if (text.charCodeAt(k) === 91) {
      // `BLOCKS['basic'](...)`: a subscripted name, then the call.
      if (dots || head !== 'global') return null;
      const close = matching(text, k);
      open = close < 0 ? -1 : skipBlank(text, close);
      if (open < 0 || text.charCodeAt(open) !== 40) return null;
      const lit = literalValue(text.slice(k + 1, close - 1));
      key = typeof lit === 'string' ? cap(lit, USAGE_LIMITS.stringChars) : null;
    } else if (r.name === 'super' && !dots && head === 'global') {
      // `super().__init__(...)`: the base class's initialiser, with this class's arguments.
      const close = matching(text, k);
      const m = close < 0 ? null : /^\s*\.\s*__init__\s*\(/.exec(text.slice(close, close + 40));
      if (!m || !this.fns.get(this.scopeOf(r))?.self) return null;
      open = close + m[0].length - 1;
      callee = 'super().__init__';
      head = 'self';
    } else if (head === 'self' ? dots !== 1 : head !== 'global' && dots > 0) return null;
    else if (head === 'global' && !this.moduleNames.has(r.name) && !this.star && r.name !== 'dict') return null;
    const end = matching(text, open);
    if (end < 0) return null;
    return {
      start: r.pos,
      open,
      end,
      callee,
      head,
      key,
      scope: this.scopeOf(r),
      dict: false,
      ...this.where(r.pos, end),
    };
  }

  /** Where a value written at `[s, e)` goes: assigned (to the statement's target), returned, dropped, or elsewhere. */
  private where(s: number, e: number): Pick<Found, 'assign' | 'returned' | 'dropped'> {
    const st = this.statements.at(s);
    if (!st || !this.statements.isValue(st, s, e)) return { returned: false, dropped: false };
    if (st.kind === 'expr') return { returned: false, dropped: true };
    return st.kind === 'return'
      ? { returned: true, dropped: false }
      : { assign: st.target, returned: false, dropped: false };
  }

  /**
   * Names returned or assigned in a function: `return model`, `self.x = encoder`, either branch of
   * `norm = Frozen if trained else BN`.
   */
  private links(st: SimpleStatement, out: LinkFact[]): void {
    for (const [s, e] of this.statements.operands(st)) {
      const ref = this.refs.get(s);
      if (!ref || !isDotted(this.text.slice(s, e))) continue;
      const scope = this.scopeOf(ref);
      if (scope === '') continue; // module level: imports and aliases are the resolver's business
      const value = readValue(this, s, e);
      if (!('name' in value)) continue;
      const line = this.map.line(s);
      if (st.kind === 'return') {
        out.push({ kind: 'return', scope: this.scopeIndex(scope), line, value });
        continue;
      }
      const target = st.target && this.target(st.target, scope);
      if (!target || (!target.startsWith('self.') && value.head === 'local')) continue;
      out.push({ kind: 'assign', target, scope: this.scopeIndex(scope), line, value });
    }
  }

  /** Config dicts (`{'type': 'X', ...}`) anywhere, and `NAME = {...}` at module level or in a function. */
  private dicts(): Found[] {
    const out: Found[] = [];
    const text = this.text;
    const dict = (start: number, end: number): Found => ({
      start,
      open: start,
      end,
      callee: 'dict',
      head: 'global',
      scope: this.ownerAt(start),
      dict: true,
      ...this.where(start, end),
    });
    for (let i = text.indexOf('type', 1); i >= 0; i = text.indexOf('type', i + 4)) {
      // `'type':` or `"type":`; rare enough to check in the tree: the key of a pair, not text in a string or comment.
      const q = text.charCodeAt(i - 1);
      if ((q !== 39 && q !== 34) || text.charCodeAt(i + 4) !== q || !/^\s*:/.test(text.slice(i + 5, i + 9))) continue;
      const key = this.root.descendantForIndex(i - 1, i + 5);
      const pair = key.parent;
      const d = pair?.parent;
      if (key.typeId !== N.string || pair?.typeId !== N.pair || pair.startIndex !== key.startIndex) continue;
      if (d?.typeId === N.dictionary) out.push(dict(d.startIndex, d.endIndex));
    }
    for (const st of this.statements.assignsAndReturns()) {
      if (st.kind !== 'assign' || !st.target) continue;
      const [vs, ve] = this.statements.operands(st)[0];
      if (text.charCodeAt(vs) === 123 && matching(text, vs) === ve && isIdentifier(text.slice(...st.target)))
        out.push(dict(vs, ve));
    }
    return out;
  }

  private head(ref: RawRef): NameHead {
    const { scopes } = this.w.scopes;
    const found = this.w.scopes.lookup(ref.scope, ref.name, ref.pos);
    if (found.kind === 'module') return 'global';
    const s = scopes[found.scope];
    // A parameter of the function the read is in (a closure reading an outer parameter sees a local).
    if (s.kind !== 'function' || s.owner !== scopes[ref.scope].owner) return 'local';
    const fn = this.fns.get(s.owner);
    if (!fn?.params.has(ref.name)) return 'local';
    return ref.name === fn.self ? 'self' : 'param';
  }

  private scopeOf(ref: RawRef): string {
    return this.w.scopes.scopes[ref.scope].owner;
  }

  private scopeIndex(scope: string): number {
    let i = this.scopes.get(scope);
    if (i === undefined) this.scopes.set(scope, (i = this.scopes.size));
    return i;
  }

  /** The innermost function, method or class around a position; '' at module level. */
  private ownerAt(pos: number): string {
    const b = this.map.byte(pos);
    let owner = '';
    for (const d of this.defs) {
      if (d.start > b) break;
      if (b < d.end) owner = d.qualname;
    }
    return owner;
  }

  /** An assignment target as a fact names it: a plain name, or `self.x` for an attribute of the method's self. */
  private target([start, end]: [number, number], scope: string): string | undefined {
    const t = pyName(this.text.slice(start, end).replace(/\s+/g, ''));
    const parts = t.split('.');
    if (parts.some((p) => !isIdentifier(p))) return undefined;
    if (parts.length === 1) return t;
    if (parts.length !== 2) return undefined;
    const ref = this.refs.get(start);
    return ref && this.head(ref) === 'self' && this.fns.get(scope) ? `self.${parts[1]}` : undefined;
  }
}

/** Spaces, tabs and line continuations: `f (x)`, `a . b`; not a newline (`f` then `(x)` are two statements). */
function skipBlank(s: string, i: number): number {
  for (;;) {
    const ch = s.charCodeAt(i);
    if (ch === 32 || ch === 9 || ch === 12) i++;
    else if (ch === 92 && (s.charCodeAt(i + 1) === 10 || s.charCodeAt(i + 1) === 13)) i += 2;
    else return i;
  }
}

/** Index just past the bracket matching the one at `i` (strings skipped), or -1 when it is not closed. */
function matching(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length;) {
    const ch = s.charCodeAt(j);
    if (ch === 39 || ch === 34) {
      j = skipString(s, j, s.length);
      continue;
    }
    if (ch === 40 || ch === 91 || ch === 123) depth++;
    else if (ch === 41 || ch === 93 || ch === 125) {
      if (--depth === 0) return j + 1;
    } else if (ch === 35) {
      const nl = s.indexOf('\n', j);
      j = nl < 0 ? s.length : nl;
      continue;
    }
    j++;
  }
  return -1;
}

/** Drops the calls left out (null), renumbering the `call` values that point at the others. */
function compact(facts: (CallFact | null)[]): CallFact[] {
  const index = new Map<number, number>();
  const out: CallFact[] = [];
  facts.forEach((f, i) => {
    if (!f) return;
    index.set(i, out.length);
    out.push(f);
  });
  const fix = (v: ValueFact): ValueFact => {
    if ('list' in v) return { list: v.list.map(fix) };
    if (!('call' in v)) return v;
    const j = index.get(v.call);
    return j === undefined ? { expr: 'dict(...)' } : { call: j };
  };
  for (const f of out) {
    f.args = f.args.map((a) => {
      const { kw, star, ...value } = a;
      return { ...(kw !== undefined ? { kw } : {}), ...fix(value as ValueFact), ...(star ? { star } : {}) } as ArgFact;
    });
  }
  return out;
}
