// Expressions and binding targets: records reads with their scope and attribute chains, creates lambda and
// comprehension scopes, and binds assignment/loop/walrus targets.
import { pyName } from '../util/identifier.ts';
import type { ParamFact, ParamKind } from './facts.ts';
import { callsInTarget, scanExpression, type ScannedRead } from './scan-expr.ts';
import { EXPR, K, MUTATORS, NO_ATTRS, T, WalkState, X, type RawRef } from './walk-state.ts';

/** Node types whose children are all binding targets: `a, (b, *c) = ...`, `for [x, y] in ...`, `with f() as (g, h)`. */
const TARGET_GROUP = new Uint8Array(0x10000);
for (const id of [
  T.patternList,
  T.tuplePattern,
  T.listPattern,
  T.tuple,
  T.list,
  T.parenthesized,
  T.listSplatPattern,
  T.listSplat,
  T.asPatternTarget,
  T.expressionList,
])
  TARGET_GROUP[id] = 1;

export abstract class ExprWalker extends WalkState {
  /** Name of the outermost attribute read by the last `attribute()` call, when it was rooted at a name. */
  protected lastAttr = '';
  private readonly scanned: ScannedRead[] = [];

  /** Walks the expression under the cursor (type id `t` if already read); returns the read it is rooted at for a name or attribute chain. */
  expr(scope: number, t: number = this.c.nodeTypeId): RawRef | null {
    const kind = EXPR[t];
    if (kind === X.Leaf) return null;
    if (kind === X.Name) return this.ref(scope);
    // Everything below may come back here for a nested expression: `lambda: lambda: ...`, `a.b.c...(f)`.
    this.enter();
    let root: RawRef | null = null;
    if (kind === X.Attribute) root = this.attribute(scope);
    else if (kind === X.Generic) {
      if (!this.scan(scope)) this.children(scope);
    } else if (kind === X.Call) {
      if (!this.scan(scope)) this.call(scope);
    } else if (kind === X.Tree) this.children(scope);
    else this.special(kind, scope);
    this.depth--;
    return root;
  }

  /** Reads a plain expression from its text (see scan-expr.ts); false when it needs the node walk instead. */
  private scan(scope: number): boolean {
    if (!this.textScan) return false;
    const c = this.c;
    const out = this.scanned;
    out.length = 0;
    if (!scanExpression(this.text, c.startIndex, c.endIndex, out)) return false;
    this.commitScanned(scope, out);
    return true;
  }

  /** Records scanned reads as reads of `scope`; returns the first (the root of a target like `REG[k]`). */
  protected commitScanned(scope: number, reads: ScannedRead[]): RawRef | null {
    const deferred = this.scopes.scopes[scope].deferred || (this.inAnnotation && this.futureAnnotations);
    let first: RawRef | null = null;
    for (const r of reads) {
      for (let i = 0; i < r.attrs.length; i++) r.attrs[i] = pyName(r.attrs[i]);
      const ref: RawRef = {
        name: pyName(r.name),
        scope,
        pos: r.pos,
        end: r.end,
        attrs: r.attrs.length ? r.attrs : NO_ATTRS,
        stmt: this.stmt,
        deferred,
      };
      first ??= ref;
      this.refs.push(ref);
      if (r.called && MUTATORS.has(r.last)) this.mutation(scope, ref);
    }
    return first;
  }

  private special(kind: number, scope: number): void {
    switch (kind) {
      case X.Name:
        this.ref(scope);
        return;
      case X.Attribute:
        this.attribute(scope);
        return;
      case X.Call:
        return this.call(scope);
      case X.Str:
        return this.str(scope);
      case X.Lambda:
        return this.lambda(scope);
      case X.Comprehension:
        return this.comprehension(scope);
      case X.Walrus:
        return this.walrus(scope);
      case X.KeywordArgument:
        return this.keywordArgument(scope);
    }
  }

  /**
   * Walks all descendants of the node under the cursor. Plain nodes (operators, literals, subscripts...) are
   * walked iteratively so that a generated `x = 1 + 2 + ... + 5000` can't overflow the stack.
   */
  children(scope: number): void {
    const c = this.c;
    if (!c.gotoFirstChild()) return;
    let depth = 1;
    for (;;) {
      const kind = EXPR[c.nodeTypeId];
      if (kind === X.Generic || kind === X.Tree) {
        if (c.gotoFirstChild()) {
          depth++;
          continue;
        }
      } else if (kind !== X.Leaf) this.special(kind, scope);
      while (!c.gotoNextSibling()) {
        c.gotoParent();
        if (--depth === 0) return;
      }
    }
  }

  /**
   * `helpers.f.g` → a read of `helpers` with attrs ['f', 'g'] (at most 4). The attribute name is read off the
   * text before the node's end, so the '.' and name children are never visited (6 native calls saved).
   */
  protected attribute(scope: number): RawRef | null {
    const c = this.c;
    const end = c.endIndex;
    c.gotoFirstChild();
    const root = this.expr(scope);
    c.gotoParent();
    if (root === null) {
      this.lastAttr = '';
      return null;
    }
    const text = this.text;
    let i = end;
    for (;;) {
      const ch = text.charCodeAt(i - 1);
      if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95) i--;
      else if (ch >= 0x80) return this.attributeSlow(root);
      else break;
    }
    this.lastAttr = text.slice(i, end);
    this.addAttr(root, this.lastAttr);
    return root;
  }

  /** A non-ASCII attribute name (`obj.σ`): find the name child and ask the cursor for its span. */
  private attributeSlow(root: RawRef): RawRef {
    const c = this.c;
    this.lastAttr = '';
    c.gotoFirstChild();
    while (c.gotoNextSibling())
      if (c.nodeTypeId === T.identifier) this.lastAttr = pyName(this.text.slice(c.startIndex, c.endIndex));
    c.gotoParent();
    if (this.lastAttr !== '') this.addAttr(root, this.lastAttr);
    return root;
  }

  /** A call; `REGISTRY.update(...)` at import time mutates REGISTRY, `__all__.extend([...])` extends `__all__`. */
  protected call(scope: number): void {
    const c = this.c;
    c.gotoFirstChild();
    const ft = c.nodeTypeId;
    const isAttr = ft === T.attribute;
    const root = this.expr(scope, ft);
    const method = isAttr && root !== null ? this.lastAttr : '';
    if (method !== '' && MUTATORS.has(method)) this.mutation(scope, root);
    while (c.gotoNextSibling()) {
      if (
        scope === 0 &&
        root !== null &&
        root.name === '__all__' &&
        root.attrs.length === 1 &&
        (method === 'extend' || method === 'append')
      ) {
        this.allOps.push({ op: method, text: this.nodeText().slice(1, -1) });
      }
      this.expr(scope);
    }
    c.gotoParent();
  }

  /** Plain strings hold no names; only f-strings are walked (`f"{x!r}"` reads x). */
  protected str(scope: number): void {
    const text = this.text;
    for (let i = this.c.startIndex; ; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 102 || ch === 70) {
        // f / F prefix. Nested f-strings (`f"{f"{x}"}"`) recurse here without passing through expr().
        this.enter();
        this.children(scope);
        this.depth--;
        return;
      }
      if (!((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90))) return;
    }
  }

  /** `f(x, key=k)`: the keyword is not a read. */
  protected keywordArgument(scope: number): void {
    const c = this.c;
    c.gotoFirstChild();
    while (c.gotoNextSibling()) this.expr(scope);
    c.gotoParent();
  }

  /** `lambda q, s=D: q + s` — D is read where the lambda is written; the body runs later in the lambda's scope. */
  protected lambda(scope: number): void {
    const c = this.c;
    const ls = this.scopes.create('lambda', scope);
    c.gotoFirstChild();
    while (c.gotoNextSibling()) {
      const t = c.nodeTypeId;
      if (t === T.lambdaParameters) this.params(scope, ls, null);
      else this.expr(ls, t);
    }
    c.gotoParent();
  }

  /**
   * Comprehensions get their own scope, but the first iterable is evaluated in the enclosing one:
   *   class A: n = 3; sq = [i * i for i in range(n)]   # range(n) sees A.n
   */
  protected comprehension(scope: number): void {
    const c = this.c;
    const cs = this.scopes.create('comprehension', scope);
    let first = true;
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === T.forIn) {
        this.forIn(first ? scope : cs, cs);
        first = false;
      } else if (t === T.ifClause) this.children(cs);
      else this.expr(cs, t);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** `for x, y in it`: targets bind in the comprehension scope, the iterable is read in `iterScope`. */
  private forIn(iterScope: number, cs: number): void {
    const c = this.c;
    let afterIn = false;
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === K.in) afterIn = true;
      else if (afterIn) this.expr(iterScope, t);
      else this.target(cs, t);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** `(y := f(x))` binds y in the nearest enclosing function or module, even from inside a comprehension. */
  protected walrus(scope: number): void {
    const c = this.c;
    c.gotoFirstChild();
    const name = c.nodeTypeId === T.identifier ? this.identifier() : null;
    while (c.gotoNextSibling()) this.expr(scope);
    c.gotoParent();
    if (name) this.bindName(this.scopes.walrusTarget(scope), name.name, name.pos, true, name.end);
  }

  /** An annotation: read at definition time, unless `from __future__ import annotations` defers it. */
  protected annotation(scope: number, wantText: boolean): string | undefined {
    const text = wantText ? this.nodeText() : undefined;
    this.typeRanges.push([this.c.startIndex, this.c.endIndex]);
    const saved = this.inAnnotation;
    this.inAnnotation = true;
    this.expr(scope);
    this.inAnnotation = saved;
    return text;
  }

  /** Binding targets of assignments, `for`, `with ... as`, `except ... as`, comprehension `for`. */
  target(scope: number, t: number = this.c.nodeTypeId): void {
    const c = this.c;
    if (t === T.identifier) return this.bindHere(scope);
    if (t === T.attribute || t === T.subscript) {
      // `obj.attr = v`, `REGISTRY[key] = v`, `CFG['a']['b'] = v` read and mutate the name the target starts with;
      // `f(x).y = v` mutates what f returned, not f.
      const start = c.startIndex;
      const end = c.endIndex;
      const before = this.refs.length;
      if (t === T.attribute) this.attribute(scope);
      else this.children(scope);
      const root = this.refs[before];
      if (root && root.pos === start && !callsInTarget(this.text, start, end)) this.mutation(scope, root);
      return;
    }
    if (TARGET_GROUP[t]) {
      if (c.gotoFirstChild()) {
        this.enter(); // `((((a,),),),) = v`
        do this.target(scope);
        while (c.gotoNextSibling());
        c.gotoParent();
        this.depth--;
      }
      return;
    }
    this.expr(scope, t);
  }

  /** `del x` makes x local to a function; `del REGISTRY[k]` mutates REGISTRY; a module-level `del x` binds nothing. */
  protected deleteTarget(scope: number, t: number = this.c.nodeTypeId): void {
    const c = this.c;
    if (t === T.identifier) {
      const kind = this.scopes.scopes[scope].kind;
      if (kind === 'function' || kind === 'lambda') {
        const { name, pos } = this.identifier();
        this.scopes.bind(scope, name, pos);
      } else this.ref(scope);
      return;
    }
    if (t === T.expressionList || TARGET_GROUP[t]) {
      if (c.gotoFirstChild()) {
        this.enter();
        do this.deleteTarget(scope);
        while (c.gotoNextSibling());
        c.gotoParent();
        this.depth--;
      }
      return;
    }
    this.target(scope, t);
  }

  /**
   * Parameters of a def or lambda: defaults and annotations are read in `outer` (where the def is written, so
   * at import time for a method), names bind in `inner`. `facts` collects them for a def.
   */
  params(outer: number, inner: number, facts: ParamFact[] | null): void {
    const c = this.c;
    let kwOnly = false;
    if (!c.gotoFirstChild()) return;
    do {
      const t = c.nodeTypeId;
      if (t === T.identifier) this.param(inner, facts, kwOnly ? 'keyword-only' : 'positional');
      else if (t === T.defaultParameter || t === T.typedDefaultParameter || t === T.typedParameter) {
        const p = this.complexParam(outer, inner, facts !== null, kwOnly);
        if (p) {
          facts?.push(p);
          if (p.kind === 'var-positional') kwOnly = true;
        }
      } else if (t === T.listSplatPattern) {
        kwOnly = true;
        this.splatParam(inner, facts, 'var-positional');
      } else if (t === T.dictSplatPattern) this.splatParam(inner, facts, 'var-keyword');
      else if (t === T.keywordSeparator) kwOnly = true;
      else if (t === T.positionalSeparator) {
        if (facts) for (const p of facts) if (p.kind === 'positional') p.kind = 'positional-only';
      } else if (t === T.tuplePattern) this.target(inner, t); // Python 2: def f((a, b)):
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  private param(inner: number, facts: ParamFact[] | null, kind: ParamKind): string {
    const { name, pos } = this.identifier();
    this.bindName(inner, name, pos, false);
    facts?.push({ name, kind });
    return name;
  }

  private splatParam(inner: number, facts: ParamFact[] | null, kind: ParamKind): void {
    const c = this.c;
    c.gotoFirstChild();
    do if (c.nodeTypeId === T.identifier) this.param(inner, facts, kind);
    while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** `b: int = -1`, `d=(1, 'x')`, `*args: int`. */
  private complexParam(outer: number, inner: number, wantText: boolean, kwOnly: boolean): ParamFact | null {
    const c = this.c;
    const p: ParamFact = { name: '', kind: kwOnly ? 'keyword-only' : 'positional' };
    let expect = 0; // 0: name, 1: annotation, 2: default
    c.gotoFirstChild();
    do {
      const t = c.nodeTypeId;
      if (t === K.colon) expect = 1;
      else if (t === K.eq) expect = 2;
      else if (t === T.comment) continue;
      else if (expect === 0) {
        if (t === T.identifier) p.name = this.param(inner, null, p.kind);
        else if (t === T.listSplatPattern || t === T.dictSplatPattern) {
          p.kind = t === T.listSplatPattern ? 'var-positional' : 'var-keyword';
          const sink: ParamFact[] = [];
          this.splatParam(inner, sink, p.kind);
          p.name = sink[0]?.name ?? '';
        }
      } else if (expect === 1) p.annotation = this.annotation(outer, wantText);
      else {
        if (wantText) p.default = this.nodeText();
        this.expr(outer, t);
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    return p.name === '' ? null : p;
  }
}
