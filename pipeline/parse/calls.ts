// Usage facts of one module: call sites with their arguments, and the names joining them to a builder's return or
// a block's attribute (facts.ts, `UsageFacts`). The usage index (pipeline/usage/) resolves them across files.
//
// One cursor pass over the whole tree after the statement walk: the walk reads most expressions from their text
// and never visits their calls, but it has recorded every name read with its scope (`RawRef`), so the head of a
// callee or of an argument is classified by the read at its position (global, parameter, self, local):
//   def _make_layer(self, block, planes):      # scope ResNet._make_layer
//       layers.append(block(self.inplanes, planes))   # block(...): head param; args self.inplanes (self), planes (param)
import { capText, type LiteralValue } from '../catalog/contract.ts';
import { pyName } from '../util/identifier.ts';
import type { ArgFact, CallFact, FunctionFact, LinkFact, NameHead, UsageFacts, ValueFact } from './facts.ts';
import { grammarIds, namedId, type TsTree } from './grammar.ts';
import { literalValue } from './literals.ts';
import { skipSpace } from './scan-expr.ts';
import type { TextMap } from './text-map.ts';
import type { RawRef } from './walk-state.ts';
import type { ModuleWalker } from './walk-stmt.ts';

/** Caps: calls per file, arguments per call, characters of an `expr` value, and of a literal string. */
export const USAGE_LIMITS = { calls: 20_000, args: 64, exprChars: 80, stringChars: 200, items: 64, depth: 4 } as const;

const N = {
  call: namedId('call'),
  argumentList: namedId('argument_list'),
  assignment: namedId('assignment'),
  return: namedId('return_statement'),
  identifier: namedId('identifier'),
  attribute: namedId('attribute'),
  subscript: namedId('subscript'),
  dictionary: namedId('dictionary'),
  pair: namedId('pair'),
  dictSplat: namedId('dictionary_splat'),
  string: namedId('string'),
  comment: namedId('comment'),
  conditional: namedId('conditional_expression'),
  list: namedId('list'),
};
/** Expressions a value passes through unchanged on its way to an assignment or a return: `(x)`, `a or X()`. */
const TRANSPARENT = new Uint8Array(0x10000);
for (const name of ['parenthesized_expression', 'boolean_operator', 'conditional_expression', 'await'])
  TRANSPARENT[namedId(name)] = 1;

/** Nodes never entered: tokens, literals, names, strings (an f-string's calls are not followed), comments. */
const LEAF = new Uint8Array(grammarIds().leaf);
for (const name of ['identifier', 'string', 'comment', 'concatenated_string']) LEAF[namedId(name)] = 1;

const DOTTED_ANY = /^[\p{XID_Start}_][\p{XID_Continue}]*(?:\s*\.\s*[\p{XID_Start}_][\p{XID_Continue}]*)*$/u;
const DOTTED_ASCII = /^[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A name or attribute chain (`nn.Conv2d`, `self . x`): the ASCII pattern first, Unicode only when needed. */
const isDotted = (s: string) => DOTTED_ASCII.test(s) || (/[^\p{ASCII}]/u.test(s) && DOTTED_ANY.test(s));
/** A literal starts with a digit, a sign, a dot, a quote, a bracket or a string prefix; or is True/False/None. */
const LITERAL_START = /^(?:[-+.0-9'"([]|[rRuU]{1,2}['"]|(?:True|False|None)\b)/;
/** `capText` without counting code points when the text is short anyway. */
const cap = (s: string, max: number) => (s.length <= max ? s : capText(s, max));
const KEYWORD = /^([\p{XID_Start}_][\p{XID_Continue}]*)\s*=(?!=)/u;
const SUBSCRIPTED = /^([\p{XID_Start}_][\p{XID_Continue}]*)\s*\[([\s\S]*)\]$/u;
/** `super().__init__`, `super(Block, self).__init__`. */
const SUPER_INIT = /^super\s*\(\s*(?:[\w.]+\s*,\s*\w+\s*)?\)\s*\.\s*__init__$/;
/** A `'type':` key, the mark of an mmcv-style config dict (`{'type': 'ResNet', 'depth': 50}`). */
const TYPE_KEY = /['"]type['"]\s*:/;

/** Statements and blocks: always entered. Any other node is entered only when a bracket inside it may open a call. */
const STATEMENT = new Uint8Array(0x10000);
for (const name of [
  'module',
  'block',
  'expression_statement',
  'decorated_definition',
  'function_definition',
  'class_definition',
  'if_statement',
  'elif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'with_statement',
  'match_statement',
  'case_clause',
])
  STATEMENT[namedId(name)] = 1;

/** Positions of `(` and `{` in the text, ascending: a node without one inside holds no call and no dict literal. */
function brackets(text: string): Int32Array {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 40 || ch === 123) n++;
  }
  const out = new Int32Array(n);
  n = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 40 || ch === 123) out[n++] = i;
  }
  return out;
}

/** Whether a sorted list has a value in [start, end). */
function anyIn(sorted: Int32Array, start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] < end;
}

/** A call found by the walk, before its head and arguments are read. */
interface RawCall {
  start: number;
  end: number;
  /** The callee expression's span and what it is: 0 name or attribute chain, 1 subscript, 2 a dict literal. */
  fnStart: number;
  fnEnd: number;
  form: 0 | 1 | 2;
  /** The argument list's span (its parentheses or braces included). */
  argsStart: number;
  argsEnd: number;
  assign?: [number, number];
  returned: boolean;
}

interface RawLink {
  kind: LinkFact['kind'];
  target?: [number, number];
  valueStart: number;
  valueEnd: number;
}

export function usageFacts(tree: TsTree, w: ModuleWalker, text: string, map: TextMap): UsageFacts {
  const raw: RawCall[] = [];
  const links: RawLink[] = [];
  walk(tree, text, raw, links);
  return new UsageReader(w, text, map).read(raw, links);
}

/** The cursor pass: calls, configuring or module-level dict literals, and returned or assigned names. */
function walk(tree: TsTree, text: string, raw: RawCall[], links: RawLink[]): void {
  const c = tree.walk();
  const opens = brackets(text);
  // Ancestors of the node under the cursor: type, end (for the types `context` reads), an assignment's target.
  const types: number[] = [];
  const ends: number[] = [];
  const lhs: ([number, number] | null)[] = [];
  let depth = 0;
  const context = (end: number): Pick<RawCall, 'assign' | 'returned'> => {
    let k = depth - 1;
    while (k >= 0 && TRANSPARENT[types[k]]) {
      end = ends[k];
      k--;
    }
    if (k < 0) return { returned: false };
    if (types[k] === N.return) return { returned: true };
    const target = lhs[k];
    if (types[k] === N.assignment && ends[k] === end && target) return { assign: target, returned: false };
    return { returned: false };
  };
  for (;;) {
    const t = c.nodeTypeId;
    let target: [number, number] | null = null;
    if (t === N.call) {
      const start = c.startIndex;
      const end = c.endIndex;
      c.gotoFirstChild();
      const ft = c.nodeTypeId;
      const fnStart = c.startIndex;
      const fnEnd = c.endIndex;
      const form = ft === N.identifier || ft === N.attribute ? 0 : ft === N.subscript ? 1 : -1;
      if (form >= 0 && c.gotoNextSibling() && c.nodeTypeId === N.argumentList) {
        const args = { argsStart: c.startIndex, argsEnd: c.endIndex };
        raw.push({ start, end, fnStart, fnEnd, form: form as 0 | 1, ...args, ...context(end) });
      }
      c.gotoParent();
    } else if (t === N.dictionary) {
      const start = c.startIndex;
      const end = c.endIndex;
      const ctx = context(end);
      // Only a config (`{'type': 'X', ...}`) or a module-level `NAME = {...}` (module > statement > assignment).
      const moduleLevel = ctx.assign !== undefined && depth === 3;
      if (moduleLevel || TYPE_KEY.test(text.slice(start, end)))
        raw.push({ start, end, fnStart: start, fnEnd: start, form: 2, argsStart: start, argsEnd: end, ...ctx });
    } else if (t === N.assignment) {
      // `x = v`, `x: T = v`, `self.x = v`: the target is the first child, the value the last.
      c.gotoFirstChild();
      const lt = c.nodeTypeId;
      target = lt === N.identifier || lt === N.attribute ? [c.startIndex, c.endIndex] : null;
      let vt = lt;
      let vs = -1;
      let ve = -1;
      while (c.gotoNextSibling()) {
        vt = c.nodeTypeId;
        vs = c.startIndex;
        ve = c.endIndex;
      }
      if (target && vt === N.conditional && c.gotoFirstChild()) {
        // `norm_layer = FrozenBatchNorm2d if trained else nn.BatchNorm2d`: either branch, never the condition.
        const branches: [number, number, number][] = [[c.nodeTypeId, c.startIndex, c.endIndex]];
        while (c.gotoNextSibling()) branches[1] = [c.nodeTypeId, c.startIndex, c.endIndex];
        c.gotoParent();
        for (const [bt, bs, be] of branches)
          if (bt === N.identifier || bt === N.attribute)
            links.push({ kind: 'assign', target, valueStart: bs, valueEnd: be });
      }
      c.gotoParent();
      if (target && vs >= 0 && (vt === N.identifier || vt === N.attribute))
        links.push({ kind: 'assign', target, valueStart: vs, valueEnd: ve });
    } else if (t === N.return) {
      if (c.gotoFirstChild()) {
        if (c.gotoNextSibling()) {
          const vt = c.nodeTypeId;
          if (vt === N.identifier || vt === N.attribute)
            links.push({ kind: 'return', valueStart: c.startIndex, valueEnd: c.endIndex });
        }
        c.gotoParent();
      }
    }
    // `f(x)`, `[g(y)]`, `{'type': 'A'}` are entered; `(a + b)`, `self.x`, `[1, 2]` hold nothing to record.
    if (!LEAF[t] && (STATEMENT[t] || anyIn(opens, c.startIndex + 1, c.endIndex - 1))) {
      const end = TRANSPARENT[t] || t === N.assignment ? c.endIndex : -1;
      if (c.gotoFirstChild()) {
        types[depth] = t;
        ends[depth] = end;
        lhs[depth] = target;
        depth++;
        continue;
      }
    }
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) return;
      depth--;
    }
  }
}

/** Reads raw calls and links against the walker's scopes: heads, scopes, arguments. */
class UsageReader {
  /** Every name read, by its UTF-16 start. */
  private readonly refs = new Map<number, RawRef>();
  /** Functions and methods by qualname (nested functions are not facts: names in them count as local). */
  private readonly fns = new Map<string, { params: Set<string>; self: string | null }>();
  /** Names the module binds at import time, and whether a star import may bind more. */
  private readonly moduleNames = new Set<string>();
  private readonly star: boolean;
  /** Definitions by span, innermost last when sorted by start: for dict literals, which have no read of their own. */
  private readonly defs: { start: number; end: number; qualname: string }[] = [];
  private callAt = new Map<number, number>();

  constructor(
    private readonly w: ModuleWalker,
    private readonly text: string,
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

  read(raw: RawCall[], rawLinks: RawLink[]): UsageFacts {
    const calls: CallFact[] = [];
    const kept: { r: RawCall; fact: CallFact }[] = [];
    // A statement the walk gave up on (nested past MAX_NESTING) records nothing here either.
    const deep = this.w.statements.filter((st) => st.tooDeep);
    for (const r of raw) {
      if (calls.length >= USAGE_LIMITS.calls) break;
      if (deep.length && deep.some((st) => st.start <= r.start && r.start < st.end)) continue;
      const fact = this.callee(r);
      if (!fact) continue;
      this.callAt.set(r.start, calls.length);
      calls.push(fact);
      kept.push({ r, fact });
    }
    // Arguments last: a nested call (`partial(...)` as an argument) is then known by its index.
    for (const { r, fact } of kept) {
      fact.args = r.form === 2 ? this.pairs(r) : this.args(r.argsStart + 1, r.argsEnd - 1);
      if (r.form === 2 && !this.keepDict(fact, r)) fact.callee = '';
      if (r.assign) {
        const target = this.target(r.assign, fact.scope);
        if (target) fact.assign = target;
      }
      if (r.returned) fact.returned = true;
    }
    const links: LinkFact[] = [];
    for (const l of rawLinks) {
      const value = this.value(l.valueStart, l.valueEnd);
      const ref = this.refs.get(l.valueStart);
      if (value.kind !== 'name' || !ref) continue;
      const scope = this.scopeOf(ref);
      if (scope === '') continue; // module level: imports and aliases are the resolver's business
      const link: LinkFact = { kind: l.kind, scope, line: this.map.line(l.valueStart), value };
      if (l.target) {
        const target = this.target(l.target, scope);
        if (!target || (!target.startsWith('self.') && value.head === 'local')) continue;
        link.target = target;
      }
      links.push(link);
    }
    // Dict literals that neither configure nor bind a module-level name were only read for their values' sake.
    if (calls.some((f) => f.callee === '')) return { calls: this.compact(calls), links };
    return { calls, links };
  }

  /** Drops the placeholder dict records, renumbering `call` values. */
  private compact(calls: CallFact[]): CallFact[] {
    const index = new Map<number, number>();
    const out: CallFact[] = [];
    calls.forEach((f, i) => {
      if (f.callee === '') return;
      index.set(i, out.length);
      out.push(f);
    });
    const fix = (v: ValueFact): ValueFact => {
      if (v.kind !== 'call') return v;
      const j = index.get(v.call);
      return j === undefined ? { kind: 'expr', text: 'dict' } : { kind: 'call', call: j };
    };
    for (const f of out) for (const a of f.args) a.value = fix(a.value);
    return out;
  }

  /** The call's callee, head and scope; null when it is not one usage mining follows (see CallFact). */
  private callee(r: RawCall): CallFact | null {
    if (r.form === 2) {
      return {
        callee: 'dict',
        head: 'global',
        scope: this.ownerAt(r.start),
        line: this.map.line(r.start),
        startByte: this.map.byte(r.start),
        args: [],
      };
    }
    const fnText = this.text.slice(r.fnStart, r.fnEnd);
    let dotted: string;
    let key: string | null | undefined;
    if (r.form === 1) {
      const m = SUBSCRIPTED.exec(fnText);
      if (!m) return null;
      dotted = pyName(m[1]);
      const k = literalValue(m[2]);
      key = typeof k === 'string' ? cap(k, USAGE_LIMITS.stringChars) : null;
    } else if (SUPER_INIT.test(fnText)) {
      // `super().__init__(...)`: the base class's initialiser, with this class's arguments.
      const ref = this.refs.get(r.fnStart);
      if (!ref || ref.name !== 'super' || !this.fns.get(this.scopeOf(ref))?.self) return null;
      return {
        callee: 'super().__init__',
        head: 'self',
        scope: this.scopeOf(ref),
        line: this.map.line(r.start),
        startByte: this.map.byte(r.start),
        args: [],
      };
    } else {
      if (!isDotted(fnText)) return null;
      dotted = pyName(fnText.replace(/\s+/g, ''));
    }
    const ref = this.refs.get(r.fnStart);
    if (!ref) return null;
    const head = this.head(ref);
    const dots = dotted.split('.').length - 1;
    if (head === 'self' ? dots !== 1 : head !== 'global' && dots > 0) return null;
    if (head === 'global' && !this.moduleNames.has(ref.name) && !this.star && ref.name !== 'dict') return null;
    const fact: CallFact = {
      callee: dotted,
      head,
      scope: this.scopeOf(ref),
      line: this.map.line(r.start),
      startByte: this.map.byte(r.start),
      args: [],
    };
    if (key !== undefined) fact.key = key;
    return fact;
  }

  /** A dict literal is kept when it configures (`'type': 'X'`) or is a module-level `NAME = {...}`. */
  private keepDict(fact: CallFact, r: RawCall): boolean {
    if (fact.args.some((a) => a.keyword === 'type' && a.value.kind === 'literal')) return true;
    return fact.scope === '' && r.assign !== undefined;
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
    const t = this.text.slice(start, end).replace(/\s+/g, '');
    if (!isDotted(t)) return undefined;
    const name = pyName(t);
    const parts = name.split('.');
    if (parts.length === 1) return name;
    if (parts.length !== 2) return undefined;
    const ref = this.refs.get(start);
    return ref && this.head(ref) === 'self' && this.fns.get(scope) ? `self.${parts[1]}` : undefined;
  }

  /** Splits `text[start, end)` (inside the parentheses) at top-level commas into arguments. */
  private args(start: number, end: number): ArgFact[] {
    const out: ArgFact[] = [];
    for (const [s, e] of this.split(start, end)) {
      if (out.length >= USAGE_LIMITS.args) break;
      out.push(this.arg(s, e));
    }
    return out;
  }

  private arg(s: number, e: number): ArgFact {
    const text = this.text;
    if (text.startsWith('**', s)) return { star: 2, value: this.value(skipSpace(text, s + 2, e), e) };
    if (text.startsWith('*', s)) return { star: 1, value: this.value(skipSpace(text, s + 1, e), e) };
    const m = KEYWORD.exec(text.slice(s, Math.min(e, s + 200)));
    if (m) return { keyword: pyName(m[1]), value: this.value(skipSpace(text, s + m[0].length, e), e) };
    return { value: this.value(s, e) };
  }

  /** `{'type': 'ResNet', 'depth': 50, **base}`: string keys as keywords; other keys are left out. */
  private pairs(r: RawCall): ArgFact[] {
    const out: ArgFact[] = [];
    for (const [s, e] of this.split(r.argsStart + 1, r.argsEnd - 1)) {
      if (out.length >= USAGE_LIMITS.args) break;
      if (this.text.startsWith('**', s)) {
        out.push({ star: 2, value: this.value(skipSpace(this.text, s + 2, e), e) });
        continue;
      }
      const colon = this.topLevel(s, e, 58);
      if (colon < 0) continue;
      const key = literalValue(this.text.slice(s, colon));
      if (typeof key !== 'string') continue;
      out.push({ keyword: cap(key, 100), value: this.value(skipSpace(this.text, colon + 1, e), e) });
    }
    return out;
  }

  /** What the expression `text[s, e)` is: a recorded call, a literal, a dotted name, or text. */
  private value(s: number, e: number, depth = 0): ValueFact {
    const call = this.callAt.get(s);
    const src = this.text.slice(s, e);
    if (call !== undefined) return { kind: 'call', call };
    const lit = LITERAL_START.test(src) ? literalValue(src) : undefined;
    if (lit !== undefined && fits(lit, 0)) return { kind: 'literal', value: lit };
    if (isDotted(src)) {
      const ref = this.refs.get(s);
      if (ref) return { kind: 'name', name: pyName(src.replace(/\s+/g, '')), head: this.head(ref) };
    }
    const open = src.charCodeAt(0);
    const close = src.charCodeAt(src.length - 1);
    if (depth < USAGE_LIMITS.depth && ((open === 91 && close === 93) || (open === 40 && close === 41))) {
      // `[BasicConv2d, InceptionA]`, `(Conv3DSimple, 64)`: a display of names and literals, item by item.
      const pieces = this.split(s + 1, e - 1);
      if (pieces.length > 0 && pieces.length <= USAGE_LIMITS.items && (open === 91 || pieces.length > 1)) {
        const items = pieces.map(([a, b]) => this.value(a, b, depth + 1));
        if (items.every((v) => v.kind === 'name' || v.kind === 'literal')) return { kind: 'list', items };
      }
    }
    return {
      kind: 'expr',
      text: cap(src.slice(0, 4 * USAGE_LIMITS.exprChars).replace(/\s+/g, ' '), USAGE_LIMITS.exprChars),
    };
  }

  /** Top-level pieces of a comma-separated list, trimmed of spaces and comments. */
  private split(start: number, end: number): [number, number][] {
    const text = this.text;
    const out: [number, number][] = [];
    let depth = 0;
    let pieceStart = -1;
    let last = -1;
    for (let i = start; i < end;) {
      const ch = text.charCodeAt(i);
      if (ch === 35) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 || nl > end ? end : nl;
        continue;
      }
      if (ch === 32 || ch === 9 || ch === 10 || ch === 13 || ch === 12 || ch === 92) {
        i++;
        continue;
      }
      if (ch === 44 && depth === 0) {
        if (pieceStart >= 0) out.push([pieceStart, last + 1]);
        pieceStart = -1;
        i++;
        continue;
      }
      if (pieceStart < 0) pieceStart = i;
      if (ch === 39 || ch === 34) {
        i = skipQuoted(text, i, end);
        last = i - 1;
        continue;
      }
      if (ch === 40 || ch === 91 || ch === 123) depth++;
      else if (ch === 41 || ch === 93 || ch === 125) depth--;
      last = i;
      i++;
    }
    if (pieceStart >= 0) out.push([pieceStart, last + 1]);
    return out;
  }

  /** Index of the first top-level `ch` in `text[s, e)`, or -1. */
  private topLevel(s: number, e: number, ch: number): number {
    const text = this.text;
    let depth = 0;
    for (let i = s; i < e;) {
      const c = text.charCodeAt(i);
      if (c === 39 || c === 34) {
        i = skipQuoted(text, i, e);
        continue;
      }
      if (c === 40 || c === 91 || c === 123) depth++;
      else if (c === 41 || c === 93 || c === 125) depth--;
      else if (c === ch && depth === 0) return i;
      i++;
    }
    return -1;
  }
}

/** Index just past the string literal whose opening quote is at `i` (single or triple quoted), at most `end`. */
function skipQuoted(s: string, i: number, end: number): number {
  const q = s.charCodeAt(i);
  const triple = s.charCodeAt(i + 1) === q && s.charCodeAt(i + 2) === q;
  let j = triple ? i + 3 : i + 1;
  while (j < end) {
    const ch = s.charCodeAt(j);
    if (ch === 92) j += 2;
    else if (ch === q && (!triple || (s.charCodeAt(j + 1) === q && s.charCodeAt(j + 2) === q)))
      return j + (triple ? 3 : 1);
    else j++;
  }
  return end;
}

/** Whether a literal is within the caps (strings, items, nesting): larger ones are kept as text markers. */
function fits(v: LiteralValue, depth: number): boolean {
  if (typeof v === 'string') return v.length <= USAGE_LIMITS.stringChars || [...v].length <= USAGE_LIMITS.stringChars;
  if (!Array.isArray(v)) return true;
  return depth < USAGE_LIMITS.depth && v.length <= USAGE_LIMITS.items && v.every((x) => fits(x, depth + 1));
}
