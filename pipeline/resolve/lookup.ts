// Name lookup across modules with Python's import rules: follows aliases, relative imports, package re-exports,
// star imports (honouring __all__) and attribute chains on module objects, to a definition or an external name.
// A name bound only under `if TYPE_CHECKING:` is no run-time binding: it is told apart, for annotations.
// Lookup never throws: it returns a small result union, like ruff's semantic model.
import type { IndexedModule } from '../index/types.ts';
import type { ImportFact } from '../parse/facts.ts';
import { BUILTINS, MODULE_DUNDERS } from './builtins.ts';
import type { Program } from './program.ts';
import { typeCheckingOnly } from './type-checking.ts';

export type Target =
  /** A top-level statement of an indexed module binds the name (class, def, assignment, compound statement...). */
  | { kind: 'def'; mod: IndexedModule; stmt: number; name: string }
  /** A module object of an indexed source: `from . import helpers`, `import torchvision.ops as ops`. */
  | { kind: 'module'; sourceId: string; module: string }
  /** Not in any source: `torch.nn.Module`, `numpy`. `via` is the binding statement that imports it. */
  | {
      kind: 'external';
      qualified: string;
      via?: { mod: IndexedModule; stmt: number; name: string };
      confidence: 'import' | 'star';
    }
  /**
   * Bound only for type checkers, by statement `stmt` of `mod` (an `if TYPE_CHECKING:`): never at run time. What
   * an annotation may name; code that runs would raise NameError upstream too.
   */
  | { kind: 'typing'; mod: IndexedModule; stmt: number; name: string }
  | { kind: 'builtin'; name: string }
  | { kind: 'unresolved'; name: string; reason: string };

const MAX_DEPTH = 64;

/** Which sources a closure's names may resolve into (docs/resolve.md, "Across sources"). */
export interface Reach {
  /** Only this source: another source's modules stay imports (a source with `resolveAcross: false`). */
  only?: string;
  /**
   * Top-level packages never taken from a source other than the importing module's own: the runtime (`torch`) and
   * the standard library. `import torch` in mmcv stays an import even when a source of the corpus provides torch.
   */
  opaque?: ReadonlySet<string>;
}

export class Lookup {
  private readonly cache = new Map<string, Target>();
  /** The modules (`sourceId\0path`) each cached answer read: a cached answer still counts them as read. */
  private readonly cacheReads = new Map<string, Set<string>>();
  /** One set per answer being computed, innermost last; `tracking` adds an outermost one. */
  private readonly reading: Set<string>[] = [];
  private readonly reach?: Reach;

  /**
   * Closures pass a `reach` (a source id is `{ only: id }`); discovery passes none and crosses every source as is.
   */
  constructor(
    readonly program: Program,
    reach?: string | Reach,
  ) {
    this.reach = typeof reach === 'string' ? { only: reach } : reach;
  }

  /** The source providing module `name` as seen from `fromSource`, or undefined when it is external. */
  sourceOf(name: string, fromSource: string): string | undefined {
    const src = this.program.sourceOfModule(name, fromSource);
    if (!src || !this.reach) return src;
    if (this.reach.only !== undefined) return src === this.reach.only ? src : undefined;
    const top = name.split('.')[0];
    // A source that is the runtime itself (the paper's torch/nn/modules) imports the rest of it, as every validation
    // has it: `from .module import Module` in torch's activation.py stays an import, never a 23 MB closure of torch.
    if (src === fromSource) return this.reach.opaque?.has(top) ? undefined : src;
    // Python finds a regular package once on sys.path: when the importing source has `utils` itself, `utils.x`
    // is its own module or missing, never another source's. `from utils.extra import f` in yolov5 → not yolov7's.
    if (this.reach.opaque?.has(top) || this.program.sourceOfModule(top, fromSource) === fromSource) return undefined;
    return src;
  }

  /** What `name` means at module level in `mod`, after the module has run. */
  name(mod: IndexedModule, name: string): Target {
    return this.nameIn(mod, name, new Set(), 0);
  }

  /**
   * What `name` means to top-level statement `stmt` of `mod` when it runs, at import time: the binding before it
   * when the module binds the name again from there on (`bindingBefore`), else what it means after the module ran.
   *   cfgs = {'a': {...}}                          # what the statement below reads
   *   _quick = [n for n, c in cfgs.items() if c.get('notes')]
   *   cfgs = generate_default_cfgs(cfgs)           # what a function body reads (`name`)
   * A name nothing binds before `stmt` stays `name`'s (upstream reads a builtin or a star import there, or fails).
   */
  nameAt(mod: IndexedModule, name: string, stmt: number): Target {
    if (!this.program.bindersFrom(mod, name, stmt).length) return this.name(mod, name);
    const before = this.program.bindingBefore(mod, name, stmt);
    if (before < 0) return this.name(mod, name);
    this.noteRead([`${mod.sourceId}\0${mod.path}`]);
    return this.bound(mod, before, name, new Set([this.key(mod, name)]), 0);
  }

  /** `nn.Module`, `torchvision.ops.boxes.nms`: the head name, then each attribute through module objects. */
  dotted(mod: IndexedModule, dotted: string): Target {
    const [head, ...attrs] = dotted.split('.');
    return this.attrs(this.name(mod, head), attrs, mod.sourceId);
  }

  /** Follows attributes off a target: through module objects to definitions or submodules; external names grow. */
  attrs(target: Target, attrs: string[], fromSource: string): Target {
    let t = target;
    for (const a of attrs) {
      if (t.kind === 'external') t = { ...t, qualified: `${t.qualified}.${a}` };
      else if (t.kind === 'module') t = this.memberOf(t.sourceId, t.module, a, fromSource, new Set(), 0);
      else return t; // an attribute of a class or value: the definition itself is what is needed
    }
    return t;
  }

  private key(mod: IndexedModule, name: string): string {
    return `${mod.sourceId}\0${mod.path}\0${name}`;
  }

  /**
   * Runs `fn` and says which modules its lookups read: their text decides the answers, so an assembled module
   * that used them can be reused while none of them changed (pipeline/assemble/cache.ts).
   */
  tracking<T>(fn: () => T): { result: T; read: Set<string> } {
    this.reading.push(new Set());
    try {
      const result = fn();
      return { result, read: this.reading[this.reading.length - 1] };
    } finally {
      this.reading.pop();
    }
  }

  private noteRead(modules: Iterable<string>): void {
    const top = this.reading[this.reading.length - 1];
    if (top) for (const m of modules) top.add(m);
  }

  private nameIn(mod: IndexedModule, name: string, seen: Set<string>, depth: number): Target {
    const key = this.key(mod, name);
    const cached = this.cache.get(key);
    if (cached) {
      this.noteRead(this.cacheReads.get(key)!);
      return cached;
    }
    if (seen.has(key) || depth > MAX_DEPTH) return { kind: 'unresolved', name, reason: 'import cycle' };
    seen.add(key);
    const read = new Set([`${mod.sourceId}\0${mod.path}`]);
    this.reading.push(read);
    let t: Target;
    try {
      t = this.compute(mod, name, seen, depth);
    } finally {
      this.reading.pop();
    }
    if (t.kind !== 'unresolved' || t.reason !== 'import cycle') {
      this.cache.set(key, t);
      this.cacheReads.set(key, read);
    }
    this.noteRead(read);
    return t;
  }

  private compute(mod: IndexedModule, name: string, seen: Set<string>, depth: number): Target {
    const stmt = this.program.lastBinding(mod, name);
    if (stmt >= 0) return this.bound(mod, stmt, name, seen, depth);
    // Star imports: the last one that provides the name wins (later ones shadow earlier ones).
    const stars = mod.facts.imports.filter((i) => i.star && i.scope === 'module');
    for (let i = stars.length - 1; i >= 0; i--) {
      const base = this.program.absoluteFrom(mod, stars[i]);
      if (!base) continue;
      const target = this.sourceOf(base, mod.sourceId) ? this.program.findModule(base, mod.sourceId) : undefined;
      if (target) {
        this.noteRead([`${target.sourceId}\0${target.path}`]); // its `__all__` decides, even when it says no
        if (!this.exports(target, name)) continue;
        const t = this.nameIn(target, name, seen, depth + 1);
        // A star import binds what the module binds at run time, not its TYPE_CHECKING names.
        if (t.kind !== 'unresolved' && t.kind !== 'typing') return t;
      } else if (!this.sourceOf(base, mod.sourceId)) {
        // External star import: we can't list its names; a free name nothing else binds most likely comes from it
        // (unless the module imports it for type checkers: then that is where it comes from).
        if (!BUILTINS.has(name) && this.program.typingBinding(mod, name) < 0) {
          return {
            kind: 'external',
            qualified: `${base}.${name}`,
            via: { mod, stmt: stars[i].statementIndex, name },
            confidence: 'star',
          };
        }
      }
    }
    // `if TYPE_CHECKING: from .boxes import Boxes`, then `def f(b: Boxes)` under postponed annotations.
    const typing = this.program.typingBinding(mod, name);
    if (typing >= 0) return { kind: 'typing', mod, stmt: typing, name };
    if (BUILTINS.has(name) || MODULE_DUNDERS.has(name)) return { kind: 'builtin', name };
    return { kind: 'unresolved', name, reason: `no binding of '${name}' in ${mod.module ?? mod.path}` };
  }

  /**
   * What top-level statement `stmt` of `mod` binds `name` to: its definition, or what its import reaches. A statement
   * with several imports of the name (`try: from mmengine.utils import digit_version` / `except ImportError: from
   * mmcv import digit_version`) binds it by the last one that resolves: where the fallback's module lacks the name,
   * upstream's run takes the first branch (mmocr's `__init__`; the fallback alone left 14 blocks without the name).
   */
  private bound(mod: IndexedModule, stmt: number, name: string, seen: Set<string>, depth: number): Target {
    const imps = this.importBindings(mod, stmt, name);
    if (imps.length === 0) return { kind: 'def', mod, stmt, name };
    let last: Target | null = null;
    for (const imp of imps) {
      const t = this.boundBy(mod, stmt, imp, name, seen, depth);
      if (t.kind !== 'unresolved') return t;
      last ??= t;
    }
    return last!;
  }

  private boundBy(
    mod: IndexedModule,
    stmt: number,
    imp: { imp: ImportFact; index: number },
    name: string,
    seen: Set<string>,
    depth: number,
  ): Target {
    const via = this.viaImport(mod, imp, name, seen, depth);
    // `from .boxes import Boxes` where boxes binds Boxes only under `if TYPE_CHECKING:`: ImportError at run time.
    if (via.kind === 'typing')
      return { kind: 'unresolved', name, reason: `'${name}' is bound only under TYPE_CHECKING in ${via.mod.module}` };
    // An external name is provided by the innermost statement that imports it from outside the source: a
    // re-export chain (`from pkg import X`, pkg/__init__: `from .sub import X`, pkg/sub: `from torch import X`)
    // ends at pkg/sub's import, never at an import of the block's own (blocked) package. An import of an
    // outside module (plain or guarded by try/if) is that statement itself.
    if (via.kind === 'external') return via.via ? via : { ...via, via: { mod, stmt, name } };
    return via;
  }

  /** The module-scope imports inside statement `stmt` that bind `name`, last first (none: a definition binds it). */
  private importBindings(mod: IndexedModule, stmt: number, name: string): { imp: ImportFact; index: number }[] {
    const imps = this.program.importsOf(mod, stmt);
    const facts = mod.facts.statements[stmt];
    const out: { imp: ImportFact; index: number }[] = [];
    for (let i = imps.length - 1; i >= 0; i--) {
      // `if TYPE_CHECKING: from .a import A` / `else: A = None`: at run time A is the else branch's.
      if (typeCheckingOnly(facts, imps[i].span.startByte)) continue;
      const idx = imps[i].names.findIndex((n) => n.bound === name);
      if (idx >= 0) out.push({ imp: imps[i], index: idx });
    }
    return out;
  }

  private viaImport(
    mod: IndexedModule,
    { imp, index }: { imp: ImportFact; index: number },
    name: string,
    seen: Set<string>,
    depth: number,
  ): Target {
    const entry = imp.names[index];
    if (imp.kind === 'import') {
      // `import a.b.c as x` binds module a.b.c; `import a.b.c` binds the top package a.
      const moduleName = entry.asname ? entry.name : entry.name.split('.')[0];
      return this.moduleObject(moduleName, mod.sourceId);
    }
    const base = this.program.absoluteFrom(mod, imp);
    if (base === null)
      return {
        kind: 'unresolved',
        name,
        reason: `relative import climbs above the top-level package in ${mod.module}`,
      };
    return this.memberOf(this.sourceOf(base, mod.sourceId) ?? '', base, entry.name, mod.sourceId, seen, depth + 1);
  }

  private moduleObject(moduleName: string, fromSource: string): Target {
    const src = this.sourceOf(moduleName, fromSource);
    if (src) return { kind: 'module', sourceId: src, module: moduleName };
    return { kind: 'external', qualified: moduleName, confidence: 'import' };
  }

  /** `from base import member` / `base.member`: a binding in base's file, else its submodule, else unresolved. */
  private memberOf(
    sourceId: string,
    base: string,
    member: string,
    fromSource: string,
    seen: Set<string>,
    depth: number,
  ): Target {
    if (!sourceId) return { kind: 'external', qualified: `${base}.${member}`, confidence: 'import' };
    const file = this.program.findModule(base, sourceId);
    const t = file ? this.nameIn(file, member, seen, depth) : null;
    const sub = `${base}.${member}`;
    // A name only guessed to come from an outside module's star import is no binding beside a submodule of that
    // name: transformers' `utils` was `modeling_xlstm.utils` (a star import in xlstm's package, reached through the
    // package's star imports), and `transformers.utils` a name nothing defined (44 blocks, NameError on import).
    const guess = t?.kind === 'external' && t.confidence === 'star' && this.sourceOf(sub, sourceId);
    if (t && t.kind !== 'unresolved' && t.kind !== 'typing' && !guess) return t;
    // `from pkg import sub` finds submodule pkg/sub.py when pkg binds no `sub` at run time: the import system loads
    // it and binds it on pkg (a `sub` bound only for type checkers is no such binding).
    if (this.sourceOf(sub, sourceId)) return this.moduleObject(sub, sourceId);
    if (t?.kind === 'typing') return t;
    return {
      kind: 'unresolved',
      name: member,
      reason: `'${member}' is neither bound in ${base} nor a submodule of it`,
    };
  }

  /**
   * Whether a star import of `mod` may provide `name`: listed in a static `__all__`, else any public name (the
   * caller then looks it up, which also follows `mod`'s own star imports: `from .resnet import *` in a package).
   */
  exports(mod: IndexedModule, name: string): boolean {
    const all = mod.facts.all;
    if (all && !all.dynamic) return all.names.includes(name);
    return all?.names.includes(name) || !name.startsWith('_');
  }
}
