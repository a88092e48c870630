// Statements: the module's top-level statements (one record each), compound statements, assignments, imports
// (with the scope and the try/if guard they sit in), global/nonlocal declarations and match statements.
import type { ImportFact, ImportedName, StatementKind } from './facts.ts';
import { MatchWalker } from './walk-match.ts';
import { ERROR_ID, namedId } from './grammar.ts';
import { assignmentSplit, scanExpression, skipSpace, targetShape, type ScannedRead } from './scan-expr.ts';
import { pyName } from '../util/identifier.ts';
import { EXPR, K, NestingTooDeep, T, X, type GuardFrame } from './walk-state.ts';

const enum S {
  Other = 0,
  Skip,
  Expression,
  Function,
  Class,
  Decorated,
  Import,
  From,
  Future,
  If,
  Try,
  Compound,
  Delete,
  Global,
  Nonlocal,
  Match,
  TypeAlias,
}

const STMT = new Uint8Array(0x10000);
const TOP_KIND = new Map<number, StatementKind>();
for (const [name, s, kind] of [
  ['expression_statement', S.Expression, 'expression'],
  ['function_definition', S.Function, 'function'],
  ['class_definition', S.Class, 'class'],
  ['decorated_definition', S.Decorated, 'other'],
  ['import_statement', S.Import, 'import'],
  ['import_from_statement', S.From, 'import'],
  ['future_import_statement', S.Future, 'import'],
  ['if_statement', S.If, 'if'],
  ['try_statement', S.Try, 'try'],
  ['for_statement', S.Compound, 'for'],
  ['while_statement', S.Compound, 'while'],
  ['with_statement', S.Compound, 'with'],
  ['delete_statement', S.Delete, 'delete'],
  ['global_statement', S.Global, 'other'],
  ['nonlocal_statement', S.Nonlocal, 'other'],
  ['match_statement', S.Match, 'other'],
  ['type_alias_statement', S.TypeAlias, 'other'],
  ['comment', S.Skip, 'other'],
] as const) {
  STMT[namedId(name)] = s;
  TOP_KIND.set(namedId(name), kind);
}
/** Clauses walked like their statement: `else:`, `finally:`, `elif c:`, `with a as b, c as d:`. */
const CLAUSE = new Uint8Array(0x10000);
for (const id of [T.elseClause, T.finallyClause, T.elifClause, T.withClause, T.withItem]) CLAUSE[id] = 1;

const CATCHES_IMPORT_ERROR = /\b(?:ImportError|ModuleNotFoundError|Exception|BaseException)\b/;
const TYPE_CHECKING = /^(?:[\w.]*\.)?TYPE_CHECKING$/;
/**
 * An `else:` that puts a lazy module in the package's place (`sys.modules[__name__] = _LazyModule(...)`, the
 * Hugging Face pattern): its `if TYPE_CHECKING:` imports are the names the package serves at run time.
 */
const LAZY_ELSE = /\belse\s*:[\s\S]*\bsys\.modules\s*\[\s*__name__\s*\]\s*=/;

export class ModuleWalker extends MatchWalker {
  /**
   * Walks the whole module: one statement record per top-level statement (comments are not statements). A
   * statement nested too deeply for the walker (`X = lambda: lambda: ...` 50,000 times) is recorded as binding
   * and reading nothing, flagged `tooDeep`; the statements after it are walked as usual.
   */
  module(): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    do {
      const t = c.nodeTypeId;
      if (STMT[t] === S.Skip) continue;
      this.stmt = this.statements.length;
      this.statements.push({
        kind: this.topKind(t),
        start: c.startIndex,
        end: c.endIndex,
        binds: new Set(),
        typing: new Set(),
        typingBodies: [],
        mutates: new Set(),
        rebinds: new Map(),
      });
      const mark = this.mark();
      try {
        this.statement(0, t);
      } catch (err) {
        // The stack running out before MAX_NESTING does (a thread with a smaller stack) ends the same way.
        const overflow = err instanceof RangeError && /call stack/i.test(err.message);
        if (!(err instanceof NestingTooDeep) && !overflow) throw err;
        this.rollback(mark);
        while (c.currentDepth > 1) c.gotoParent();
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** What the walk has recorded so far, to drop a statement's partial records when it is given up. */
  private mark() {
    return {
      refs: this.refs.length,
      mutations: this.mutations.length,
      imports: this.imports.length,
      classes: this.classes.length,
      functions: this.functions.length,
      allOps: this.allOps.length,
      methodBodies: this.methodBodies.length,
      guard: this.guard,
      bindPos: this.bindPos,
      inAnnotation: this.inAnnotation,
      futureAnnotations: this.futureAnnotations,
    };
  }

  private rollback(m: ReturnType<ModuleWalker['mark']>): void {
    this.refs.length = m.refs;
    this.mutations.length = m.mutations;
    this.imports.length = m.imports;
    this.classes.length = m.classes;
    this.functions.length = m.functions;
    this.allOps.length = m.allOps;
    this.methodBodies.length = m.methodBodies;
    this.guard = m.guard;
    this.bindPos = m.bindPos;
    this.inAnnotation = m.inAnnotation;
    this.futureAnnotations = m.futureAnnotations;
    this.depth = 0;
    const st = this.statements[this.stmt];
    st.binds.clear();
    st.typing.clear();
    st.typingBodies.length = 0;
    st.mutates.clear();
    st.rebinds.clear();
    st.tooDeep = true;
  }

  private topKind(t: number): StatementKind {
    const c = this.c;
    if (t === T.expressionStatement || t === T.decoratedDefinition) {
      // `x = 1` is an assignment; `@dec class A` is a class: look at the first / the defining child.
      let kind: StatementKind = t === T.expressionStatement ? 'expression' : 'other';
      c.gotoFirstChild();
      do {
        const ct = c.nodeTypeId;
        if (ct === T.assignment || ct === T.augmentedAssignment) kind = 'assign';
        else if (ct === T.functionDefinition) kind = 'function';
        else if (ct === T.classDefinition) kind = 'class';
      } while (t === T.decoratedDefinition && c.gotoNextSibling());
      c.gotoParent();
      return kind;
    }
    return TOP_KIND.get(t) ?? 'other';
  }

  block(scope: number): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    this.enter();
    do this.statement(scope, c.nodeTypeId);
    while (c.gotoNextSibling());
    c.gotoParent();
    this.depth--;
  }

  private statement(scope: number, t: number): void {
    switch (STMT[t]) {
      case S.Skip:
        return;
      case S.Expression:
        if (!this.simpleStatement(scope)) this.expressionStatement(scope);
        return;
      case S.Function:
        return this.functionDef(scope, [], -1);
      case S.Class:
        return this.classDef(scope, [], -1);
      case S.Decorated:
        return this.decorated(scope);
      case S.Import:
      case S.From:
      case S.Future:
        return this.importStatement(scope);
      case S.If:
        return this.ifStatement(scope);
      case S.Try:
        return this.tryStatement(scope);
      case S.Compound:
        return this.compound(scope);
      case S.Delete:
        return this.eachChild((ct) => EXPR[ct] !== X.Leaf && this.deleteTarget(scope, ct));
      case S.Global:
        return this.eachChild((ct) => ct === T.identifier && this.declareGlobal(scope));
      case S.Nonlocal:
        return this.eachChild(
          (ct) => ct === T.identifier && this.scopes.declareNonlocal(scope, this.identifier().name),
        );
      case S.Match:
        return this.match(scope);
      case S.TypeAlias: {
        // `type Alias = list[int]` binds Alias; its value is evaluated lazily, read here as a plain expression.
        let bound = false;
        return this.eachChild((ct) => {
          if (ct === T.type && !bound) {
            bound = true;
            this.eachChild((it) => it === T.identifier && this.bindHere(scope));
          } else this.expr(scope, ct);
        });
      }
      default:
        // return/raise/assert/print/pass/break...: every name in them is a read. ERROR nodes too, node by node.
        if (t === ERROR_ID || !this.c.gotoFirstChild()) return this.children(scope);
        do this.expr(scope, this.c.nodeTypeId);
        while (this.c.gotoNextSibling());
        this.c.gotoParent();
        return;
    }
  }

  private readonly lhs: ScannedRead[] = [];
  private readonly rhs: ScannedRead[] = [];

  /**
   * `x = f(y)`, `self.a = b`, `REG[k] = v`, `f(x)`: read from the statement's text when that is enough (two
   * native calls instead of one per node). Anything else (tuples, chains, annotations, lambdas...) returns false
   * with nothing recorded, and the statement is walked node by node.
   */
  private simpleStatement(scope: number): boolean {
    if (!this.textScan) return false;
    const c = this.c;
    const start = c.startIndex;
    const end = c.endIndex;
    const text = this.text;
    const eq = assignmentSplit(text, start, end);
    if (eq === -2) return false;
    const rhs = this.rhs;
    rhs.length = 0;
    if (!scanExpression(text, eq < 0 ? start : eq + 1, end, rhs)) return false;
    if (eq < 0) {
      this.commitScanned(scope, rhs);
      return true;
    }
    const shape = targetShape(text, start, eq);
    if (shape === null) return false;
    if (shape === 'name') {
      const pos = skipSpace(text, start, eq);
      const nameEnd = this.identEnd(pos);
      const name = pyName(text.slice(pos, nameEnd));
      if (name === '__all__') return false;
      const saved = this.bindPos;
      if (this.scopes.scopes[scope].kind === 'class') this.bindPos = end; // `class A: x = x` reads the module's x
      this.bindName(scope, name, pos, true, nameEnd);
      this.bindPos = saved;
    } else {
      const lhs = this.lhs;
      lhs.length = 0;
      if (!scanExpression(text, start, eq, lhs)) return false;
      this.mutation(scope, this.commitScanned(scope, lhs));
    }
    this.commitScanned(scope, rhs);
    return true;
  }

  private expressionStatement(scope: number): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    do {
      const t = c.nodeTypeId;
      if (t === T.assignment) this.assignment(scope, true);
      else if (t === T.augmentedAssignment) this.augmented(scope);
      else this.expr(scope, t);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /**
   * `x = v`, `x: T = v`, `x: T`, `a = b = v`, `a, *b = v`. An annotation alone binds nothing. In a class body
   * the name becomes visible after the right-hand side: `class A: x = x` reads the module's x.
   */
  private assignment(scope: number, outermost: boolean): void {
    const c = this.c;
    const saved = this.bindPos;
    if (outermost && this.scopes.scopes[scope].kind === 'class') this.bindPos = c.endIndex;
    c.gotoFirstChild();
    const lt = c.nodeTypeId;
    const left = lt === T.identifier ? this.identifier() : null;
    if (left === null) this.target(scope, lt);
    let expect = 0; // 1: annotation, 2: value
    let assigned = false;
    while (c.gotoNextSibling()) {
      const t = c.nodeTypeId;
      if (t === K.colon) expect = 1;
      else if (t === K.eq) {
        expect = 2;
        // Targets bind left to right (`a = b = c` binds a, then b); in a class body only after the value.
        if (left && !assigned) this.bindName(scope, left.name, left.pos, true, left.end);
        assigned = true;
      } else if (EXPR[t] === X.Leaf) continue;
      else if (expect === 1) this.annotation(scope, false);
      else if (t === T.assignment) this.assignment(scope, false);
      else {
        if (left?.name === '__all__' && scope === 0) this.allOps.push({ op: 'assign', text: this.nodeText() });
        this.expr(scope, t);
      }
    }
    c.gotoParent();
    this.bindPos = saved;
  }

  /** `x += v` reads and rebinds x (and mutates it in place when it's a list: `__all__ += [...]`). */
  private augmented(scope: number): void {
    const c = this.c;
    const saved = this.bindPos;
    if (this.scopes.scopes[scope].kind === 'class') this.bindPos = c.endIndex;
    c.gotoFirstChild();
    const lt = c.nodeTypeId;
    const isName = lt === T.identifier;
    const read = isName ? this.ref(scope) : null;
    const left = read ? { name: read.name, pos: read.pos, end: read.end } : null;
    if (!isName) this.target(scope, lt);
    while (c.gotoNextSibling()) {
      const t = c.nodeTypeId;
      if (EXPR[t] === X.Leaf) continue;
      if (left?.name === '__all__' && scope === 0) this.allOps.push({ op: 'extend', text: this.nodeText() });
      this.expr(scope, t);
    }
    c.gotoParent();
    if (left) {
      this.mutation(scope, read);
      this.bindName(scope, left.name, left.pos, true, left.end);
    }
    this.bindPos = saved;
  }

  /** for/while/with and their clauses: `for` targets and `as` targets bind, blocks are statements. */
  private compound(scope: number): void {
    let target = false;
    this.eachChild((t) => {
      if (t === K.for) target = true;
      else if (t === K.in) target = false;
      else if (t === T.block) this.block(scope);
      else if (CLAUSE[t]) this.compound(scope);
      else if (t === T.asPattern) this.asPattern(scope);
      else if (target) this.target(scope, t);
      else this.expr(scope, t);
    });
  }

  /** `open(p) as f`, `except E as e`: the value is read, what follows `as` binds. */
  private asPattern(scope: number): void {
    let after = false;
    this.eachChild((t) => {
      if (t === K.as) after = true;
      else if (after) this.target(scope, t);
      else this.expr(scope, t);
    });
  }

  private withGuard(kind: GuardFrame['kind'], fn: () => void, frame?: GuardFrame): void {
    const saved = this.guard;
    this.guard = frame ?? { kind, catches: false, parent: saved };
    fn();
    this.guard = saved;
  }

  /**
   * `if TYPE_CHECKING:` labels its imports 'type-checking' and its body is recorded (never runs); any other
   * if/elif/else labels them 'if'. So does an `if TYPE_CHECKING:` whose `else:` makes the package a lazy module:
   * transformers' `integrations/__init__.py` imports `GGUF_CONFIG_MAPPING` only there, and at run time the lazy
   * module serves it by that name from the same submodule (`from .integrations import GGUF_CONFIG_MAPPING` works).
   */
  private ifStatement(scope: number): void {
    let kind: GuardFrame['kind'] = 'if';
    const lazy = LAZY_ELSE.test(this.nodeText());
    this.eachChild((t) => {
      if (t === T.block && kind === 'type-checking')
        this.statements[this.stmt].typingBodies.push({ pos: this.c.startIndex, end: this.c.endIndex });
      if (t === T.block) this.withGuard(kind, () => this.block(scope));
      else if (t === T.elifClause || t === T.elseClause) this.withGuard('if', () => this.compound(scope));
      else if (EXPR[t] !== X.Leaf) {
        if (
          !lazy &&
          (t === T.identifier || t === T.attribute) &&
          TYPE_CHECKING.test(this.nodeText().replace(/\s+/g, ''))
        )
          kind = 'type-checking';
        this.expr(scope, t);
      }
    });
  }

  /** Imports in a try body or its handlers are 'try'-guarded when a handler catches ImportError (or wider). */
  private tryStatement(scope: number): void {
    const frame: GuardFrame = { kind: 'try', catches: false, parent: this.guard };
    this.eachChild((t) => {
      if (t === T.block) this.withGuard('try', () => this.block(scope), frame);
      else if (t === T.exceptClause || t === T.exceptGroupClause)
        this.withGuard('try', () => this.exceptClause(scope, frame), frame);
      else if (CLAUSE[t]) this.compound(scope);
    });
  }

  private exceptClause(scope: number, frame: GuardFrame): void {
    let caught = false;
    this.eachChild((t) => {
      if (EXPR[t] === X.Leaf) return;
      if (t === T.block) {
        if (!caught) frame.catches = true; // bare `except:`
        return this.block(scope);
      }
      caught = true;
      if (CATCHES_IMPORT_ERROR.test(this.nodeText())) frame.catches = true;
      if (t === T.asPattern) this.asPattern(scope);
      else this.expr(scope, t);
    });
  }

  /** `import a.b as c, d` / `from ..x import y as z, *` / `from __future__ import annotations`. */
  private importStatement(scope: number): void {
    const c = this.c;
    const t0 = c.nodeTypeId;
    const s = this.scopes.scopes[scope];
    const fact: ImportFact = {
      kind: STMT[t0] === S.Import ? 'import' : 'from',
      module: STMT[t0] === S.Future ? '__future__' : '',
      level: 0,
      names: [],
      star: false,
      span: this.map.span(c.startIndex, c.endIndex),
      statementIndex: this.stmt,
      scope: s.kind === 'module' ? 'module' : s.kind === 'class' ? 'class' : 'function',
      future: STMT[t0] === S.Future,
    };
    if (s.kind !== 'module') fact.scopeQualname = s.owner;
    let names = fact.kind === 'import' || fact.future;
    this.eachChild((t) => {
      if (t === K.import) names = true;
      else if (t === T.wildcardImport) fact.star = true;
      else if (!names && (t === T.dottedName || t === T.relativeImport)) {
        const text = this.nodeText().replace(/[\s\\]+/g, '');
        const dots = /^\.*/.exec(text)![0].length;
        fact.level = dots;
        fact.module = pyName(text.slice(dots));
      } else if (names && (t === T.dottedName || t === T.aliasedImport)) {
        const n = t === T.dottedName ? this.importedName(fact.kind) : this.aliasedName(fact.kind);
        fact.names.push(n);
        this.bindName(scope, n.bound, c.startIndex, true);
        if (fact.future && n.name === 'annotations' && scope === 0) this.futureAnnotations = true;
      }
    });
    this.imports.push({ fact, frame: this.guard, scope });
  }

  private importedName(kind: ImportFact['kind']): ImportedName {
    const name = pyName(this.nodeText().replace(/[\s\\]+/g, ''));
    // `import a.b.c` binds `a`; `from x import y` binds `y`.
    return { name, bound: kind === 'import' ? name.split('.')[0] : name };
  }

  private aliasedName(kind: ImportFact['kind']): ImportedName {
    let n: ImportedName = { name: '', bound: '' };
    let alias = false;
    this.eachChild((t) => {
      if (t === K.as) alias = true;
      else if (t === T.dottedName && !alias) n = this.importedName(kind);
      else if (t === T.identifier && alias) {
        n.asname = this.identifier().name;
        n.bound = n.asname;
      }
    });
    return n;
  }
}
