// Match statements: capture patterns bind names, value and class patterns read them.
//   match cmd:
//       case Point(x=0, y=yy):   # reads Point, binds yy (x= is a keyword, not a name)
//       case Color.RED:          # reads Color
//       case [first, *rest]:     # binds first and rest
import { DefWalker } from './walk-defs.ts';
import { EXPR, K, T, X, type RawRef } from './walk-state.ts';

export abstract class MatchWalker extends DefWalker {
  /** `match s: case Point(x=0, y=yy) | [a, *rest] if a: ...` — capture patterns bind, value patterns read. */
  protected match(scope: number): void {
    this.eachChild((t) => {
      if (t === T.block) this.eachChild((ct) => ct === T.caseClause && this.caseClause(scope));
      else if (EXPR[t] !== X.Leaf) this.expr(scope, t);
    });
  }

  private caseClause(scope: number): void {
    this.eachChild((t) => {
      if (t === T.casePattern) this.pattern(scope);
      else if (t === T.ifClause) this.children(scope);
      else if (t === T.block) this.block(scope);
    });
  }

  private pattern(scope: number): void {
    this.enter(); // `case [[[[x]]]]:`, `case A(A(A(x))):`
    this.patternOf(scope);
    this.depth--;
  }

  private patternOf(scope: number): void {
    const c = this.c;
    const t = c.nodeTypeId;
    if (EXPR[t] === X.Leaf) return;
    if (t === T.identifier) return this.bindHere(scope);
    if (t === T.dottedName) {
      // `case x:` captures; `case Color.RED:` compares against a value (a read of Color).
      let parts = 0;
      this.eachChild((ct) => ct === T.identifier && parts++);
      if (parts === 1) return this.eachChild((ct) => ct === T.identifier && this.bindHere(scope));
      return this.dottedRead(scope);
    }
    if (t === T.classPattern) {
      // `case Point(x=0)`: Point is read, the sub-patterns may capture.
      let first = true;
      return this.eachChild((ct) => {
        if (first && ct === T.dottedName) {
          first = false;
          this.dottedRead(scope);
        } else this.pattern(scope);
      });
    }
    if (t === T.keywordPattern) {
      let first = true;
      return this.eachChild((ct) => {
        if (first && ct === T.identifier)
          first = false; // the keyword: `Point(x=...)`
        else this.pattern(scope);
      });
    }
    if (t === T.asPattern) return this.patternAs(scope);
    if (t === T.string || t === T.concatenatedString) return;
    this.eachChild(() => this.pattern(scope));
  }

  /** A dotted name in a pattern read as a value: `Color.RED` → Color with attrs ['RED']. */
  private dottedRead(scope: number): void {
    let root: RawRef | null = null;
    this.eachChild((t) => {
      if (t !== T.identifier) return;
      if (root === null) root = this.ref(scope);
      else this.addAttr(root, this.identifier().name);
    });
  }

  /** `case [x] as y`: the pattern, then the name after `as` binds. */
  private patternAs(scope: number): void {
    let after = false;
    this.eachChild((t) => {
      if (t === K.as) after = true;
      else if (after) this.target(scope, t);
      else this.pattern(scope);
    });
  }
}
