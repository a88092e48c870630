// Python scopes as a flat table with numeric ids (pyright's binder, ruff's semantic model), and name lookup.
//
// The class-scope skip is decided when a scope is created: anything nested in a class body gets the nearest
// non-class scope as its lookup parent, so lookup is just "walk up the parents".
//   class A:
//       n = 1
//       def f(self): return n      # `n` is the module's n, not A.n
//       xs = [n for _ in range(n)]  # the first `range(n)` sees A.n; the element `n` does not

export type ScopeKind = 'module' | 'class' | 'function' | 'lambda' | 'comprehension';

export interface Scope {
  id: number;
  kind: ScopeKind;
  /** Lookup parent: the nearest enclosing non-class scope for scopes nested in a class; -1 for the module. */
  parent: number;
  /** The scope this one is written in (may be a class). */
  lexical: number;
  /** Code here runs after import: somewhere inside a function or lambda body. */
  deferred: boolean;
  /** Names bound in this scope → UTF-16 position from which the binding exists (the first one). */
  locals: Map<string, number>;
  /** Names declared `global` here (`global X` makes every X in this scope the module's X). */
  globals: Set<string> | null;
  /** Names declared `nonlocal` here: bound in an enclosing function, never local, never free. */
  nonlocals: Set<string> | null;
  /** Qualname prefix for definitions directly inside: '', 'A.', 'f.<locals>.'. */
  qualPrefix: string;
  /** The class or function qualname this scope belongs to ('' for the module, lambdas and comprehensions keep their owner's). */
  owner: string;
}

/** What a read of a name refers to. */
export type Lookup =
  /** A module-level or builtin name: a free reference of the statement. */
  | { kind: 'module' }
  /** Bound in an enclosing function, class body, lambda or comprehension (or declared nonlocal there). */
  | { kind: 'local'; scope: number };

const MODULE: Lookup = { kind: 'module' };

export class ScopeTable {
  readonly scopes: Scope[] = [];

  constructor() {
    this.scopes.push({
      id: 0,
      kind: 'module',
      parent: -1,
      lexical: -1,
      deferred: false,
      locals: new Map(),
      globals: null,
      nonlocals: null,
      qualPrefix: '',
      owner: '',
    });
  }

  /** Creates a scope written inside `lexical`; `name` is the def/class name (ignored for lambdas and comprehensions). */
  create(kind: ScopeKind, lexical: number, name = ''): number {
    const outer = this.scopes[lexical];
    // Class-scope skip: `class A: x = 1; def f(self): x` — f's body looks past A straight to A's parent.
    const parent = outer.kind === 'class' ? outer.parent : lexical;
    const deferred = outer.deferred || kind === 'function' || kind === 'lambda';
    let qualPrefix = outer.qualPrefix;
    let owner = outer.owner;
    if (kind === 'class') {
      owner = outer.qualPrefix + name;
      qualPrefix = owner + '.';
    } else if (kind === 'function') {
      owner = outer.qualPrefix + name;
      qualPrefix = owner + '.<locals>.';
    } else if (kind === 'lambda') {
      qualPrefix = outer.qualPrefix + '<lambda>.<locals>.';
    }
    const id = this.scopes.length;
    this.scopes.push({
      id,
      kind,
      parent,
      lexical,
      deferred,
      locals: new Map(),
      globals: null,
      nonlocals: null,
      qualPrefix,
      owner,
    });
    return id;
  }

  declareGlobal(scope: number, name: string): void {
    const s = this.scopes[scope];
    (s.globals ??= new Set()).add(name);
  }

  declareNonlocal(scope: number, name: string): void {
    const s = this.scopes[scope];
    (s.nonlocals ??= new Set()).add(name);
  }

  /**
   * Records that `name` is bound in `scope` from position `pos` on. Returns true when the binding lands in the
   * module namespace: in the module scope itself, or through `global name` in a function or class body. The
   * caller tells import time from later by the scope's `deferred` (docs/resolve.md, "global and nonlocal"):
   *   def setup():
   *       global CACHE; CACHE = {}   # the module's CACHE, when setup() runs: a rebinding, not an initialiser
   */
  bind(scope: number, name: string, pos: number): boolean {
    const s = this.scopes[scope];
    if (s.kind === 'module') return true;
    if (s.globals?.has(name)) return true;
    if (s.nonlocals?.has(name)) return false;
    if (!s.locals.has(name)) s.locals.set(name, pos);
    return false;
  }

  /** The scope a walrus target binds in: the nearest enclosing non-comprehension scope. `[y := f(x) for x in xs]` */
  walrusTarget(scope: number): number {
    let s = this.scopes[scope];
    while (s.kind === 'comprehension') s = this.scopes[s.lexical];
    return s.id;
  }

  /**
   * Resolves a read of `name` at `pos` in `scope`. Call only after the whole module is bound: a function's locals
   * are every name it binds anywhere, before or after the read.
   *   def f():
   *       print(x)   # local x (UnboundLocalError at run time), not the module's x
   *       x = 1
   * Class bodies are the exception: they look names up at run time, so only a binding earlier in the body counts.
   *   class A:
   *       x = x      # reads the module's x
   */
  lookup(scope: number, name: string, pos: number): Lookup {
    let s = this.scopes[scope];
    if (s.kind === 'class') {
      if (s.globals?.has(name)) return MODULE;
      const at = s.locals.get(name);
      if (at !== undefined && at <= pos) return { kind: 'local', scope: s.id };
      if (s.parent < 0) return MODULE;
      s = this.scopes[s.parent];
    }
    for (;;) {
      if (s.kind === 'module') return MODULE;
      if (s.globals?.has(name)) return MODULE;
      if (s.nonlocals?.has(name) || s.locals.has(name)) return { kind: 'local', scope: s.id };
      s = this.scopes[s.parent];
    }
  }
}
