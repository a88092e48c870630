// Reads the names of a plain expression straight from its text, without visiting its nodes.
//
// Why: every cursor step is a native call (~100 ns) and most nodes sit inside ordinary expressions. For an
// expression that opens no scope and binds nothing, the text alone says what is read: names, their attribute
// chains, keyword-argument names to skip. Anything needing the tree — a lambda, a comprehension, a walrus, an
// f-string, an `__all__` operation, text that doesn't tokenize — makes the scan give up, and the caller walks
// the nodes instead.
//   f(x, key=K).y[a.b.c] + 1e-5    # reads f, x, K, a (attrs b, c); `key` is a keyword, `e` part of a number
import { closedStringEnd, isStringPrefix } from './strings.ts';

/** A read found by the scan. */
export interface ScannedRead {
  name: string;
  pos: number;
  end: number;
  attrs: string[];
  /** The last attribute read off the name (even past the 4 kept in `attrs`). */
  last: string;
  /** The chain is called: `REG.register(...)` (last = 'register'). */
  called: boolean;
}

/** Words that are operators or constants, never names. */
const SKIP = new Set(['None', 'True', 'False', 'and', 'or', 'not', 'in', 'is', 'if', 'else', 'await', 'yield', 'from']);
/** Words that mean the expression needs the tree (scopes, bindings) or isn't a plain expression at all. */
const ABORT = new Set([
  'lambda',
  'for',
  'async',
  'def',
  'class',
  'return',
  'import',
  'global',
  'nonlocal',
  'pass',
  'raise',
  'del',
  'while',
  'with',
  'try',
  'except',
  'finally',
  'assert',
  'break',
  'continue',
  'elif',
  'as',
  '__all__',
]);

export function identStart(ch: number): boolean {
  return (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || ch === 95 || ch >= 0x80;
}

export function identPart(ch: number): boolean {
  return (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch >= 0x80;
}

function digit(ch: number): boolean {
  return ch >= 48 && ch <= 57;
}

/** Index just past the number literal at `i`: `0x1F`, `1_000`, `1.5e-3`, `.5`, `2j` (never eats a following `if`). */
function skipNumber(s: string, i: number): number {
  let j = i;
  const c1 = s.charCodeAt(j + 1) | 32;
  if (s.charCodeAt(j) === 48 && (c1 === 120 || c1 === 111 || c1 === 98)) {
    j += 2;
    while (j < s.length && identPart(s.charCodeAt(j)) && s.charCodeAt(j) < 0x80) j++;
    return j;
  }
  while (digit(s.charCodeAt(j)) || s.charCodeAt(j) === 95) j++;
  if (s.charCodeAt(j) === 46 && s.charCodeAt(j + 1) !== 46) {
    j++;
    while (digit(s.charCodeAt(j)) || s.charCodeAt(j) === 95) j++;
  }
  if ((s.charCodeAt(j) | 32) === 101) {
    const n = s.charCodeAt(j + 1);
    if (digit(n)) j += 1;
    else if ((n === 43 || n === 45) && digit(s.charCodeAt(j + 2))) j += 2;
    else return j;
    while (digit(s.charCodeAt(j)) || s.charCodeAt(j) === 95) j++;
  }
  const last = s.charCodeAt(j) | 32;
  if (last === 106 || last === 108) j++; // 2j, Python 2's 10L
  return j;
}

/** Skips whitespace, line continuations and comments from `i`. */
export function skipSpace(s: string, i: number, end: number): number {
  while (i < end) {
    const ch = s.charCodeAt(i);
    if (ch === 32 || ch === 9 || ch === 10 || ch === 13 || ch === 12 || ch === 92) i++;
    else if (ch === 35) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 || nl > end ? end : nl;
    } else break;
  }
  return i;
}

/**
 * Appends the reads of the expression `s[start, end)` to `out` and returns true; returns false (with `out`
 * possibly partly filled, for the caller to truncate) when the expression needs the tree.
 */
// eslint-disable-next-line complexity -- one loop over characters: its branches are the kinds of token
export function scanExpression(s: string, start: number, end: number, out: ScannedRead[]): boolean {
  let depth = 0;
  let chain: ScannedRead | null = null; // the read whose attribute chain the last token continued
  let dot = false; // the last token was a '.' (after `chain` when that is set)
  let i = start;
  while (i < end) {
    i = skipSpace(s, i, end);
    if (i >= end) break;
    const ch = s.charCodeAt(i);
    if (identStart(ch)) {
      let j = i + 1;
      while (j < end && identPart(s.charCodeAt(j))) j++;
      if (isStringPrefix(s, i, j)) {
        if (/[fF]/.test(s.slice(i, j))) return false; // f-string: its {expressions} need the tree
        i = closedStringEnd(s, j, end);
        if (i < 0) return false;
        chain = null;
        dot = false;
        continue;
      }
      const word = s.slice(i, j);
      if (dot) {
        // `a.b`: an attribute of the chain (chains stop at 4; `call` keeps the real last name).
        dot = false;
        if (chain) {
          if (chain.attrs.length < 4) chain.attrs.push(word);
          chain.last = word;
        }
        i = j;
        continue;
      }
      chain = null;
      if (SKIP.has(word)) {
        i = j;
        continue;
      }
      if (ABORT.has(word)) return false;
      if (depth > 0) {
        // `f(key=v)`: a keyword, not a read (`key == v` and `key := v` are reads).
        const k = skipSpace(s, j, end);
        if (s.charCodeAt(k) === 61 && s.charCodeAt(k + 1) !== 61) {
          i = j;
          continue;
        }
      }
      chain = { name: word, pos: i, end: j, attrs: [], last: '', called: false };
      out.push(chain);
      i = j;
      continue;
    }
    if (digit(ch) || (ch === 46 && digit(s.charCodeAt(i + 1)))) {
      i = skipNumber(s, i);
      chain = null;
      dot = false;
      continue;
    }
    if (ch === 39 || ch === 34) {
      i = closedStringEnd(s, i, end);
      if (i < 0) return false;
      chain = null;
      dot = false;
      continue;
    }
    if (ch === 46) {
      if (s.charCodeAt(i + 1) === 46) {
        i += 3; // `...`
        chain = null;
        dot = false;
        continue;
      }
      // `a.b` continues the chain; `f(x).b` reads an attribute of something that isn't a name (chain is null).
      if (dot) chain = null;
      dot = true;
      i++;
      continue;
    }
    if (ch === 58 && s.charCodeAt(i + 1) === 61) return false; // walrus binds a name
    if (ch === 40 || ch === 91 || ch === 123) {
      if (ch === 40 && chain && !dot) chain.called = true; // `REG.update(`
      depth++;
    } else if (ch === 41 || ch === 93 || ch === 125) depth--;
    chain = null;
    dot = false;
    i++;
  }
  return true;
}

/**
 * For an expression statement's text: the index of its single top-level `=` (`x = v`, `self.a[k] = v`), -1 when
 * it has none (a bare expression), or -2 when it needs the tree: chained (`a = b = c`), annotated (`x: T = v`),
 * augmented (`x += 1`), or a top-level `:`/`=` we can't place (a lambda's `lambda x=1: x`).
 */
export function assignmentSplit(s: string, start: number, end: number): number {
  let depth = 0;
  let eq = -1;
  let i = start;
  while (i < end) {
    i = skipSpace(s, i, end);
    if (i >= end) break;
    const ch = s.charCodeAt(i);
    if (ch === 39 || ch === 34) {
      i = closedStringEnd(s, i, end);
      if (i < 0) return -2;
      continue;
    }
    if (identStart(ch)) {
      let j = i + 1;
      while (j < end && identPart(s.charCodeAt(j))) j++;
      i = isStringPrefix(s, i, j) ? closedStringEnd(s, j, end) : j; // a prefixed string: r'...', b"..."
      if (i < 0) return -2;
      continue;
    }
    if (ch === 40 || ch === 91 || ch === 123) depth++;
    else if (ch === 41 || ch === 93 || ch === 125) depth--;
    else if (depth === 0 && (ch === 58 || ch === 59))
      return -2; // annotation, or `a = 1; b = 2`
    else if (depth === 0 && ch === 61) {
      const next = s.charCodeAt(i + 1);
      const prev = s.charCodeAt(i - 1);
      if (next === 61) {
        i += 2; // `==`
        continue;
      }
      // `<=`, `>=`, `!=` are comparisons; `+=`, `<<=`, `//=`, `@=`... are augmented assignments.
      if (prev === 60 || prev === 62) {
        if (s.charCodeAt(i - 2) === prev) return -2;
        i++;
        continue;
      }
      if (prev === 33) {
        i++;
        continue;
      }
      if (eq >= 0 || /[-+*/%&|^@~]/.test(String.fromCharCode(prev))) return -2;
      eq = i;
    }
    i++;
  }
  return eq;
}

const CHAIN_TARGET = /\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*\s*/y;

/**
 * The shape of an assignment target `s[start, end)`: 'name' (`x`), 'chain' (`self.a.b`, `REG[k]`, `obj.d[k]`: a
 * read of the root that mutates it), or null for anything else (tuples, starred, `f(x).y`, `a[0][1]`).
 */
export function targetShape(s: string, start: number, end: number): 'name' | 'chain' | null {
  CHAIN_TARGET.lastIndex = start;
  const m = CHAIN_TARGET.exec(s);
  if (!m) return null;
  let i = CHAIN_TARGET.lastIndex;
  if (i >= end) return m[0].includes('.') ? 'chain' : 'name';
  if (s.charCodeAt(i) !== 91) return null;
  // One subscript on the chain, ending the target: `REG[key]`.
  let depth = 0;
  while (i < end) {
    const ch = s.charCodeAt(i);
    if (ch === 39 || ch === 34) {
      i = closedStringEnd(s, i, end);
      if (i < 0) return null;
      continue;
    }
    if (ch === 91 || ch === 40 || ch === 123) depth++;
    else if (ch === 93 || ch === 41 || ch === 125) {
      depth--;
      if (depth === 0) return skipSpace(s, i + 1, end) >= end ? 'chain' : null;
    }
    i++;
  }
  return null;
}

/** Whether a target's text calls something outside brackets: `f(x).y = 1` assigns into f's result, not into f. */
export function callsInTarget(s: string, start: number, end: number): boolean {
  let depth = 0;
  for (let i = start; i < end;) {
    const ch = s.charCodeAt(i);
    if (ch === 39 || ch === 34) {
      i = closedStringEnd(s, i, end);
      if (i < 0) return true;
      continue;
    }
    if (ch === 40 && depth === 0) return true;
    if (ch === 40 || ch === 91 || ch === 123) depth++;
    else if (ch === 41 || ch === 93 || ch === 125) depth--;
    i++;
  }
  return false;
}
