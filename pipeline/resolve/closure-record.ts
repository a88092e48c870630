// The dependency closure of one block, as assemble reads it: the statements it needs, the bindings they provide,
// the namespaces standing in for module objects, and the keys that name each of them (closure.ts computes it).
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ImportFact } from '../parse/facts.ts';

/** Identity of one module-level binding the emitted file must provide. */
export type BindingKey = string;

/** A top-level statement of a module. */
export function stmtKey(mod: IndexedModule, stmt: number): string {
  return `${mod.sourceId}\0${mod.path}\0${stmt}`;
}

export interface IncludedStmt {
  key: string;
  mod: IndexedModule;
  stmt: number;
  /** Plain module-level import of external names only: emitted in the grouped import header. */
  headerImport: boolean;
  /**
   * A header import that can't be copied as it is: relative (`from .sub import X`, which means nothing outside
   * its package) or of the block's own package (`from pkg.sub import X`, a module missing from the index). It
   * is emitted as absolute imports of the names that are needed, and of nothing else.
   */
  rewriteImport: boolean;
  /**
   * Keys of statements/namespaces to emit before it: what it reads at import time, and the statements that read, at
   * import time, the binding of a name that it rebinds (docs/resolve.md, "Names bound several times").
   */
  eagerDeps: Set<string>;
  /** A dict literal read only with literal keys: the indices of its entries to emit (dict-use.ts). */
  keptEntries?: Set<number>;
  /**
   * Keys of statements/namespaces read by the code this statement defines (function and method bodies), when it
   * runs. A statement that calls this one's function at import time (a decorator, `X = f()`) needs them first.
   */
  lateDeps: Set<string>;
  /** Free name in this statement → the binding it reaches (for renaming on a clash). */
  refs: Map<string, BindingKey>;
  /**
   * Nested imports (function-local, or inside a module-level try/if) to rewrite: internal names become
   * assignments to the emitted definitions; with `absolute`, the external rest is imported from that absolute
   * module (a relative import means nothing in the emitted module); a star import of an internal module goes.
   */
  importRewrites: ImportRewrite[];
  /**
   * Free names read only by methods that never run from import, construction or forward (methods.ts), so not
   * followed, and those methods; unset when there are none. The emitted module says so next to the class.
   */
  unfollowed?: { names: string[]; methods: string[] };
  /**
   * A registration that came because these statements ask its registry for a name by string (registry-keys.ts):
   * nothing else may import its module, so a package module holding one of them imports it (package.ts).
   */
  askedBy?: Set<string>;
}

export interface ImportRewrite {
  imp: ImportFact;
  binds: { bound: string; binding: BindingKey }[];
  absolute?: string;
}

/**
 * A module object used through attributes (`helpers.f`), emitted as a namespace holding exactly those members; or
 * used as an object (`vars(helpers)`), holding every public member (docs/resolve.md, "Module objects").
 */
export interface NamespaceNode {
  key: BindingKey;
  /** Preferred emitted name: the alias the first reference used. */
  alias: string;
  /** Member name → binding key of a definition, or a nested namespace's key. */
  members: Map<string, BindingKey>;
  /** Every public member, because the module is used as an object (`vars(m)`, `getattr(m, name)`). */
  complete?: true;
}

export interface Binding {
  key: BindingKey;
  /** The name the binding has upstream. */
  name: string;
  /** Statement key that creates it (a def, an assignment, an import statement), or the namespace key. */
  by: string;
  kind: 'def' | 'external' | 'namespace';
  /** An external binding some reference reaches (a verbatim import statement also binds names nothing uses). */
  needed?: boolean;
}

export interface Closure {
  blockKey: BindingKey;
  /** Bindings of the extra roots (`computeClosure`'s `roots`), in order. */
  rootKeys: BindingKey[];
  stmts: Map<string, IncludedStmt>;
  namespaces: Map<BindingKey, NamespaceNode>;
  bindings: Map<BindingKey, Binding>;
  /** Top-level packages of external names reached (`torch`, `numpy`). */
  externals: Set<string>;
  /**
   * Dotted modules read through a plain `import X` of an outside package, by the statement holding that import:
   * `packaging.version.parse(v)` → `packaging.version` (submodules.ts; emitted as guarded imports).
   */
  submodules: Map<string, Set<string>>;
  diagnostics: Diagnostic[];
}

/** The binding a top-level statement gives `name`: a class, a def, an assignment... */
export function defKey(mod: IndexedModule, stmt: number, name: string): BindingKey {
  return `d\0${stmtKey(mod, stmt)}\0${name}`;
}

/** An outside name as the importing statement binds it: `from torch import nn as tnn` → (`torch.nn`, `tnn`). */
export function externalKey(qualified: string, bound: string): BindingKey {
  return `x\0${qualified}\0${bound}`;
}

/** A module object of a source, used through its attributes (`helpers.f`). */
export function namespaceKey(sourceId: string, module: string): BindingKey {
  return `n\0${sourceId}\0${module}`;
}
