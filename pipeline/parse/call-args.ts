// Arguments of a recorded call, read from its text: split at top-level commas (strings, comments and brackets
// skipped), each piece a keyword, a star or a positional value, and each value a literal, a name, a nested recorded
// call, a display of names, or capped text (facts.ts, `ValueFact`).
//   Block(64, planes, *args, norm=partial(nn.BatchNorm2d, eps=1e-3), **kwargs)
//   → { lit: 64 }, { name: planes, head: param }, { star: 1, ... }, { kw: norm, call: 1 }, { star: 2, ... }
import type { LiteralValue } from '../contract/common.ts';
import { capText } from '../contract/rules.ts';
import { pyName } from '../util/identifier.ts';
import type { ArgFact, NameHead, ValueFact } from './facts.ts';
import { literalValue } from './literals.ts';
import { skipSpace } from './scan-expr.ts';
import { skipString } from './strings.ts';

/** Caps: calls per file, arguments per call, characters of an `expr` value, and of a literal string. */
export const USAGE_LIMITS = { calls: 20_000, args: 64, exprChars: 80, stringChars: 200, items: 64, depth: 4 } as const;

const DOTTED_ANY = /^[\p{XID_Start}_][\p{XID_Continue}]*(?:\s*\.\s*[\p{XID_Start}_][\p{XID_Continue}]*)*$/u;
const DOTTED_ASCII = /^[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A name or attribute chain (`nn.Conv2d`, `self . x`): the ASCII pattern first, Unicode only when needed. */
export const isDotted = (s: string) => DOTTED_ASCII.test(s) || (/[^\p{ASCII}]/u.test(s) && DOTTED_ANY.test(s));
/** A literal starts with a digit, a sign, a dot, a quote, a bracket or a string prefix; or is True/False/None. */
const LITERAL_START = /^(?:[-+.0-9'"([]|[rRuU]{1,2}['"]|(?:True|False|None)\b)/;
const KEYWORD = /^([\p{XID_Start}_][\p{XID_Continue}]*)\s*=(?!=)/u;

/** `capText` without counting code points when the text is short anyway. */
export const cap = (s: string, max: number) => (s.length <= max ? s : capText(s, max));

/** What the argument reader needs from the module: recorded calls by start, and heads of names by position. */
export interface ArgContext {
  text: string;
  /** The recorded call starting at this UTF-16 position, by index. */
  callAt(pos: number): number | undefined;
  /** How the name read at this position is bound; undefined when no read starts there. */
  headAt(pos: number): NameHead | undefined;
}

/** The arguments inside `text[start, end)` (between the parentheses). */
export function readArgs(cx: ArgContext, start: number, end: number): ArgFact[] {
  const out: ArgFact[] = [];
  for (const [s, e] of splitList(cx.text, start, end)) {
    if (out.length >= USAGE_LIMITS.args) break;
    const text = cx.text;
    if (text.startsWith('**', s)) out.push({ ...readValue(cx, skipSpace(text, s + 2, e), e), star: 2 });
    else if (text.startsWith('*', s)) out.push({ ...readValue(cx, skipSpace(text, s + 1, e), e), star: 1 });
    else {
      const m = KEYWORD.exec(text.slice(s, Math.min(e, s + 200)));
      if (m) out.push({ kw: pyName(m[1]), ...readValue(cx, skipSpace(text, s + m[0].length, e), e) });
      else out.push(readValue(cx, s, e));
    }
  }
  return out;
}

/** `{'type': 'ResNet', 'depth': 50, **base}` (inside the braces): string keys as keywords, other keys left out. */
export function readPairs(cx: ArgContext, start: number, end: number): ArgFact[] {
  const out: ArgFact[] = [];
  const text = cx.text;
  for (const [s, e] of splitList(text, start, end)) {
    if (out.length >= USAGE_LIMITS.args) break;
    if (text.startsWith('**', s)) {
      out.push({ ...readValue(cx, skipSpace(text, s + 2, e), e), star: 2 });
      continue;
    }
    const colon = topLevel(text, s, e, 58);
    if (colon < 0) continue;
    const key = literalValue(text.slice(s, colon));
    if (typeof key === 'string') out.push({ kw: cap(key, 100), ...readValue(cx, skipSpace(text, colon + 1, e), e) });
  }
  return out;
}

/** What the expression `text[s, e)` is: a recorded call, a literal, a dotted name, a display of names, or text. */
export function readValue(cx: ArgContext, s: number, e: number, depth = 0): ValueFact {
  const call = cx.callAt(s);
  if (call !== undefined) return { call };
  const src = cx.text.slice(s, e);
  const lit = LITERAL_START.test(src) ? literalValue(src) : undefined;
  if (lit !== undefined && fits(lit, 0)) return { lit };
  if (isDotted(src)) {
    const head = cx.headAt(s);
    if (head) {
      const name = pyName(src.replace(/\s+/g, ''));
      return head === 'global' ? { name } : { name, head };
    }
  }
  const open = src.charCodeAt(0);
  const close = src.charCodeAt(src.length - 1);
  if (depth < USAGE_LIMITS.depth && ((open === 91 && close === 93) || (open === 40 && close === 41))) {
    // `[BasicConv2d, InceptionA]`, `(Conv3DSimple, 64)`: a display of names and literals, item by item.
    const pieces = splitList(cx.text, s + 1, e - 1);
    if (pieces.length > 0 && pieces.length <= USAGE_LIMITS.items && (open === 91 || pieces.length > 1)) {
      const list = pieces.map(([a, b]) => readValue(cx, a, b, depth + 1));
      if (list.every((v) => 'name' in v || 'lit' in v)) return { list };
    }
  }
  return { expr: cap(src.slice(0, 4 * USAGE_LIMITS.exprChars).replace(/\s+/g, ' '), USAGE_LIMITS.exprChars) };
}

/** Top-level pieces of a comma-separated list in `text[start, end)`, trimmed of spaces and comments. */
export function splitList(text: string, start: number, end: number): [number, number][] {
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
      i = skipString(text, i, end);
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
function topLevel(text: string, s: number, e: number, ch: number): number {
  let depth = 0;
  for (let i = s; i < e;) {
    const c = text.charCodeAt(i);
    if (c === 39 || c === 34) {
      i = skipString(text, i, e);
      continue;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) depth--;
    else if (c === ch && depth === 0) return i;
    i++;
  }
  return -1;
}

/** Whether a literal is within the caps (strings, items, nesting): larger ones are kept as text. */
function fits(v: LiteralValue, depth: number): boolean {
  if (typeof v === 'string') return v.length <= USAGE_LIMITS.stringChars || [...v].length <= USAGE_LIMITS.stringChars;
  if (!Array.isArray(v)) return true;
  return depth < USAGE_LIMITS.depth && v.length <= USAGE_LIMITS.items && v.every((x) => fits(x, depth + 1));
}
