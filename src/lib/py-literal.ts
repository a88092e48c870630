// Python literals for the scripts and lines a block page shows (replay.ts, usage-snippet.ts, run-values.ts): strings
// as printable-ASCII literals, recipe values typed as the runner passed them (a list stays a list, only
// `{"tuple": [...]}` is a tuple), shapes as the tuples torch reports. Every value is checked on the way: what is not
// a literal within RUN_LIMITS gives null, never an escaped guess.
import { RUN_LIMITS } from '../../pipeline/contract/vocabulary.ts';

/** A Python string literal, single-quoted, pure printable ASCII: every other character as an escape. */
export function pyStr(s: string): string {
  let out = "'";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}

/**
 * A recipe value as Python source, or null when it is not a literal within RUN_LIMITS: None, True/False, a finite
 * number, a string (pyStr), a list or tuple of those. Typed as the runner passed it (infer.py `materialize`): a
 * list stays a list (Swin's `window_size=[4, 4]` is copied with `.copy()`, which a tuple lacks) and only
 * `{"tuple": [...]}` is a tuple.
 */
export function pyLiteral(v: unknown, depth = 0): string | null {
  if (isTupleValue(v)) return sequence(v.tuple, depth, '(', ')');
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return String(v); // JavaScript's shortest round-trip form is valid Python (1e+21, 5e-7)
    return Number.isNaN(v) ? "float('nan')" : v > 0 ? "float('inf')" : "float('-inf')";
  }
  if (typeof v === 'string') return [...v].length <= RUN_LIMITS.recipeStringChars ? pyStr(v) : null;
  return Array.isArray(v) ? sequence(v, depth, '[', ']') : null;
}

/** Items within RUN_LIMITS as a Python list or tuple display (`(1,)` for a tuple of one). */
function sequence(v: unknown[], depth: number, open: '(' | '[', close: ')' | ']'): string | null {
  if (depth >= RUN_LIMITS.literalDepth || v.length > RUN_LIMITS.recipeItems) return null;
  const items = v.map((x) => pyLiteral(x, depth + 1));
  if (items.some((x) => x === null)) return null;
  return open === '(' && items.length === 1 ? `(${items[0]},)` : `${open}${items.join(', ')}${close}`;
}

/** A shape (checked non-negative integers) as the tuple torch takes and reports: `(2, 3, 8, 8)`. */
export const pyShape = (shape: number[]): string => sequence(shape, 0, '(', ')')!;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{"tuple": [...]}`: a recipe's tuple (RecipeValue), nothing else beside it. */
export const isTupleValue = (v: unknown): v is { tuple: unknown[] } =>
  isObject(v) && Object.keys(v).length === 1 && Array.isArray(v.tuple);
