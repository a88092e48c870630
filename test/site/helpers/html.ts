// Built pages as DOM trees for the static site tests: parse5 is the HTML standard's parser, so the tree is the one
// a browser builds from the same bytes (scripts aside). Queries take a small selector subset — tag, #id, .class,
// [attr], [attr="value"], joined by descendant spaces — enough for our own markup without a browser.
import { parse, type DefaultTreeAdapterMap, type ParserError } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

interface El {
  readonly tag: string;
  attr(name: string): string | null;
  /** Text of every descendant text node, as `textContent`. */
  text(): string;
  all(selector: string): El[];
  /** The first match; throws when there is none, naming the selector. */
  one(selector: string): El;
}

export interface Page extends El {
  /** Parse errors by the standard's rules (duplicate attributes, stray end tags, ...). */
  readonly errors: ParserError[];
}

/** One compound selector, e.g. `a.result[data-block-id="x"]`. */
interface Compound {
  tag?: string;
  classes: string[];
  attrs: { name: string; value?: string }[];
}

function parseSelector(selector: string): Compound[] {
  const parts = selector.match(/(?:[^\s"[\]]+|\[[^\]]*\])+/g) ?? [];
  return parts.map((part) => {
    const c: Compound = { classes: [], attrs: [] };
    for (const m of part.matchAll(/^([a-z][\w-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:="([^"]*)")?\]/g)) {
      if (m[1]) c.tag = m[1];
      else if (m[2]) c.attrs.push({ name: 'id', value: m[2] });
      else if (m[3]) c.classes.push(m[3]);
      else c.attrs.push({ name: m[4], value: m[5] });
    }
    return c;
  });
}

const attrOf = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value ?? null;

function matches(e: Element, c: Compound): boolean {
  if (c.tag && e.tagName !== c.tag) return false;
  const classes = (attrOf(e, 'class') ?? '').split(/\s+/);
  if (!c.classes.every((k) => classes.includes(k))) return false;
  return c.attrs.every((a) => {
    const v = attrOf(e, a.name);
    return v !== null && (a.value === undefined || v === a.value);
  });
}

/** Right to left: the element matches the last compound, and its ancestors the earlier ones in order. */
function matchesChain(e: Element, chain: Compound[], scope: Node): boolean {
  if (!matches(e, chain[chain.length - 1])) return false;
  let i = chain.length - 2;
  let p = e.parentNode;
  while (i >= 0 && p && p !== scope && 'tagName' in p) {
    if (matches(p, chain[i])) i--;
    p = p.parentNode;
  }
  return i < 0;
}

/** Every element below `node`, in document order. */
function elements(node: Node, out: Element[] = []): Element[] {
  for (const child of 'childNodes' in node ? node.childNodes : []) {
    if ('tagName' in child) out.push(child);
    elements(child, out);
  }
  return out;
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

function wrap(node: Node): El {
  let below: Element[] | undefined; // listed on the first query, reused by the next
  const all = (selector: string) => {
    const chain = parseSelector(selector);
    return (below ??= elements(node)).filter((e) => matchesChain(e, chain, node)).map(wrap);
  };
  return {
    tag: 'tagName' in node ? node.tagName : node.nodeName,
    attr: (name) => ('tagName' in node ? attrOf(node, name) : null),
    text: () => textOf(node),
    all,
    one(selector) {
      const chain = parseSelector(selector);
      const hit = (below ??= elements(node)).find((e) => matchesChain(e, chain, node));
      if (!hit) throw new Error(`no element matches ${selector}`);
      return wrap(hit);
    },
  };
}

export function parseHtml(html: string): Page {
  const errors: ParserError[] = [];
  const doc = parse(html, { onParseError: (e) => errors.push(e) });
  return { ...wrap(doc), errors };
}
