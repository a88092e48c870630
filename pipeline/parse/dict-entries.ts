// Module-level dict literals entry by entry, and the literal keys a name is read with, so that a closure can keep
// only the entries a block reads (docs/resolve.md, "Dict literals read with literal keys"):
//   ACTS = {'relu': nn.ReLU, 'swish': Swish, 'mish': Mish}   # entries: relu, swish, mish
//   act = ACTS['relu']()                                     # this occurrence of ACTS has key 'relu'
import type { DictFact } from './facts.ts';
import type { TsNode } from './grammar.ts';
import { literalValue } from './literals.ts';
import type { TextMap } from './text-map.ts';
import type { RawStatement } from './walk-state.ts';
import { pyName } from '../util/identifier.ts';

/** Punctuation and comments between entries. */
const BETWEEN = new Set([',', '(', ')', '{', '}', 'comment', 'line_continuation']);

/**
 * Per top-level statement, its dict fact when it is `NAME = {...}`, `NAME: T = {...}` or `NAME = dict(...)` with
 * one plain target; undefined otherwise. `statements` are the walker's records, in source order like the nodes.
 */
export function dictFacts(
  root: TsNode,
  statements: RawStatement[],
  text: string,
  map: TextMap,
): (DictFact | undefined)[] {
  const out: (DictFact | undefined)[] = new Array(statements.length);
  let s = 0;
  for (const node of root.children) {
    if (node.type !== 'expression_statement') continue;
    while (s < statements.length && statements[s].start < node.startIndex) s++;
    if (s >= statements.length) break;
    if (statements[s].start !== node.startIndex || statements[s].kind !== 'assign' || statements[s].tooDeep) continue;
    const fact = dictAssignment(node, text, map);
    if (fact) out[s] = fact;
  }
  return out;
}

function dictAssignment(stmt: TsNode, text: string, map: TextMap): DictFact | undefined {
  if (stmt.children.length !== 1 || stmt.children[0].type !== 'assignment') return undefined;
  const parts = stmt.children[0].children;
  const eq = parts.findIndex((p) => p.type === '=');
  if (parts[0]?.type !== 'identifier' || eq < 0 || eq !== parts.length - 2) return undefined;
  const value = parts[eq + 1];
  const name = pyName(text.slice(parts[0].startIndex, parts[0].endIndex));
  const entries: DictFact['entries'] = [];
  const entry = (n: TsNode, key: string | null) =>
    entries.push({ key, startByte: map.byte(n.startIndex), endByte: map.byte(n.endIndex) });
  // The comma after an entry belongs to it: leaving the entry out leaves no stray comma (`{'a': 1, ,}`).
  const comma = (n: TsNode) => {
    if (n.type === ',' && entries.length) entries[entries.length - 1].endByte = map.byte(n.endIndex);
  };
  const strings = new Set<string>();
  if (value.type === 'dictionary') {
    for (const n of value.children) {
      comma(n);
      if (BETWEEN.has(n.type)) continue;
      const k = n.type === 'pair' ? n.children[0] : null;
      const key = k && k.type === 'string' ? literalValue(text.slice(k.startIndex, k.endIndex)) : undefined;
      entry(n, typeof key === 'string' ? key : null);
      if (n.type === 'pair') nameStrings(n.children[n.children.length - 1], text, strings);
    }
  } else if (value.type === 'call' && value.children.length === 2) {
    const [fn, args] = value.children;
    if (fn.type !== 'identifier' || text.slice(fn.startIndex, fn.endIndex) !== 'dict') return undefined;
    if (args.type !== 'argument_list') return undefined;
    for (const n of args.children) {
      comma(n);
      if (BETWEEN.has(n.type)) continue;
      const k = n.type === 'keyword_argument' ? n.children[0] : null;
      entry(n, k && k.type === 'identifier' ? pyName(text.slice(k.startIndex, k.endIndex)) : null);
      if (k) nameStrings(n.children[n.children.length - 1], text, strings);
    }
  } else return undefined;
  if (entries.length < 2) return undefined;
  return strings.size ? { name, entries, strings: [...strings] } : { name, entries };
}

/** At most this many strings of a dict's values are kept (DictFact.strings): a table of names is short. */
const MAX_STRINGS = 64;
/** A string that could name an attribute. */
const ATTR_NAME = /^[\p{XID_Start}_][\p{XID_Continue}]*$/u;

/**
 * The plain string literals under `node` (a dict entry's value) that could name an attribute, into `out`, up to
 * MAX_STRINGS: `{'processor_class': ('processing_auto', 'PROCESSOR_MAPPING_NAMES')}` → both strings.
 */
function nameStrings(node: TsNode, text: string, out: Set<string>): void {
  if (out.size >= MAX_STRINGS) return;
  if (node.type === 'string') {
    const v = literalValue(text.slice(node.startIndex, node.endIndex));
    if (typeof v === 'string' && ATTR_NAME.test(v)) out.add(v);
    return;
  }
  if (node.type !== 'tuple' && node.type !== 'list' && node.type !== 'parenthesized_expression') return;
  for (const c of node.children) nameStrings(c, text, out);
}

/**
 * The literal key a name is read with at this occurrence, or undefined: `ACTS['relu']`, `ACTS.get('relu')`,
 * `ACTS.get("relu", None)`. Only a plain one-line string literal counts (no prefix, escape or concatenation), and
 * the subscript must follow on the same line (`ACTS\n['relu']` at statement level is a new statement).
 */
export function literalKey(text: string, end: number, attrs: string[]): string | undefined {
  const re = attrs.length === 0 ? SUBSCRIPT : attrs.length === 1 && attrs[0] === 'get' ? GET : null;
  if (re === null) return undefined;
  re.lastIndex = end;
  const m = re.exec(text);
  return m ? (m[1] ?? m[2]) : undefined;
}

const SUBSCRIPT = /[ \t]*\[[ \t]*(?:'([^'\\\n]*)'|"([^"\\\n]*)")[ \t]*\]/y;
const GET = /[ \t]*\.[ \t]*get[ \t]*\([ \t]*(?:'([^'\\\n]*)'|"([^"\\\n]*)")[ \t]*[,)]/y;
