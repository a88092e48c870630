// Function and class definitions: decorators, bases, keywords, parameters and defaults are read where the
// definition is written (at import time for a module-level class); bodies get their own scopes.
//   @register(CONFIG)            # eager: decorator
//   class Net(nn.Module):        # eager: base
//       act = nn.ReLU            # eager: class body
//       def forward(self, x=DEFAULT):   # eager: default
//           return helper(x)     # deferred: method body
import { pyName } from '../util/identifier.ts';
import type { ClassFact, FunctionFact } from './facts.ts';
import { literalValue } from './literals.ts';
import { ExprWalker } from './walk-expr.ts';
import { EXPR, K, MUTATORS, T, X } from './walk-state.ts';

/** `@abstractmethod` and its kin, as written (`abc.abstractmethod` too): Python's ABCMeta enforces them. */
export const ABSTRACT_DECORATOR = /^(?:abc\s*\.\s*)?abstract(?:method|property|classmethod|staticmethod)$/;
const RAISES_NOT_IMPLEMENTED = /^raise\s+(?:\(\s*)?NotImplementedError\b/;
// `nn.Module`, `Generic[T]` → dotted name of the (subscripted) value; anything else has none.
const DOTTED =
  /^\s*([\p{XID_Start}_][\p{XID_Continue}]*(?:\s*\.\s*[\p{XID_Start}_][\p{XID_Continue}]*)*)\s*(?:\[[\s\S]*\])?\s*$/u;

/** The dotted name as Python reads it (NFKC: `nn.Ｍodule` is `nn.Module`). */
export function dottedOf(text: string): string | null {
  const m = DOTTED.exec(text);
  return m ? pyName(m[1].replace(/\s+/g, '')) : null;
}

/** Every index of `needle` in `text`, ascending. */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Whether a sorted list has a value in [start, end). */
function anyWithin(sorted: number[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] < end;
}

export abstract class DefWalker extends ExprWalker {
  private nie: number[] | null = null;

  /** `@a` `@b.c(d)` then a def or class: decorators are read in the enclosing scope, in order. */
  protected decorated(scope: number): void {
    const c = this.c;
    const start = c.startIndex;
    const decorators: string[] = [];
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === T.decorator) {
        decorators.push(this.nodeText().slice(1).trim());
        c.gotoFirstChild();
        while (c.gotoNextSibling()) {
          const dt = c.nodeTypeId;
          const root = this.expr(scope, dt);
          const isAttr = dt === T.attribute;
          // `@MODELS.register` (no call) registers the class in MODELS at import time.
          if (isAttr && root !== null && MUTATORS.has(this.lastAttr)) this.mutation(scope, root);
        }
        c.gotoParent();
      } else if (t === T.functionDefinition) this.functionDef(scope, decorators, start);
      else if (t === T.classDefinition) this.classDef(scope, decorators, start);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  protected functionDef(scope: number, decorators: string[], decoratedStart: number): void {
    const c = this.c;
    const start = decoratedStart >= 0 ? decoratedStart : c.startIndex;
    const end = c.endIndex;
    const outer = this.scopes.scopes[scope];
    const fact: FunctionFact = {
      name: '',
      qualname: '',
      span: this.map.span(start, end),
      async: false,
      decorators,
      params: [],
      abstract: decorators.some((d) => ABSTRACT_DECORATOR.test(d)),
      statementIndex: this.stmt,
    };
    let fs = -1;
    const inner = (): number => (fs >= 0 ? fs : (fs = this.scopes.create('function', scope, fact.name)));
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === K.async) fact.async = true;
      else if (t === T.identifier && fs < 0) {
        fact.name = this.identifier().name;
        fact.qualname = outer.qualPrefix + fact.name;
        if (outer.kind === 'module') this.functions.push(fact);
        else if (outer.kind === 'class') this.classByScope.get(scope)?.methods.push(fact);
        // Bound once the def has run (`end`), listed before any name the body binds through `global`.
        this.bindName(scope, fact.name, end, false);
        inner();
      } else if (t === T.parameters) this.params(scope, inner(), fact.params);
      else if (t === T.type) fact.returns = this.annotation(scope, true);
      else if (t === T.block) {
        if (!fact.abstract) fact.abstract = this.raisesNotImplemented();
        // Imports in a body run when the function is called: not guarded by the try/if around the def.
        const saved = this.guard;
        this.guard = null;
        if (outer.kind === 'class') this.methodBodies.push({ fact, start: c.startIndex, end: c.endIndex });
        this.block(inner());
        this.guard = saved;
      }
      // type_parameters (PEP 695 `def f[T]`) declare names; they are not reads.
    } while (c.gotoNextSibling());
    c.gotoParent();
    for (const p of fact.params) if (p.default !== undefined) p.defaultLiteral = literalValue(p.default);
  }

  /** The body only raises NotImplementedError, after an optional docstring, `pass` or `...`. */
  private raisesNotImplemented(): boolean {
    const c = this.c;
    // Fast path: most bodies never mention NotImplementedError (positions found once per file).
    this.nie ??= occurrences(this.text, 'NotImplementedError');
    if (!this.nie.length || !anyWithin(this.nie, c.startIndex, c.endIndex)) return false;
    if (!c.gotoFirstChild()) return false;
    let raises = false;
    let other = false;
    do {
      const t = c.nodeTypeId;
      if (t === T.comment || t === T.passStatement) continue;
      if (t === T.expressionStatement) {
        c.gotoFirstChild();
        const inner = c.nodeTypeId;
        const more = c.gotoNextSibling();
        c.gotoParent();
        if (!more && (inner === T.string || inner === T.concatenatedString || inner === T.ellipsis)) continue;
      } else if (t === T.raiseStatement && RAISES_NOT_IMPLEMENTED.test(this.nodeText())) {
        raises = true;
        continue;
      }
      other = true;
    } while (!other && c.gotoNextSibling());
    c.gotoParent();
    return raises && !other;
  }

  protected classDef(scope: number, decorators: string[], decoratedStart: number): void {
    const c = this.c;
    const start = decoratedStart >= 0 ? decoratedStart : c.startIndex;
    const end = c.endIndex;
    const outer = this.scopes.scopes[scope];
    const fact: ClassFact = {
      name: '',
      qualname: '',
      span: this.map.span(start, end),
      line: this.map.line(c.startIndex),
      bases: [],
      keywords: [],
      decorators,
      methods: [],
      attributes: [],
      topLevel: outer.kind === 'module',
      statementIndex: this.stmt,
    };
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === T.identifier && fact.qualname === '') {
        fact.name = this.identifier().name;
        fact.qualname = outer.qualPrefix + fact.name;
        this.classes.push(fact);
        this.bindName(scope, fact.name, end, false);
      } else if (t === T.argumentList) this.bases(scope, fact);
      else if (t === T.block) {
        const cs = this.scopes.create('class', scope, fact.name);
        this.classByScope.set(cs, fact);
        const saved = this.bindPos;
        this.bindPos = -1;
        this.block(cs);
        this.bindPos = saved;
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** `(Base, nn.Module, metaclass=ABCMeta, *mixins, **kw)`, all read in the enclosing scope. */
  private bases(scope: number, fact: ClassFact): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    do {
      const t = c.nodeTypeId;
      if (EXPR[t] === X.Leaf) continue;
      const text = this.nodeText();
      if (t === T.keywordArgument) {
        c.gotoFirstChild();
        const name = this.identifier().name;
        let value = '';
        while (c.gotoNextSibling()) {
          const vt = c.nodeTypeId;
          if (vt === K.eq || vt === T.comment) continue;
          value = this.nodeText();
          this.expr(scope, vt);
        }
        c.gotoParent();
        fact.keywords.push({ name, text: value });
        continue;
      }
      if (t === T.dictSplat) fact.keywords.push({ name: '**', text: text.slice(2).trim() });
      else {
        fact.bases.push({ text, dotted: t === T.listSplat ? null : dottedOf(text) });
        // A base is used as a type: deriving from it makes no instance of it.
        if (fact.bases[fact.bases.length - 1].dotted !== null) this.typeRanges.push([c.startIndex, c.endIndex]);
      }
      this.expr(scope, t);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }
}
