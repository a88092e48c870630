// The walker's shared state: the tree cursor, node-type ids, the scope table and the raw records the walk fills.
//
// The walk is one pass of a TreeCursor over the statements and scopes (one native call per step, no node
// objects); plain expressions inside them are read from their text (scan-expr.ts). Reads of names are recorded
// with their scope and resolved after the walk, once every scope knows all its bindings.
import type { ClassFact, FunctionFact, ImportFact, StatementKind } from './facts.ts';
import { ERROR_ID, grammarIds, namedId, tokenId, type Cursor } from './grammar.ts';
import { pyName } from '../util/identifier.ts';
import { ScopeTable } from './scopes.ts';
import type { TextMap } from './text-map.ts';

/** Node-type ids of this grammar build, looked up once. */
export const T = {
  identifier: namedId('identifier'),
  attribute: namedId('attribute'),
  call: namedId('call'),
  string: namedId('string'),
  lambda: namedId('lambda'),
  listComp: namedId('list_comprehension'),
  setComp: namedId('set_comprehension'),
  dictComp: namedId('dictionary_comprehension'),
  genExpr: namedId('generator_expression'),
  forIn: namedId('for_in_clause'),
  ifClause: namedId('if_clause'),
  walrus: namedId('named_expression'),
  keywordArgument: namedId('keyword_argument'),
  subscript: namedId('subscript'),
  argumentList: namedId('argument_list'),
  block: namedId('block'),
  comment: namedId('comment'),
  type: namedId('type'),
  parameters: namedId('parameters'),
  lambdaParameters: namedId('lambda_parameters'),
  defaultParameter: namedId('default_parameter'),
  typedParameter: namedId('typed_parameter'),
  typedDefaultParameter: namedId('typed_default_parameter'),
  listSplatPattern: namedId('list_splat_pattern'),
  dictSplatPattern: namedId('dictionary_splat_pattern'),
  keywordSeparator: namedId('keyword_separator'),
  positionalSeparator: namedId('positional_separator'),
  listSplat: namedId('list_splat'),
  dictSplat: namedId('dictionary_splat'),
  asPatternTarget: namedId('as_pattern_target'),
  decorator: namedId('decorator'),
  functionDefinition: namedId('function_definition'),
  classDefinition: namedId('class_definition'),
  expressionStatement: namedId('expression_statement'),
  assignment: namedId('assignment'),
  augmentedAssignment: namedId('augmented_assignment'),
  ellipsis: namedId('ellipsis'),
  passStatement: namedId('pass_statement'),
  raiseStatement: namedId('raise_statement'),
  dottedName: namedId('dotted_name'),
  aliasedImport: namedId('aliased_import'),
  wildcardImport: namedId('wildcard_import'),
  relativeImport: namedId('relative_import'),
  importPrefix: namedId('import_prefix'),
  tuple: namedId('tuple'),
  list: namedId('list'),
  patternList: namedId('pattern_list'),
  tuplePattern: namedId('tuple_pattern'),
  listPattern: namedId('list_pattern'),
  asPattern: namedId('as_pattern'),
  exceptClause: namedId('except_clause'),
  exceptGroupClause: namedId('except_group_clause'),
  elseClause: namedId('else_clause'),
  elifClause: namedId('elif_clause'),
  finallyClause: namedId('finally_clause'),
  withClause: namedId('with_clause'),
  withItem: namedId('with_item'),
  caseClause: namedId('case_clause'),
  casePattern: namedId('case_pattern'),
  classPattern: namedId('class_pattern'),
  keywordPattern: namedId('keyword_pattern'),
  splatPattern: namedId('splat_pattern'),
  concatenatedString: namedId('concatenated_string'),
  decoratedDefinition: namedId('decorated_definition'),
  parenthesized: namedId('parenthesized_expression'),
  expressionList: namedId('expression_list'),
};

/** Anonymous tokens the walker tells apart. */
export const K = {
  eq: tokenId('='),
  colon: tokenId(':'),
  arrow: tokenId('->'),
  as: tokenId('as'),
  for: tokenId('for'),
  in: tokenId('in'),
  import: tokenId('import'),
  async: tokenId('async'),
};

export enum X {
  /** A plain expression node: its text is scanned, or its children walked when the scan gives up. */
  Generic = 0,
  /** Walked node by node, never scanned: f-string parts (`{x!r:>{w}}`), ERROR nodes. */
  Tree,
  Leaf,
  Name,
  Attribute,
  Call,
  Str,
  Lambda,
  Comprehension,
  Walrus,
  KeywordArgument,
}

/** Expression dispatch table: node-type id → X. */
export const EXPR = new Uint8Array(0x10000);
{
  const leaf = grammarIds().leaf;
  for (let i = 0; i < leaf.length; i++) if (leaf[i]) EXPR[i] = X.Leaf;
  EXPR[T.identifier] = X.Name;
  EXPR[T.attribute] = X.Attribute;
  EXPR[T.call] = X.Call;
  EXPR[T.string] = X.Str;
  EXPR[T.lambda] = X.Lambda;
  EXPR[T.listComp] = X.Comprehension;
  EXPR[T.setComp] = X.Comprehension;
  EXPR[T.dictComp] = X.Comprehension;
  EXPR[T.genExpr] = X.Comprehension;
  EXPR[T.walrus] = X.Walrus;
  EXPR[T.keywordArgument] = X.KeywordArgument;
  for (const name of ['interpolation', 'format_specifier', 'format_expression']) EXPR[namedId(name)] = X.Tree;
  EXPR[ERROR_ID] = X.Tree;
}

/** Method names whose call at import time mutates the receiver: `REGISTRY.update(...)`, `@MODELS.register`. */
export const MUTATORS = new Set(['update', 'append', 'extend', 'register', 'register_module', 'add', 'setdefault']);

/** Shared by reads without an attribute chain (most of them); replaced, never pushed to. */
export const NO_ATTRS: string[] = [];

/** A read of a name, recorded during the walk and resolved afterwards. */
export interface RawRef {
  name: string;
  scope: number;
  /** UTF-16 start and end in the decoded text. */
  pos: number;
  end: number;
  /** NO_ATTRS until the first attribute is read off it. */
  attrs: string[];
  stmt: number;
  /** Runs after import time (function/lambda body, or an annotation under `from __future__ import annotations`). */
  deferred: boolean;
}

/** A name's UTF-16 span in the decoded text. */
export interface RawSpan {
  pos: number;
  end: number;
}

export interface RawStatement {
  kind: StatementKind;
  start: number;
  end: number;
  binds: Set<string>;
  /** Module names bound only inside `if TYPE_CHECKING:` (TopStatement.typing); those also bound elsewhere go. */
  typing: Set<string>;
  /** Bodies of `if TYPE_CHECKING:` anywhere in the statement (TopStatement.typeChecking). */
  typingBodies: RawSpan[];
  mutates: Set<string>;
  /** Module names rebound through `global` in code that runs later, with their `global` and binding spans. */
  rebinds: Map<string, RawSpan[]>;
  /** The walk gave up on this statement (nested deeper than MAX_NESTING): it records nothing. */
  tooDeep?: boolean;
}

/**
 * How deep the walker follows nested expressions, targets, patterns and blocks before it gives up on a
 * statement. Fixed (rather than "until the stack overflows") so that facts are the same on the main thread and
 * in a worker with another stack size, with a wide margin below the smallest of them (a cold main thread
 * overflows near 1,500 levels of `lambda b=lambda b=...`). CPython refuses far less: `too many nested
 * parentheses` past 200, a RecursionError compiling a few thousand nested lambdas. See docs/index.md ("Parse").
 */
export const MAX_NESTING = 500;

/** Thrown when a statement nests deeper than MAX_NESTING; caught per top-level statement (walk-stmt.ts). */
export class NestingTooDeep extends Error {
  constructor() {
    super(`nested more than ${MAX_NESTING} levels deep`);
  }
}

/** Inside the body of an `if TYPE_CHECKING:` (at any depth), where nothing runs. */
function underTypeChecking(frame: GuardFrame | null): boolean {
  for (let f = frame; f; f = f.parent) if (f.kind === 'type-checking') return true;
  return false;
}

/** An enclosing `try`/`if` while walking, to label the imports inside it. */
export interface GuardFrame {
  kind: 'try' | 'type-checking' | 'if';
  /** For `try`: whether a handler catches ImportError (or a superclass, or everything). */
  catches: boolean;
  parent: GuardFrame | null;
}

export interface RawImport {
  fact: ImportFact;
  frame: GuardFrame | null;
  /** The scope its names bind in (a function-local import's reads of them are its `uses`). */
  scope: number;
}

/** `__all__` operations at module level, in order: text is the right-hand side or the call's argument list. */
export interface AllOp {
  op: 'assign' | 'extend' | 'append';
  text: string;
}

export abstract class WalkState {
  readonly scopes = new ScopeTable();
  readonly refs: RawRef[] = [];
  /** Reads that root a mutation (`X[k] = v`, `X.update(...)`): kept when they resolve to the module's X. */
  readonly mutations: RawRef[] = [];
  readonly statements: RawStatement[] = [];
  readonly imports: RawImport[] = [];
  readonly classes: ClassFact[] = [];
  readonly functions: FunctionFact[] = [];
  readonly allOps: AllOp[] = [];
  /** Annotations and base classes (UTF-16 ranges): names in them are used as types only (NameOccurrence.typeOnly). */
  readonly typeRanges: [number, number][] = [];
  /** Bodies of functions defined directly in a class body (UTF-16 range of the block), in source order. */
  readonly methodBodies: { fact: FunctionFact; start: number; end: number }[] = [];
  /** Class facts by the id of their body scope (methods and attributes land there). */
  protected readonly classByScope = new Map<number, ClassFact>();
  protected stmt = 0;
  protected guard: GuardFrame | null = null;
  /** Set by `from __future__ import annotations`: annotations are then never evaluated at import time. */
  protected futureAnnotations = false;
  protected inAnnotation = false;
  /** In a class body, where the binding being made becomes visible (after the assignment's right-hand side). */
  protected bindPos = -1;
  /** Current nesting of expressions, targets and blocks (see MAX_NESTING). */
  protected depth = 0;
  /** `global X` declarations in deferred scopes: `${scope}\0${name}` → their spans (renamed with the bindings). */
  private readonly globalDecls = new Map<string, RawSpan[]>();

  constructor(
    protected readonly c: Cursor,
    protected readonly text: string,
    protected readonly map: TextMap,
    /** false: never read expressions from their text, walk every node (see ParseOptions.textScan). */
    protected readonly textScan = true,
  ) {}

  abstract block(scope: number): void;

  /** Source text of the node under the cursor. */
  protected nodeText(): string {
    return this.text.slice(this.c.startIndex, this.c.endIndex);
  }

  /** One more level of nesting; throws NestingTooDeep past MAX_NESTING. Pair with `this.depth--`. */
  protected enter(): void {
    if (++this.depth > MAX_NESTING) throw new NestingTooDeep();
  }

  /** The identifier under the cursor (as Python binds it: NFKC for non-ASCII text), its start and its end. */
  protected identifier(): { name: string; pos: number; end: number } {
    const pos = this.c.startIndex;
    const end = this.identEnd(pos);
    return { name: pyName(this.text.slice(pos, end)), pos, end };
  }

  /** End of the identifier starting at `pos`: scanned in JS for ASCII names, asked of the cursor otherwise. */
  protected identEnd(pos: number): number {
    const text = this.text;
    let i = pos;
    for (;;) {
      const ch = text.charCodeAt(i);
      if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95) i++;
      else if (ch >= 0x80) return this.c.endIndex;
      else return i;
    }
  }

  /** Records a read of the identifier under the cursor. */
  protected ref(scope: number): RawRef | null {
    const pos = this.c.startIndex;
    const end = this.identEnd(pos);
    if (end === pos) return null; // a MISSING identifier inserted by error recovery
    const r: RawRef = {
      name: pyName(this.text.slice(pos, end)),
      scope,
      pos,
      end,
      attrs: NO_ATTRS,
      stmt: this.stmt,
      deferred: this.scopes.scopes[scope].deferred || (this.inAnnotation && this.futureAnnotations),
    };
    this.refs.push(r);
    return r;
  }

  /** Appends to a read's attribute chain (at most 4 long). */
  protected addAttr(r: RawRef, name: string): void {
    if (r.attrs === NO_ATTRS) r.attrs = [name];
    else if (r.attrs.length < 4) r.attrs.push(name);
  }

  /**
   * Binds `name` in `scope`. A module-level binding made at import time is added to the current statement's
   * `binds`; one made through `global` in code that runs later goes to its `rebinds` instead (with `end`, the
   * name's span, for renames), because it is not what the module holds after import (docs/resolve.md):
   *   _USE_FAST_NORM = False                  # binds
   *   def set_fast_norm(enable=True):
   *       global _USE_FAST_NORM
   *       _USE_FAST_NORM = enable             # rebinds, when called
   */
  protected bindName(scope: number, name: string, pos: number, attribute: boolean, end = -1): void {
    if (name === '') return;
    const s = this.scopes.scopes[scope];
    const visibleFrom = s.kind === 'class' && this.bindPos >= 0 ? this.bindPos : pos;
    if (this.scopes.bind(scope, name, visibleFrom)) {
      const st = this.statements[this.stmt];
      // `if TYPE_CHECKING: from .boxes import Boxes`: TYPE_CHECKING is False at run time, nothing is bound.
      if (!s.deferred) (underTypeChecking(this.guard) ? st.typing : st.binds).add(name);
      else {
        let spans = st.rebinds.get(name);
        if (!spans) st.rebinds.set(name, (spans = []));
        // The `global X` lines of this scope are renamed with its bindings, once.
        const key = `${scope}\0${name}`;
        const decls = this.globalDecls.get(key);
        if (decls) {
          spans.push(...decls);
          this.globalDecls.delete(key);
        }
        if (end > pos) spans.push({ pos, end });
      }
    } else if (attribute && s.kind === 'class') {
      const cls = this.classByScope.get(scope);
      if (cls && !cls.attributes.includes(name)) cls.attributes.push(name);
    }
  }

  /** Binds the identifier under the cursor (`attribute`: counts as a class attribute when bound in a class body). */
  protected bindHere(scope: number, attribute = true): void {
    const { name, pos, end } = this.identifier();
    this.bindName(scope, name, pos, attribute, end);
  }

  /** `global X` (the identifier under the cursor) in `scope`. */
  protected declareGlobal(scope: number): void {
    const { name, pos, end } = this.identifier();
    this.scopes.declareGlobal(scope, name);
    if (!this.scopes.scopes[scope].deferred) return;
    // Kept until the scope rebinds X (bindName): a `global X` that only reads needs no rename to stay right.
    const key = `${scope}\0${name}`;
    const decls = this.globalDecls.get(key);
    if (decls) decls.push({ pos, end });
    else this.globalDecls.set(key, [{ pos, end }]);
  }

  /** A mutation of `root` when this code runs at import time. */
  protected mutation(scope: number, root: RawRef | null): void {
    if (root && !this.scopes.scopes[scope].deferred) this.mutations.push(root);
  }

  /** Visits the children of the node under the cursor with `fn`, leaving the cursor where it was. */
  protected eachChild(fn: (t: number) => void): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    do fn(c.nodeTypeId);
    while (c.gotoNextSibling());
    c.gotoParent();
  }
}
