// Where a value goes, for usage facts: the module's simple statements (assignments, returns, expression
// statements) read from the text as Python's tokenizer splits logical lines — newlines and `;` outside brackets,
// strings and comments, backslash continuations joined — and a text test of whether an expression is a whole
// operand of one: through parentheses, `or`/`and`, either branch of `if`/`else` and `await`, never the condition:
//   encoder = kwargs.pop('encoder', None) or Encoder(dim)    # Encoder(dim) is assigned to encoder
//   return (Block(1) if big else Block(2))                    # both are returned
//   nn.init.zeros_(m.bias)                                    # the value is dropped
// Text, not the tree: one pass in JavaScript costs a fraction of a cursor walk over every statement node. A
// compound statement's header or a one-line body (`if x: y = f()`) is no simple statement here.
import { assignmentSplit } from './scan-expr.ts';
import { skipString } from './strings.ts';

export interface SimpleStatement {
  kind: 'assign' | 'return' | 'expr';
  start: number;
  end: number;
  /** Starts a line at column 0: a module-level statement. */
  top: boolean;
  /** For `assign`: the target's span (`x`, `self.x`, `a, b`...). */
  target?: [number, number];
  /** The value's span: the right-hand side, the returned expression, the expression. */
  value: [number, number];
}

/** Words that open a statement other than an assignment, a return or an expression. */
const KEYWORD_LED =
  /^(?:if|elif|else|for|while|try|except|finally|with|def|class|async|import|from|del|assert|raise|global|nonlocal|pass|break|continue|yield|lambda|await|not|type)\b/;
/** First letters of `or`, `and`, `if`, `else`, `lambda`: where `split` looks for a keyword. */
const KEYWORD_START = new Set([111, 97, 105, 101, 108]);
/** Soft keywords open a compound statement only when the line ends with `:` (`match = re.match(...)` assigns). */
const SOFT_LED = /^(?:match|case)\b/;

/** The logical lines of a module, from its text: `[start, end)` pairs of the non-blank text of each, in order. */
export function logicalLines(text: string): Int32Array {
  const out: number[] = [];
  const n = text.length;
  let depth = 0;
  let start = -1;
  let last = -1;
  const flush = () => {
    if (start >= 0 && last >= start) out.push(start, last + 1);
    start = -1;
    depth = 0;
  };
  for (let i = 0; i < n;) {
    const ch = text.charCodeAt(i);
    if (ch === 35) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if (ch === 92 && (text.charCodeAt(i + 1) === 10 || text.charCodeAt(i + 1) === 13)) {
      i += text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10 ? 3 : 2;
      continue;
    }
    if (ch === 10 || ch === 59) {
      if (depth === 0) flush();
      i++;
      continue;
    }
    if (ch === 32 || ch === 9 || ch === 12 || ch === 13) {
      i++;
      continue;
    }
    if (start < 0) start = i;
    if (ch === 39 || ch === 34) {
      i = skipString(text, i, n);
      last = i - 1;
      continue;
    }
    if (ch === 40 || ch === 91 || ch === 123) depth++;
    else if ((ch === 41 || ch === 93 || ch === 125) && depth > 0) depth--;
    last = i;
    i++;
  }
  flush();
  return Int32Array.from(out);
}

function classify(text: string, start: number, end: number): SimpleStatement | null {
  const top = start === 0 || text.charCodeAt(start - 1) === 10;
  const head = text.slice(start, start + 10);
  if (/^return\b/.test(head)) {
    const v = start + 6;
    return v < end ? { kind: 'return', start, end, top, value: [v, end] } : null;
  }
  if (head.charCodeAt(0) === 64 || KEYWORD_LED.test(head)) return null; // `@decorator`, `if ...:`, `del x`...
  if (SOFT_LED.test(head) && text.charCodeAt(end - 1) === 58) return null;
  const eq = assignmentSplit(text, start, end);
  if (eq === -1) return { kind: 'expr', start, end, top, value: [start, end] };
  if (eq < 0) return null; // chained, annotated or augmented: left to the tree, which usage mining does not ask
  let te = eq;
  while (te > start && /\s/.test(text[te - 1])) te--;
  return { kind: 'assign', start, end, top, target: [start, te], value: [eq + 1, end] };
}

/** Finds the simple statement around a position (classified when first asked), and what its value's operands are. */
export class StatementIndex {
  private readonly classified = new Map<number, SimpleStatement | null>();
  private readonly cache = new Map<SimpleStatement, [number, number][]>();
  private readonly lines: Int32Array;

  constructor(private readonly text: string) {
    this.lines = logicalLines(text);
  }

  /** The simple statement holding `pos`, if any. */
  at(pos: number): SimpleStatement | undefined {
    const l = this.lines;
    let lo = 0;
    let hi = (l.length >> 1) - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (l[2 * mid] <= pos) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && pos < l[2 * found + 1] ? (this.statement(found) ?? undefined) : undefined;
  }

  /** Simple statements that may assign or return (`=` or `return` in their text), in order. */
  *assignsAndReturns(): Generator<SimpleStatement> {
    const l = this.lines;
    for (let k = 0; 2 * k < l.length; k++) {
      const start = l[2 * k];
      const eq = this.text.indexOf('=', start);
      if ((eq < 0 || eq >= l[2 * k + 1]) && !this.text.startsWith('return', start)) continue;
      const st = this.statement(k);
      if (st && st.kind !== 'expr') yield st;
    }
  }

  private statement(k: number): SimpleStatement | null {
    let st = this.classified.get(k);
    if (st === undefined) this.classified.set(k, (st = classify(this.text, this.lines[2 * k], this.lines[2 * k + 1])));
    return st;
  }

  /** The spans an expression stands for as a value of `st`: the whole value, or one of its `or`/`if` operands. */
  operands(st: SimpleStatement): [number, number][] {
    let hit = this.cache.get(st);
    if (!hit) this.cache.set(st, (hit = this.compute(st)));
    return hit;
  }

  /** Computed once per statement: a statement holding thousands of calls (`op_db = [OpInfo(...), ...]`) is long. */
  private compute(st: SimpleStatement): [number, number][] {
    const [vs, ve] = this.strip(st.value[0], st.value[1]);
    const out: [number, number][] = [[vs, ve]];
    const pieces = this.split(vs, ve);
    if (pieces.length > 1)
      for (const { span, condition } of pieces) if (!condition) out.push(this.strip(span[0], span[1]));
    return out;
  }

  /** Whether `[s, e)` is the value of `st` or a whole operand of it. */
  isValue(st: SimpleStatement, s: number, e: number): boolean {
    return this.operands(st).some(([a, b]) => a === s && b === e);
  }

  /** Without enclosing parentheses, surrounding blanks and a leading `await`. */
  private strip(s: number, e: number): [number, number] {
    const text = this.text;
    for (;;) {
      while (s < e && /\s/.test(text[s])) s++;
      while (e > s && /\s/.test(text[e - 1])) e--;
      if (text.startsWith('await', s) && /\s/.test(text[s + 5] ?? '')) {
        s += 5;
        continue;
      }
      if (text[s] !== '(' || text[e - 1] !== ')' || this.close(s, e) !== e - 1) return [s, e];
      s++;
      e--;
    }
  }

  /** Index of the bracket closing the one at `s`, looking no further than `e`. */
  private close(s: number, e: number): number {
    let depth = 0;
    for (let i = s; i < e;) {
      const ch = this.text.charCodeAt(i);
      if (ch === 39 || ch === 34) {
        i = skipString(this.text, i, e);
        continue;
      }
      if (ch === 40 || ch === 91 || ch === 123) depth++;
      else if ((ch === 41 || ch === 93 || ch === 125) && --depth === 0) return i;
      i++;
    }
    return -1;
  }

  /** Operands of top-level `or`, `and`, `if ... else` in `[s, e)`; the part between `if` and `else` is a condition. */
  private split(s: number, e: number): { span: [number, number]; condition: boolean }[] {
    const text = this.text;
    const out: { span: [number, number]; condition: boolean }[] = [];
    let depth = 0;
    let from = s;
    let condition = false;
    for (let i = s; i < e;) {
      const ch = text.charCodeAt(i);
      if (ch === 39 || ch === 34) {
        i = skipString(text, i, e);
        continue;
      }
      if (ch === 40 || ch === 91 || ch === 123) depth++;
      else if (ch === 41 || ch === 93 || ch === 125) depth--;
      else if (depth === 0 && KEYWORD_START.has(ch) && !/\w/.test(text[i - 1] ?? '')) {
        const m = /^(or|and|if|else|lambda)(?!\w)/.exec(text.slice(i, i + 7));
        if (m && m[1] === 'lambda') return []; // a lambda's body is no operand of the statement
        if (m) {
          out.push({ span: [from, i], condition });
          condition = m[1] === 'if';
          from = i + m[1].length;
          i = from;
          continue;
        }
      }
      i++;
    }
    out.push({ span: [from, e], condition });
    return out;
  }
}
