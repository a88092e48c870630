// The parse stage's output: plain, JSON-serializable facts about one Python module, computed from its text alone.
//
// Everything downstream (index, discover, resolve, assemble, spec, dedup) works on these records; nothing
// tree-sitter-shaped leaves the parse stage. Facts are stored in SQLite keyed by git blob SHA-1, so they must
// depend on the file's bytes only (never on its path, source or neighbours).

import type { Diagnostic, Span } from '../contract/diagnostics.ts';
// Parameter kinds and literal values are published as they are parsed: one definition, in the catalog contract
// (pipeline/contract/, the ground floor every stage and the site may import).
import type { LiteralValue } from '../contract/common.ts';
import type { ParamKind } from '../contract/vocabulary.ts';

export type { LiteralValue, ParamKind };

/**
 * Bump when extraction changes: the index reparses every blob whose facts carry an older version.
 * 2: `rebinds` (names bound through `global` in deferred code), NFKC names, `nesting-too-deep`.
 * 3: `dict` (entries of a module-level dict literal) and `key` (a name read with a literal key).
 * 4: `attrReads` (attribute names read) of statements and methods, each method's `body` span, `typeOnly`.
 * 5: `usage` (call sites and the values around them, for usage mining).
 * 6: `typing` (names bound only under `if TYPE_CHECKING:`, no longer in `binds`), `typeChecking` (those bodies).
 * 7: `usage` keeps `dict(...)` / `{...}` bound to a local or nested in a kept call (`**dict(model_args, **kwargs)`).
 * 8: `uses` of the names a function-local import binds; `getattr(m, 'f')` reads `m` with attrs ['f'].
 * 9: an `if TYPE_CHECKING:` whose `else:` installs a lazy module (`sys.modules[__name__] = ...`) binds at run time.
 * 10: a dict literal's name-like `strings`; `via`, the table a computed `getattr(m, TABLE[k])` takes its name from.
 */
export const PARSER_VERSION = 10;

export interface ModuleFacts {
  parserVersion: number;
  /** How the bytes were decoded: `utf-8`, a PEP 263 coding name, or `latin-1` (fallback, with a diagnostic). */
  encoding: string;
  /** Number of lines in the decoded text. */
  lineCount: number;
  /** Module-level statements in source order. Compound statements (if/try/with/for) are one statement each. */
  statements: TopStatement[];
  /** Every import statement in the file, module-level or nested in a function/class, in source order. */
  imports: ImportFact[];
  /** Every class definition (top-level and nested), in source order. */
  classes: ClassFact[];
  /** Module-level functions (`def`/`async def` at top level, possibly inside module-level if/try). */
  functions: FunctionFact[];
  /** `__all__` when assigned at module level; null when the module never assigns it. */
  all: AllFact | null;
  /** Syntax errors (tree-sitter ERROR/MISSING nodes), decoding notes, etc. Stage is `parse`, path unset. */
  diagnostics: Diagnostic[];
  /** Call sites and the values around them, for usage mining (`pipeline/parse/calls.ts`, docs/usage.md). */
  usage: UsageFacts;
}

export type StatementKind =
  | 'class'
  | 'function'
  | 'import'
  | 'assign'
  | 'if'
  | 'try'
  | 'with'
  | 'for'
  | 'while'
  | 'expression'
  | 'delete'
  | 'other';

/** One module-level statement. The unit that the assembler copies verbatim. */
export interface TopStatement {
  /** Position in `ModuleFacts.statements`. */
  index: number;
  kind: StatementKind;
  /** Covers decorators and the whole body. Byte offsets are into the UTF-8 encoding of the decoded text. */
  span: Span;
  /**
   * Module-level names this statement binds: class/def names, assignment targets (including tuple unpacking,
   * annotated/augmented assignment, for/with targets, walrus at module level), import aliases (for
   * `import a.b` the bound name is `a`), names bound anywhere inside a module-level if/try/with/for block,
   * and names a class body binds through `global` (it runs at import time). Names are as Python binds them
   * (NFKC: `class Ｂlock` binds `Block`). Not names bound only under `if TYPE_CHECKING:` (see `typing`).
   */
  binds: string[];
  /**
   * Module-level names bound only inside `if TYPE_CHECKING:`, which is False at run time: bound for type checkers,
   * never when the module runs. A name an `else:` branch binds too is in `binds` instead. Unset when none.
   *   if TYPE_CHECKING:
   *       from .boxes import Boxes     # typing: Boxes
   */
  typing?: string[];
  /**
   * Byte spans of the bodies of `if TYPE_CHECKING:` anywhere in the statement (a function's too): code that never
   * runs, so what it reads and imports is never needed. Unset when none.
   */
  typeChecking?: { startByte: number; endByte: number }[];
  /**
   * Module-level names that code run later (a function or method body defined here) rebinds through `global`,
   * with the spans of the `global` declaration and of each binding (renamed with the name on a clash). Not
   * import-time bindings: the module-level initialiser is what a reader finds (docs/resolve.md).
   *   def set_fast_norm(enable=True):
   *       global _USE_FAST_NORM; _USE_FAST_NORM = enable    # rebinds: _USE_FAST_NORM
   */
  rebinds: NameRef[];
  /**
   * Free module-level (global or builtin) names read when this statement itself executes at import time:
   * decorators, base classes and class keywords, default values and annotations of functions (unless
   * `from __future__ import annotations`), the whole class body except method bodies, right-hand sides,
   * if/try conditions and bodies, a comprehension's first iterable, etc.
   */
  eager: NameRef[];
  /**
   * Free module-level names read only later, when a function or method defined here runs: function bodies,
   * method bodies, lambda bodies. Class-scope skip applies: a method never sees class-level names.
   */
  deferred: NameRef[];
  /**
   * Names whose existing object this statement mutates without rebinding it, e.g. `REGISTRY['x'] = X`,
   * `REGISTRY.update(...)`, `__all__ += [...]`, `__all__.extend(...)`, `obj.attr = v`, `register(X)` at
   * module level is NOT a mutation (it's a call; see `sideEffect`).
   */
  mutates: string[];
  /** True for a statement that binds nothing and is not an import/def/class (a bare call, an assert, ...). */
  sideEffect: boolean;
  /**
   * True when the statement contains a syntax error (ERROR/MISSING node), or nests too deeply to be read (then
   * it binds and reads nothing); the assembler won't copy it silently.
   */
  hasError: boolean;
  /** Set when the statement is `NAME = {...}`, `NAME: T = {...}` or `NAME = dict(...)` with two or more entries. */
  dict?: DictFact;
  /**
   * Attribute names read by the statement's code outside method bodies: decorators, bases, class bodies, method
   * decorators and defaults, module-level function bodies. In a statement that defines a class, bare names too
   * (`run = _impl` in a class body makes method `_impl` callable). Unset when it reads none (and imports).
   */
  attrReads?: AttrReads;
}

/**
 * Attribute names some code reads (`x.name`, `self.name`, `super().name`, `getattr(x, 'name')`), and whether it also reads
 * attributes by a name computed at run time: `getattr(self, n)` ('self': the methods of its own class), or
 * `getattr(obj, n)`, `vars(cls)`, `methodcaller(n)`, `eval(s)` ('any'). See pipeline/parse/attr-reads.ts.
 */
export interface AttrReads {
  /** Read off anything but the method's first parameter and `super()`: `x.name`, `Cls.name`, `getattr(x, 'name')`. */
  names: string[];
  /** In a method, read off its first parameter (`self.norm(x)`): dispatched on the method's own class. */
  selfNames?: string[];
  /** Read off `super()` / `super(Cls, self)`: a definition in a base (or a sibling in a subclass's MRO). */
  superNames?: string[];
  /** Only probed with a literal `hasattr(x, 'name')`, which runs a property (a decorated method), calls no method. */
  probeNames?: string[];
  dynamic?: 'self' | 'any';
  /**
   * Dynamic reads off a named object (`getattr(handlers, n)`, `vars(Block)`): the dotted name and the byte
   * offset where it is read. The resolver looks it up: a module or an outside object holds no method of ours, a
   * class of ours its own methods, anything else (a local, a variable) every method.
   */
  dynamicOn?: { name: string; startByte: number }[];
}

/**
 * A module-level dict literal, entry by entry: a block that reads it only with literal keys (`ACTS['relu']`)
 * needs only those entries and what they read.
 *   ACTS = dict(relu=nn.ReLU, swish=Swish, **EXTRA)   # keys: 'relu', 'swish', null (`**EXTRA`: always kept)
 */
export interface DictFact {
  /** The name the statement binds. */
  name: string;
  /**
   * Entries in source order with their byte spans (an entry's text and the comma after it, if any). `key` is the
   * literal string key (`'relu': ...`, `relu=...`), or null for anything else (`**base`, a computed key).
   */
  entries: { key: string | null; startByte: number; endByte: number }[];
  /**
   * The string literals of the values that could name an attribute, plain or in a tuple or list (at most 64): what a
   * computed `getattr(module, TABLE[k][0])` may read off a module object (NameOccurrence.via).
   */
  strings?: string[];
}

/** A free name read by a statement, with every occurrence so that the assembler can rename it at exact bytes. */
export interface NameRef {
  name: string;
  occurrences: NameOccurrence[];
}

export interface NameOccurrence {
  startByte: number;
  endByte: number;
  /**
   * The attribute chain read off the name at this occurrence, outermost last, at most 4 long:
   * `helpers.f(x)` → ['f']; `torchvision.ops.boxes.nms` → ['ops', 'boxes', 'nms']; a bare `x` → []. A literal
   * `getattr(helpers, 'f')` or `hasattr(helpers, 'f')` reads the name as `helpers.f` does: ['f'].
   */
  attrs: string[];
  /** The literal key the name is read with here: `ACTS['relu']`, `ACTS.get('relu')` → 'relu'. */
  key?: string;
  /**
   * The table a computed attribute name is taken from: `getattr(auto_module, PLACEHOLDERS[p][0])` → 'PLACEHOLDERS'.
   * The attribute read is one of the table's strings (DictFact.strings), not any member of the module.
   */
  via?: string;
  /**
   * The name is used here only as a type, which makes no instance of it: in an annotation, as a class's base, as
   * `isinstance`/`issubclass`'s second argument, in an `except` clause. `isinstance(cfg, Config)` alone never
   * runs a method of Config (docs/resolve.md, "Methods").
   */
  typeOnly?: true;
}

export interface ImportedName {
  /** `import a.b.c` → 'a.b.c'; `from x import y` → 'y'. */
  name: string;
  /** The `as` alias, if any. */
  asname?: string;
  /** The name this binds in its scope: asname, else `y` for from-imports, else the first dotted part ('a'). */
  bound: string;
  /**
   * In an import nested in a function or class body: the reads of the bound name there (nested scopes included,
   * never another binding of the name in an inner scope), which say what a module object is used for. Unset when
   * none, and for module-level imports (their readers' free names say it).
   *   def f():
   *       import pkg.aggr as aggr
   *       return aggr.Sum, [aggr for aggr in vars(aggr)]   # uses: `aggr.Sum`, `vars(aggr)` (not the loop's aggr)
   */
  uses?: NameOccurrence[];
}

export interface ImportFact {
  kind: 'import' | 'from';
  /** For `from` imports: the module after the dots ('' for `from . import x`). For `import` it is ''. */
  module: string;
  /** Number of leading dots for relative `from` imports; 0 otherwise. */
  level: number;
  /** Imported names; empty for a star import. */
  names: ImportedName[];
  star: boolean;
  /** The import statement itself (for function-local imports, the nested statement, not its function). */
  span: Span;
  /** Index of the top-level statement that contains this import. */
  statementIndex: number;
  /** Where the names get bound: the module namespace, or a function/class body (function-local imports). */
  scope: 'module' | 'function' | 'class';
  /** Qualified name of the enclosing function/class for non-module scopes, e.g. 'Foo.forward'. */
  scopeQualname?: string;
  /**
   * Guard around the import: inside `try:` whose handlers catch ImportError/ModuleNotFoundError/Exception
   * ('try'), inside `if TYPE_CHECKING:` ('type-checking'), inside another `if` ('if'), or none.
   */
  guard?: 'try' | 'type-checking' | 'if';
  /** True for `from __future__ import ...`. */
  future: boolean;
}

export interface ParamFact {
  name: string;
  kind: ParamKind;
  /** Annotation source text, if any. */
  annotation?: string;
  /** Default value source text, if any. */
  default?: string;
  /** Set when `default` is a literal (negative numbers, -1.0, tuples of literals included); `undefined` otherwise. */
  defaultLiteral?: LiteralValue;
}

export interface FunctionFact {
  name: string;
  /** 'Foo.forward', 'helper', 'outer.<locals>.inner' (as Python's __qualname__). */
  qualname: string;
  span: Span;
  async: boolean;
  /** Decorator source texts without '@', in order. */
  decorators: string[];
  params: ParamFact[];
  /** Return annotation source text. */
  returns?: string;
  /**
   * The body only raises NotImplementedError (after an optional docstring / `pass` / `...`), or the function
   * is decorated with `abstractmethod` / `abc.abstractmethod`.
   */
  abstract: boolean;
  /** Index of the top-level statement that contains this definition. */
  statementIndex: number;
  /**
   * Set on methods (functions defined directly in the body of a class that is not inside a function): the byte
   * span of the body, which attributes each deferred read of the statement to the method making it, and the
   * attribute names the body reads. A method's body runs only when something reads its name (docs/resolve.md).
   */
  body?: { startByte: number; endByte: number };
  attrReads?: AttrReads;
}

export interface BaseFact {
  /** Source text of the base expression. */
  text: string;
  /**
   * Dotted name when the base is a name or attribute chain (`nn.Module` → 'nn.Module'); for a subscript
   * (`Generic[T]`) the dotted name of the subscripted value; null for anything else (a call, ...).
   */
  dotted: string | null;
}

export interface ClassFact {
  name: string;
  /** As Python's __qualname__: 'Outer.Inner', 'make.<locals>.Local'. */
  qualname: string;
  span: Span;
  /** Line of the `class` keyword (decorators may start earlier). */
  line: number;
  bases: BaseFact[];
  /** Class keywords other than bases, e.g. metaclass=ABCMeta. */
  keywords: { name: string; text: string }[];
  decorators: string[];
  /** Methods defined directly in the class body (including inside if/try in the body). */
  methods: FunctionFact[];
  /** Names assigned directly in the class body (class attributes), in order. */
  attributes: string[];
  /** True when the class is defined at module level (possibly inside module-level if/try), so importable. */
  topLevel: boolean;
  statementIndex: number;
}

export interface AllFact {
  /** Names from literal lists/tuples, `+=` and `.extend/.append` with literals, in order, de-duplicated. */
  names: string[];
  /** True when some part of `__all__` couldn't be read statically (computed, or extended from a variable). */
  dynamic: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Usage facts (pipeline/parse/calls.ts): where things are called and what flows into the calls, by name only.
// The usage index (pipeline/usage/) resolves the names across files; nothing here knows what a name refers to.

/**
 * How the first name of a dotted expression is bound where it is read (absent in a fact: `global`):
 *   global  a module-level or builtin name (`Bottleneck`, `nn.Conv2d`, `partial`)
 *   param   a parameter of the enclosing function (`block` in `def _make_layer(self, block, ...)`)
 *   self    the first parameter of a method (`self.layer1`)
 *   local   any other name bound in the enclosing function (`model = ResNet(...)`)
 */
export type NameHead = 'global' | 'param' | 'self' | 'local';

/**
 * What an argument, an assigned value or a returned value is, as far as the text says. Told apart by the key
 * present (these records are the bulk of the usage facts, so they are kept short):
 *   { lit: 64 }                          a literal (capped: strings of 200 characters, 64 items, 4 levels deep)
 *   { name: 'block', head: 'param' }     a name or attribute chain (NFKC, no spaces); no head: module-level
 *   { call: 3 }                          another recorded call, by index in `UsageFacts.calls` (`partial(...)`)
 *   { list: [{ name: 'A' }, { lit: 1 }] }  a list or tuple display of names and literals, not all literal
 *   { expr: 'planes * 2' }               anything else: its text, whitespace collapsed, at most 80 characters
 */
export type ValueFact =
  | { lit: LiteralValue }
  | { name: string; head?: Exclude<NameHead, 'global'> }
  | { call: number }
  | { list: ValueFact[] }
  | { expr: string };

/** An argument: its value, and `kw` for `f(kw=v)`, `star` for `*v` (1) or `**v` (2). */
export type ArgFact = ValueFact & { kw?: string; star?: 1 | 2 };

/**
 * A call whose callee is a name or attribute chain rooted at a module-level name, a parameter, a local name or
 * `self` (one attribute: `self.x(...)`), a name subscripted with a key (`BLOCKS['basic'](...)`), or a method's
 * `super().__init__(...)` (callee `super().__init__`, head self). A dict literal that configures
 * (`{'type': 'ResNet', 'depth': 50}`) or binds a name (`BLOCKS = {'basic': Basic}`, `model_args = {...}` in a
 * function) is recorded like a call of `dict` with its string keys as keywords; a `dict(...)` or `{...}` without a
 * `type` key only when bound to a name or inside another recorded call (`**dict(model_args, **kwargs)`). Left out: a call of a lowercase module-level name whose value
 * is dropped and whose arguments are all literals or text (`torch.manual_seed(0)`): nothing flows through it.
 *   self.layer1 = Bottleneck(64, 64, stride=1)   # callee Bottleneck, assign self.layer1
 */
export interface CallFact {
  /** Dotted callee as Python reads it: `Bottleneck`, `nn.Conv2d`, `self.layer1`, `block`, `BLOCKS`. */
  callee: string;
  /** How the callee's first name is bound; absent for a module-level or builtin name. */
  head?: Exclude<NameHead, 'global'>;
  /** For `BLOCKS['basic'](...)`: the literal key; null for a computed key (`BLOCKS[name](...)`). */
  key?: string | null;
  /** The enclosing function or class body, by index in `UsageFacts.scopes`. */
  scope: number;
  line: number;
  /** Positional and keyword arguments in source order (at most 64). */
  args: ArgFact[];
  /** The call's value is bound to a name (`model`) or an attribute of self (`self.layer1`). */
  assign?: string;
  /** The call's value is returned (`return _resnet(Bottleneck, ...)`). */
  returned?: true;
}

/**
 * A name (not a call) returned or bound in a function: what joins a builder to the call it returns and a block's
 * attribute to the parameter it is set from. Both branches of a conditional count, never its condition.
 *   return model                                  # kind return, value model (local)
 *   self.motion_encoder = motion_encoder          # kind assign, target self.motion_encoder, value (param)
 */
export interface LinkFact {
  kind: 'return' | 'assign';
  /** For `assign`: `self.x` or a local name. */
  target?: string;
  scope: number;
  line: number;
  value: ValueFact;
}

export interface UsageFacts {
  /** Qualnames of the scopes calls and links sit in (`ResNet._make_layer`, `resnet50`); the first is '' (module). */
  scopes: string[];
  /** In source order of the call's start; at most 20,000 per file. */
  calls: CallFact[];
  links: LinkFact[];
}
