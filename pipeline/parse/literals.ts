// Reads Python literal source text into JSON values: parameter defaults (`-1`, `1e-5`, `(3, 3)`, `'relu'`) and
// `__all__` lists. Anything that isn't a plain literal (names, calls, bytes, f-strings, complex numbers) is left
// undefined rather than guessed.
import type { LiteralValue } from './facts.ts';

class LiteralReader {
  i = 0;
  constructor(readonly s: string) {}

  /** Skips whitespace, backslash continuations and comments (a default may span lines inside brackets). */
  ws(): void {
    const s = this.s;
    for (;;) {
      const ch = s.charCodeAt(this.i);
      if (ch === 32 || ch === 9 || ch === 10 || ch === 13 || ch === 12 || ch === 92) this.i++;
      else if (ch === 35) {
        const nl = s.indexOf('\n', this.i);
        this.i = nl < 0 ? s.length : nl;
      } else return;
    }
  }

  atEnd(): boolean {
    this.ws();
    return this.i >= this.s.length;
  }

  eat(ch: string): boolean {
    this.ws();
    if (this.s[this.i] !== ch) return false;
    this.i++;
    return true;
  }

  /** One literal value, or undefined (and the reader's position is then meaningless). */
  value(): LiteralValue | undefined {
    this.ws();
    const s = this.s;
    const ch = s[this.i];
    if (ch === '(' || ch === '[') {
      const close = ch === '(' ? ')' : ']';
      this.i++;
      const items: LiteralValue[] = [];
      let comma = false;
      while (!this.eat(close)) {
        if (this.i >= s.length) return undefined;
        const v = this.value();
        if (v === undefined) return undefined;
        items.push(v);
        if (this.eat(',')) comma = true;
        else if (!this.eat(close)) return undefined;
        else break;
      }
      // `(1)` is just 1; `(1,)` and `()` are tuples.
      return ch === '(' && items.length === 1 && !comma ? items[0] : items;
    }
    if (ch === '-' || ch === '+') {
      this.i++;
      const v = this.value();
      if (typeof v !== 'number') return undefined;
      return ch === '-' ? -v : v;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i, this.i + 64));
    if (word && !/^[rRuUbBfF]{1,2}['"]/.test(s.slice(this.i, this.i + 3))) {
      this.i += word[0].length;
      return word[0] === 'True' ? true : word[0] === 'False' ? false : word[0] === 'None' ? null : undefined;
    }
    if (/[0-9.]/.test(ch ?? '')) return this.number();
    return this.strings();
  }

  private number(): number | undefined {
    const m = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?)/.exec(
      this.s.slice(this.i),
    );
    if (!m || m[0] === '' || m[0] === '.') return undefined;
    this.i += m[0].length;
    if (/^[jJlL]/.test(this.s[this.i] ?? '')) return undefined; // complex, or Python 2 long
    const text = m[0].replace(/_/g, '');
    const lower = text.toLowerCase();
    let n: number;
    if (lower.startsWith('0x')) n = parseInt(text.slice(2), 16);
    else if (lower.startsWith('0o')) n = parseInt(text.slice(2), 8);
    else if (lower.startsWith('0b')) n = parseInt(text.slice(2), 2);
    else n = Number(text);
    return Number.isFinite(n) ? n : undefined;
  }

  /** Adjacent string literals concatenate: `'a' 'b'` → 'ab'. Bytes and f-strings are not literals here. */
  private strings(): string | undefined {
    let out: string | undefined;
    for (;;) {
      this.ws();
      const m = /^([rRuU]{0,2})('''|"""|'|")/.exec(this.s.slice(this.i, this.i + 5));
      if (!m) return out;
      const raw = /[rR]/.test(m[1]);
      const quote = m[2];
      const start = this.i + m[0].length;
      let j = start;
      for (;;) {
        const k = this.s.indexOf(quote, j);
        if (k < 0) return undefined;
        let backslashes = 0;
        for (let b = k - 1; b >= start && this.s[b] === '\\'; b--) backslashes++;
        if (backslashes % 2 === 0) {
          j = k;
          break;
        }
        j = k + 1;
      }
      const body = this.s.slice(start, j);
      this.i = j + quote.length;
      out = (out ?? '') + (raw ? body : unescape(body));
    }
  }
}

const SIMPLE_ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['0', '\0'],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
  ['a', '\x07'],
  ['b', '\b'],
  ['f', '\f'],
  ['v', '\v'],
  ['\n', ''],
]);

function unescape(body: string): string {
  if (!body.includes('\\')) return body;
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[\s\S])/g, (all, e: string) => {
    const simple = SIMPLE_ESCAPES.get(e);
    if (simple !== undefined) return simple;
    if (e[0] === 'x' || e[0] === 'u' || e[0] === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCodePoint(parseInt(e, 8));
    return all; // unknown escapes stay as written, as in Python
  });
}

/** The value of a literal expression's source text, or undefined when it isn't one. */
export function literalValue(text: string): LiteralValue | undefined {
  const r = new LiteralReader(text);
  const v = r.value();
  return v !== undefined && r.atEnd() ? v : undefined;
}

/**
 * Strings named by an `__all__` right-hand side: `['a', 'b']`, `('a',) + ['b']`, `'a'` (for `.append`).
 * Parts that aren't literal string sequences (`other.__all__`, a comprehension) make the result dynamic.
 */
export function stringSequence(text: string, single = false): { names: string[]; dynamic: boolean } {
  const names: string[] = [];
  let dynamic = false;
  // Split on top-level `+` by reading one literal at a time; anything unreadable is dynamic.
  const r = new LiteralReader(text);
  for (;;) {
    const before = r.i;
    const v = r.value();
    const items = single ? [v] : Array.isArray(v) ? v : undefined;
    if (items === undefined || items.some((x) => typeof x !== 'string')) {
      dynamic = true;
      r.i = before;
      if (!skipOperand(r)) break;
    } else names.push(...(items as string[]));
    if (!r.eat('+')) break;
  }
  if (!r.atEnd()) dynamic = true;
  return { names, dynamic };
}

/** Skips one operand of a `+` chain (brackets balanced, strings skipped) so the literal parts after it still count. */
function skipOperand(r: LiteralReader): boolean {
  const s = r.s;
  let depth = 0;
  const start = r.i;
  while (r.i < s.length) {
    const ch = s[r.i];
    if (ch === '"' || ch === "'") {
      const k = s.indexOf(ch, r.i + 1);
      r.i = k < 0 ? s.length : k + 1;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === '+' && depth === 0) break;
    r.i++;
  }
  return r.i > start;
}
