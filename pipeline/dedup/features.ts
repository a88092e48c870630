// One tree-sitter walk per block yields all three code fingerprints' inputs: the normalized text (exact level),
// the abstracted token stream (lexical level) and the bag of hashed subtrees (structural level).
//
// The walk uses a TreeCursor and caches per-type facts by numeric type id because every call into the native
// binding costs ~100 ns; fetching a node's type name or text only when needed keeps 10k blocks in seconds.
import type Parser from 'tree-sitter';
import { treeSitterParser } from '../parse/grammar.ts';
import { combine, fmix32, hashString } from './hash32.ts';

export interface FeatureOptions {
  /** Depths of the hashed subtrees that go into the structural bag, e.g. [2, 3] (WL iterations 2 and 3). */
  subtreeDepths: readonly number[];
  /** Identifiers kept in the lexical stream, with the attribute chains hanging off them (`nn.Conv2d`). */
  apiRoots: ReadonlySet<string>;
  /** Other identifiers kept as themselves (`self`, builtins): renaming never touches them. */
  keptNames: ReadonlySet<string>;
}

export interface BlockFeatures {
  /** Tokens joined by single spaces; comments, docstrings and layout gone, blocks as `{ }`, statements end `;`. */
  normalized: string;
  /** Hashes of the abstracted tokens, in order (identifiers -> ID, numbers -> NUM, strings -> STR, ...). */
  lexical: Int32Array;
  /** WL labels l_d (d in subtreeDepths) of every inner named node, unsorted, with repeats (a multiset). */
  subtrees: Int32Array;
  /** Named syntax nodes walked (comments and docstrings excluded). */
  nodes: number;
  /** ERROR nodes tree-sitter produced; the fingerprints are still computed over the recovered tree. */
  syntaxErrors: number;
}

const enum Kind {
  Skip, // comment, line_continuation: layout, not code
  Identifier,
  Number,
  String, // a leaf for us: f-string interpolations are literal content too
  Bool,
  ExprStatement, // may be a docstring
  Inner, // any other named node; a leaf if it turns out to have no children
  Token, // anonymous: keyword or operator
  Punct, // anonymous punctuation: kept in the text streams, left out of structural labels
}

interface TypeInfo {
  name: string;
  kind: Kind;
  /** Hash of the structural label (node type, with identifiers and literals merged by kind). */
  label: number;
  /** Hash of the lexical token for anonymous tokens and abstracted leaves. */
  token: number;
  isBlock: boolean;
  /** module and block: their named children are statements, each followed by `;` in the text streams. */
  holdsStatements: boolean;
}

const NAMED_KINDS = new Map<string, Kind>([
  ['comment', Kind.Skip],
  ['line_continuation', Kind.Skip],
  ['identifier', Kind.Identifier],
  ['integer', Kind.Number],
  ['float', Kind.Number],
  ['string', Kind.String],
  ['true', Kind.Bool],
  ['false', Kind.Bool],
  ['expression_statement', Kind.ExprStatement],
]);
const LABELS = new Map<Kind, string>([
  [Kind.Identifier, 'ID'],
  [Kind.Number, 'NUM'],
  [Kind.String, 'STR'],
  [Kind.Bool, 'BOOL'],
]);
const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',', ':', ';', '.']);

const H_SEMI = hashString(';');
const H_OPEN = hashString('{');
const H_CLOSE = hashString('}');
const H_DOT = hashString('.');

// Hashes of kept identifiers (API names, builtins): a small vocabulary, hashed once per process.
const keptHashes = new Map<string, number>();
function keptHash(name: string): number {
  let h = keptHashes.get(name);
  if (h === undefined) {
    h = hashString(name);
    keptHashes.set(name, h);
  }
  return h;
}
const typeInfos: (TypeInfo | undefined)[] = [];

function getParser(): Parser {
  return treeSitterParser();
}

function typeInfo(c: Parser.TreeCursor): TypeInfo {
  const id = c.nodeTypeId;
  let info = typeInfos[id];
  if (info === undefined) {
    const name = c.nodeType;
    const named = c.nodeIsNamed;
    const kind = named ? (NAMED_KINDS.get(name) ?? Kind.Inner) : PUNCT.has(name) ? Kind.Punct : Kind.Token;
    const label = LABELS.get(kind) ?? (named ? name : `'${name}'`);
    info = {
      name,
      kind,
      label: hashString(label),
      token: hashString(named ? label : name),
      isBlock: named && name === 'block',
      holdsStatements: named && (name === 'block' || name === 'module'),
    };
    typeInfos[id] = info;
  }
  return info;
}

/** Rewrites a plain string literal with double quotes, so `'x'` and `"x"` (black's rewrite) normalize alike. */
export function canonicalString(text: string): string {
  const m = /^([A-Za-z]*)("""|'''|"|')([\s\S]*)\2$/.exec(text);
  if (m === null || /["'\\\n]/.test(m[3])) return text;
  return `${m[1].toLowerCase()}"${m[3]}"`;
}

/** True when the cursor's expression_statement is a bare string: a docstring or a no-op string statement. */
function isDocstring(c: Parser.TreeCursor): boolean {
  if (!c.gotoFirstChild()) return false;
  const first = typeInfo(c);
  const bare = (first.kind === Kind.String || first.name === 'concatenated_string') && !c.gotoNextSibling();
  c.gotoParent();
  return bare;
}

/** `code` parsed as extractFeatures parses it (a buffer that holds a large module's text at once). */
export function parseCode(code: string): Parser.Tree {
  return getParser().parse(code, null, { bufferSize: 2 * code.length + 64 });
}

/**
 * Whether the node under the cursor is left out of the features: layout, a docstring, or (at `depth` 1, a module's
 * own statement) a type of `skipTop`.
 */
function skipped(c: Parser.TreeCursor, info: TypeInfo, depth: number, skipTop?: ReadonlySet<string>): boolean {
  if (info.kind === Kind.Skip || (info.kind === Kind.ExprStatement && isDocstring(c))) return true;
  return depth === 1 && skipTop !== undefined && skipTop.has(info.name);
}

/**
 * The features of `code`. `tree`: its parse, when the caller has one; `skipTop`: types of the module's own statements
 * to leave out, as if they were not in the text (own-code.ts cuts imports so, and the parse that found them serves
 * here too: the walk of what is left is the walk of the cut text's parse).
 */
export function extractFeatures(
  code: string,
  opts: FeatureOptions,
  tree: Parser.Tree = parseCode(code),
  skipTop?: ReadonlySet<string>,
): BlockFeatures {
  const c = tree.walk();
  const D = Math.max(...opts.subtreeDepths);
  const inBag = new Uint8Array(D + 1);
  for (const d of opts.subtreeDepths) inBag[d] = 1;
  const text: string[] = [];
  const lex: number[] = [];
  const bag: number[] = [];
  // Labels l_0..l_D of finished children, D + 1 per child, for the frames still open on `frames`.
  const lab: number[] = [];
  const frames: { info: TypeInfo; labStart: number }[] = [];
  let lastApi = -2; // index in `lex` of the last kept API identifier, to keep `nn . Conv2d` chains
  let nodes = 0;
  let syntaxErrors = 0;

  const pushLeafLabel = (h: number) => {
    for (let k = 0; k <= D; k++) lab.push(h);
  };
  const endStatement = () => {
    const parent = frames[frames.length - 1];
    if (parent !== undefined && parent.info.holdsStatements) {
      text.push(';');
      lex.push(H_SEMI);
    }
  };
  const closeFrame = () => {
    const { info, labStart } = frames.pop()!;
    const width = D + 1;
    const children = (lab.length - labStart) / width;
    const own = [info.label];
    // l_k(n) = H(l_{k-1}(n), l_{k-1}(child_1), ..., l_{k-1}(child_m)): the subtree of depth k under n.
    for (let k = 1; k <= D; k++) {
      let h = own[k - 1];
      for (let j = 0; j < children; j++) h = combine(h, lab[labStart + j * width + k - 1]);
      own.push(fmix32(h ^ children));
      if (inBag[k] === 1) bag.push(own[k]);
    }
    lab.length = labStart;
    for (const h of own) lab.push(h);
    if (info.isBlock) {
      text.push('}');
      lex.push(H_CLOSE);
    }
    endStatement();
  };
  const leaf = (info: TypeInfo) => {
    const raw = code.slice(c.startIndex, c.endIndex);
    let token = info.token;
    if (info.kind === Kind.Identifier) {
      const api =
        opts.apiRoots.has(raw) || (lastApi === lex.length - 2 && lex[lex.length - 1] === H_DOT && lastApi >= 0);
      if (api) lastApi = lex.length;
      if (api || opts.keptNames.has(raw)) token = keptHash(raw);
    } else if (info.kind === Kind.Inner) {
      token = keptHash(raw); // keyword-like named leaves: None, ..., etc.
    }
    text.push(info.kind === Kind.String ? canonicalString(raw) : raw);
    lex.push(token);
    pushLeafLabel(info.label);
  };

  // Visit the node under the cursor, then advance to the next one in preorder, closing finished frames.
  for (;;) {
    const info = typeInfo(c);
    let descended = false;
    if (info.kind === Kind.Token || info.kind === Kind.Punct) {
      if (info.name !== ';') {
        text.push(info.name);
        lex.push(info.token);
        if (info.kind === Kind.Token) pushLeafLabel(info.label);
      }
    } else if (!skipped(c, info, frames.length, skipTop)) {
      nodes++;
      if (info.kind === Kind.Inner || info.kind === Kind.ExprStatement) {
        if (info.name === 'ERROR') syntaxErrors++;
        frames.push({ info, labStart: lab.length });
        if (info.isBlock) {
          text.push('{');
          lex.push(H_OPEN);
        }
        if (c.gotoFirstChild()) descended = true;
        else {
          // A named node without children (`None`, `...`): a leaf after all.
          frames.pop();
          if (info.isBlock) {
            text.push('}');
            lex.push(H_CLOSE);
          } else leaf(info);
          endStatement();
        }
      } else {
        leaf(info);
        endStatement();
      }
    }
    if (descended) continue;
    // Advance: next sibling, or climb while closing frames.
    let done = false;
    while (!c.gotoNextSibling()) {
      if (frames.length === 0 || !c.gotoParent()) {
        done = true;
        break;
      }
      closeFrame();
      if (frames.length === 0) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
  return {
    normalized: text.join(' '),
    lexical: Int32Array.from(lex),
    subtrees: Int32Array.from(bag),
    nodes,
    syntaxErrors,
  };
}
