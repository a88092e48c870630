// Where a Python string literal ends, for the scanners that read code straight from its text (attr-reads.ts,
// scan-expr.ts, call-args.ts, call-context.ts, calls.ts): one rule for all of them, the tokenizer's.
//   'it\'s'         # a backslash escapes the next character, a quote included; in a raw string too (r'\'' is one)
//   'one \
//   line'           # ... and a line break (LF or CRLF): the string goes on on the next line
//   """two
//   lines"""        # a triple-quoted string spans lines
//   'open           # a one-line string left open stops at the end of its line; a triple-quoted one at the end
// A prefix (`r`, `b`, `f`, `rb`...) comes before the opening quote: `isStringPrefix`. Nested quotes of an
// f-string (Python 3.12's `f'{d['k']}'`) are not followed: the string ends at the inner quote, as before 3.12.

const BACKSLASH = 92;
const LF = 10;
const CR = 13;
const SINGLE = 39;
const DOUBLE = 34;

/** A quote that opens a string: `'` or `"`. */
function isQuote(ch: number): boolean {
  return ch === SINGLE || ch === DOUBLE;
}

/** Whether `s[start, quote)` is a string prefix (`r`, `b`, `f`, `u`, `rb`, `Rb`, `fR`...) before the quote at `quote`. */
export function isStringPrefix(s: string, start: number, quote: number): boolean {
  return isQuote(s.charCodeAt(quote)) && quote - start <= 2 && /^[rRbBuUfF]+$/.test(s.slice(start, quote));
}

/**
 * Scans the string literal whose opening quote is at `i`, no further than `end`: the index just past its closing
 * quote; or, when it does not close, `-1 - stop`, `stop` being where it gave up (the line feed ending a one-line
 * string, or `end`).
 */
function scanString(s: string, i: number, end: number): number {
  const q = s.charCodeAt(i);
  const triple = s.charCodeAt(i + 1) === q && s.charCodeAt(i + 2) === q;
  let j = triple ? i + 3 : i + 1;
  while (j < end) {
    const ch = s.charCodeAt(j);
    if (ch === BACKSLASH) j += s.charCodeAt(j + 1) === CR && s.charCodeAt(j + 2) === LF ? 3 : 2;
    else if (ch === q && (!triple || (s.charCodeAt(j + 1) === q && s.charCodeAt(j + 2) === q)))
      return j + (triple ? 3 : 1);
    else if (ch === LF && !triple) return -1 - j;
    else j++;
  }
  return -1 - end;
}

/**
 * Index just past the string literal whose opening quote is at `i`; for one left open, where it stops (the line
 * feed ending a one-line string, or `end`). For scanners that read on past anything.
 */
export function skipString(s: string, i: number, end: number): number {
  const r = scanString(s, i, end);
  return r >= 0 ? r : -1 - r;
}

/**
 * Index just past the string literal whose opening quote is at `i`, or -1 when it does not close before `end` (or,
 * a one-line string, before its line ends). For scanners that give up on text that does not tokenize.
 */
export function closedStringEnd(s: string, i: number, end: number): number {
  const r = scanString(s, i, end);
  return r >= 0 ? r : -1;
}
