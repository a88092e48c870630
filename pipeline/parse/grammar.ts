// The tree-sitter Python grammar as the walker sees it: one reused parser per thread, numeric node-type ids, leaf table.
//
// Why numeric ids: every property read on a node or cursor is a native call (~100 ns); the walker reads
// `cursor.nodeTypeId` once per node and dispatches on small integers, never on type-name strings.
import { NnblocksError } from '../contract/diagnostics.ts';
import { treeSitterParser } from '../util/tree-sitter.ts';

/** The slice of node-tree-sitter's cursor API the walker uses (the package ships CommonJS types only). */
export interface Cursor {
  readonly nodeTypeId: number;
  readonly nodeType: string;
  readonly nodeIsNamed: boolean;
  readonly nodeIsMissing: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  /** Depth below the node the cursor was made on (the module: its statements are at depth 1). */
  readonly currentDepth: number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
}

export interface TsNode {
  readonly type: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly children: TsNode[];
}

export interface TsTree {
  readonly rootNode: TsNode;
  walk(): Cursor;
}

interface TsParser {
  setLanguage(lang: unknown): void;
  parse(input: string | ((index: number) => string | null), oldTree?: unknown, opts?: { bufferSize?: number }): TsTree;
}

/** Tree-sitter's id for ERROR nodes. */
export const ERROR_ID = 0xffff;

/** The thread's parser lives in util/ (the sources stage reads setup.py with it too); re-exported for the callers. */
export { treeSitterParser };

/** The same parser, seen through the slice of its API the parse stage's walker uses. */
export function pythonParser(): TsParser {
  return treeSitterParser() as unknown as TsParser;
}

/** Parses a whole module; the tree's indices are UTF-16 code units of `text`. */
export function parseTree(text: string): TsTree {
  return pythonParser().parse(text);
}

// A snippet that contains every node type the walker names; its parse tells us the ids of this grammar build.
const CALIBRATION = `from __future__ import annotations
from . import a as b
from .m import *
import x.y as z, w
global g
nonlocal n
@d
class C(B, metaclass=M, *s, **k):
    v: int = 1
    v += 1
    del v
    async def f(self, a, /, b: int = -1, *args, c, d=2, e: str = 'x', **kw) -> T:
        raise NotImplementedError
    def h(q, *, r): ...
try:
    pass
except* E as e:
    pass
try:
    pass
except F as e:
    pass
else:
    pass
finally:
    pass
if a:
    pass
elif b:
    pass
else:
    pass
for i, (j, *k) in l: pass
while m: pass
with n() as o, p: pass
match s:
    case P(x=0, y=yy) | [aa, *rest] if aa: pass
    case {"k": v, **kw}: pass
    case Q.R as rr: pass
    case _: pass
t = [u for u in v if u]
t = {u for u in v}
t = {u: u for u in v}
t = (u for u in v)
t = lambda a, *b, c=1, **d: a
t = (w := 1)
t = a.b[c:d]
t = f"{a!r:{b}}" "c"
t = not a and b or c if d else -e
t = await a
t = yield a
t = [*a]
t = 1.5, True, False, None, (a, b), {a}, [a], a + b < c  # comment
def g(a: int, *b: int): pass
t = {**a, 'b': 1}
f(a, *b, c=d, **e)
a, *b = c
[a, b] = c
print >> a, b
assert a, b
return a
raise a from b
type A = int
import a.b
`;

type Ids = Map<string, number>;

interface Grammar {
  /** Named node types: name → id. */
  named: Ids;
  /** Anonymous tokens (keywords, punctuation): text → id. */
  anon: Ids;
  /** True for ids the walker never needs to descend into (tokens, literals, comments). */
  leaf: Uint8Array;
}

let grammar: Grammar | null = null;

function calibrate(): Grammar {
  const tree = parseTree(CALIBRATION);
  const c = tree.walk();
  const named: Ids = new Map();
  const anon: Ids = new Map();
  const hasChildren = new Set<number>();
  for (;;) {
    const id = c.nodeTypeId;
    (c.nodeIsNamed ? named : anon).set(c.nodeType, id);
    if (c.gotoFirstChild()) {
      hasChildren.add(id);
      continue;
    }
    let done = false;
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
  const leaf = new Uint8Array(0x10000);
  for (const id of anon.values()) if (!hasChildren.has(id)) leaf[id] = 1;
  for (const name of [
    'integer',
    'float',
    'true',
    'false',
    'none',
    'comment',
    'ellipsis',
    'string_content',
    'escape_sequence',
    'type_conversion',
    'line_continuation',
    'keyword_separator',
    'positional_separator',
  ]) {
    const id = named.get(name);
    if (id !== undefined) leaf[id] = 1;
  }
  return { named, anon, leaf };
}

export function grammarIds(): Grammar {
  grammar ??= calibrate();
  return grammar;
}

/** The id of a named node type; throws (our bug) if the grammar build lacks it. */
export function namedId(name: string): number {
  const id = grammarIds().named.get(name);
  if (id === undefined)
    throw new NnblocksError(
      `tree-sitter-python has no node type '${name}'`,
      'parse',
      'the pinned tree-sitter-python version changed; update pipeline/parse/grammar.ts',
    );
  return id;
}

/** The id of an anonymous token such as '=' or 'as'; -1 when this grammar build never produces it. */
export function tokenId(text: string): number {
  return grammarIds().anon.get(text) ?? -1;
}
