// Which module of an extracted package (package.ts) each statement goes to: its upstream module's, at the same
// dotted path inside the package. Modules that would import each other are written as one, so the package imports
// in any order: a module's imports of the others always sit at its top.
import { sha256 } from '../index/hash.ts';
import type { IndexedModule } from '../index/types.ts';
import type { BindingKey, Closure, ImportRewrite, IncludedStmt } from '../resolve/closure-record.ts';

export interface PackageFile {
  /** Path inside the package folder: `torchvision/ops/misc.py`, `torchvision/ops/__init__.py`. */
  path: string;
  /** Dotted name inside the package: `torchvision.ops.misc`. */
  module: string;
  isInit: boolean;
  /** Upstream modules whose statements it holds (one, unless some imported each other). */
  upstream: string[];
  stmts: IncludedStmt[];
}

/** A name Python can import as a module segment (ASCII: file names must not depend on Unicode normalisation). */
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Longest module segment kept as it is, and the readable part of a longer one (as for standalone modules). */
const PLAIN_CHARS = 100;
const READABLE_CHARS = 80;

/**
 * `my-utils` → `my_utils_3f2a1c`: importable, ASCII, kept apart from a real `my_utils`, and far below NAME_MAX
 * (docs/index.md, "Long and non-ASCII names").
 */
function segment(raw: string): string {
  if (SEGMENT.test(raw) && !KEYWORDS.has(raw) && raw.length <= PLAIN_CHARS) return raw;
  const ascii = raw.replace(/[^A-Za-z0-9_]/g, '_').slice(0, READABLE_CHARS);
  return `${/^[A-Za-z_]/.test(ascii) ? ascii : `m_${ascii}`}_${sha256(raw).slice(0, 6)}`;
}

function upstreamName(mod: IndexedModule): string {
  return mod.module ?? mod.path.replace(/\.py$/, '').replace(/\//g, '.');
}

/**
 * The package's modules and each statement's. A module goes where its upstream module is
 * (`segment_anything/modeling/mask_decoder.py`); when two sources both have a top-level package of one name
 * (yolov5's and yolov7's `models`), the modules of those sources go under their source id (`yolov5/models/...`).
 */
export function packageFiles(c: Closure): { files: PackageFile[]; fileOf: Map<string, PackageFile> } {
  const mods = new Map<string, IndexedModule>();
  for (const st of c.stmts.values()) mods.set(modKey(st.mod), st.mod);
  const tops = new Map<string, Set<string>>();
  for (const m of mods.values()) {
    const top = upstreamName(m).split('.')[0];
    tops.set(top, (tops.get(top) ?? new Set()).add(m.sourceId));
  }
  const prefixed = new Set([...tops.values()].filter((s) => s.size > 1).flatMap((s) => [...s]));
  const byMod = new Map<string, PackageFile>();
  for (const [key, m] of mods) {
    const isInit = /(^|\/)__init__\.py$/.test(m.path);
    const parts = upstreamName(m).split('.').map(segment);
    if (prefixed.has(m.sourceId)) parts.unshift(segment(m.sourceId));
    byMod.set(key, {
      path: parts.join('/') + (isInit ? '/__init__.py' : '.py'),
      module: parts.join('.'),
      isInit,
      upstream: [upstreamName(m)],
      stmts: [],
    });
  }
  for (const st of c.stmts.values()) byMod.get(modKey(st.mod))!.stmts.push(st);
  for (const f of byMod.values()) f.stmts.sort((a, b) => a.stmt - b.stmt);
  return mergeCycles(c, byMod);
}

/**
 * The file that provides binding `key` to module `f`: the file of the statement that binds it, unless that is an
 * outside name `f` imports itself, verbatim (`from torch import nn` in two modules is one binding of the closure,
 * made by whichever statement came first: each module keeps its own import).
 */
export function homeOf(
  c: Closure,
  f: PackageFile,
  key: BindingKey,
  fileOfStmt: Map<string, PackageFile>,
): PackageFile | undefined {
  const b = c.bindings.get(key);
  if (!b || b.kind === 'namespace') return undefined;
  const home = fileOfStmt.get(b.by);
  if (home === f || b.kind !== 'external') return home;
  const top = key.split('\0')[1].split('.')[0];
  // Verbatim: a plain import (not one rewritten to the names it provides) or a compound statement
  // (`try: import accimage` / `except ImportError: accimage = None`).
  const own = f.stmts.some(
    (st) =>
      !st.rewriteImport &&
      st.mod.facts.imports.some(
        (i) =>
          i.statementIndex === st.stmt &&
          i.scope === 'module' &&
          i.level === 0 &&
          (i.kind === 'from' ? i.module : (i.names[0]?.name ?? '')).split('.')[0] === top &&
          (i.star || i.names.some((n) => n.bound === b.name)),
      ),
  );
  return own ? f : home;
}

/** A nested import inside a function: it runs when the function is called, never at import time. */
export function isLazy(rw: ImportRewrite): boolean {
  return rw.imp.scope === 'function';
}

function modKey(mod: IndexedModule): string {
  return `${mod.sourceId}\0${mod.path}`;
}

/**
 * Modules that would import each other (directly, or through the package `__init__` Python runs first) become one
 * module, the shortest-named of them: a strongly connected component of the import graph (Tarjan).
 */
function mergeCycles(
  c: Closure,
  byMod: Map<string, PackageFile>,
): { files: PackageFile[]; fileOf: Map<string, PackageFile> } {
  const files = [...byMod.values()].sort((a, b) => (a.module < b.module ? -1 : 1));
  const fileOfStmt = new Map<string, PackageFile>();
  for (const f of files) for (const st of f.stmts) fileOfStmt.set(st.key, f);
  const inits = new Map(files.filter((f) => f.isInit).map((f) => [f.module, f]));
  const edges = new Map<PackageFile, Set<PackageFile>>();
  for (const f of files) {
    const out = new Set<PackageFile>();
    const visitNs = new Set<BindingKey>();
    const need = (key: BindingKey) => {
      const b = c.bindings.get(key);
      if (!b) return;
      if (b.kind === 'namespace') {
        if (visitNs.has(key)) return;
        visitNs.add(key);
        for (const m of c.namespaces.get(key)!.members.values()) need(m);
        return;
      }
      const home = homeOf(c, f, key, fileOfStmt);
      if (home && home !== f) out.add(home);
    };
    for (const st of f.stmts) {
      st.refs.forEach(need);
      // A function's own import runs when it is called: no edge (package.ts keeps it there, lazy).
      for (const rw of st.importRewrites) if (!isLazy(rw)) for (const b of rw.binds) need(b.binding);
    }
    // Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first.
    const parts = f.module.split('.');
    for (let i = 1; i < parts.length; i++) {
      const parent = inits.get(parts.slice(0, i).join('.'));
      if (parent && parent !== f) out.add(parent);
    }
    edges.set(f, out);
  }
  const fileOf = new Map<string, PackageFile>();
  const merged: PackageFile[] = [];
  for (const scc of components(files, edges)) {
    const target = [...scc].sort(
      (a, b) => a.module.split('.').length - b.module.split('.').length || (a.module < b.module ? -1 : 1),
    )[0];
    if (scc.length > 1) {
      target.upstream = scc.flatMap((f) => f.upstream).sort();
      target.stmts = scc.flatMap((f) => f.stmts);
    }
    for (const st of target.stmts) fileOf.set(st.key, target);
    merged.push(target);
  }
  return { files: merged.sort((a, b) => (a.module < b.module ? -1 : 1)), fileOf };
}

/** Strongly connected components (Tarjan), each a list of files. */
function components(files: PackageFile[], edges: Map<PackageFile, Set<PackageFile>>): PackageFile[][] {
  const index = new Map<PackageFile, number>();
  const low = new Map<PackageFile, number>();
  const stack: PackageFile[] = [];
  const on = new Set<PackageFile>();
  const out: PackageFile[][] = [];
  let next = 0;
  const visit = (v: PackageFile) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: PackageFile[] = [];
      let w: PackageFile;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      out.push(scc);
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

/** `from <this> import ...` in module `from` for module `to`, relative: `..ops.misc`, `.` (its own package). */
export function relativeModule(from: PackageFile, to: PackageFile): string {
  const pkg = from.module.split('.');
  if (!from.isInit) pkg.pop();
  const target = to.module.split('.');
  let k = 0;
  while (k < pkg.length && k < target.length && pkg[k] === target[k]) k++;
  return '.'.repeat(pkg.length - k + 1) + target.slice(k).join('.');
}

/**
 * Plain imports of outside names that an included compound statement binds again later (the lookup answers with
 * the last binding): code before it reads the earlier import, which a standalone module gets from any other import
 * of the name, and a package module only from its own upstream module.
 *   import torch                                   # what `stack_batch`'s annotations read: written too
 *   def stack_batch(tensor_list: List[torch.Tensor]): ...
 *   try: import torch.fx ...                       # the binding the closure found (mmengine/model/utils.py)
 */
export function earlierImports(
  f: PackageFile,
  readText: (mod: IndexedModule) => Buffer,
): { text: string; top: string }[] {
  const have = new Set(f.stmts.map((st) => st.key));
  // Names the module reads as outside names (binding keys `x\0...`).
  const read = new Set(f.stmts.flatMap((st) => [...st.refs].filter(([, k]) => k.startsWith('x\0')).map(([n]) => n)));
  const out: { text: string; top: string }[] = [];
  for (const st of f.stmts) {
    const facts = st.mod.facts.statements[st.stmt];
    if (st.headerImport || facts.kind === 'import') continue;
    const rebound = st.mod.facts.imports
      .filter((i) => i.statementIndex === st.stmt && i.scope === 'module')
      .flatMap((i) => i.names.map((n) => n.bound))
      .filter((n) => read.has(n));
    for (const name of rebound) {
      for (const imp of st.mod.facts.imports) {
        const earlier = st.mod.facts.statements[imp.statementIndex];
        if (imp.statementIndex >= st.stmt || imp.scope !== 'module' || imp.level > 0 || earlier.kind !== 'import')
          continue;
        if (!imp.names.some((n) => n.bound === name)) continue;
        if (have.has(`${st.mod.sourceId}\0${st.mod.path}\0${imp.statementIndex}`)) continue;
        const top = (imp.kind === 'import' ? (imp.names[0]?.name ?? '') : imp.module).split('.')[0];
        out.push({
          text: readText(st.mod).subarray(earlier.span.startByte, earlier.span.endByte).toString('utf8'),
          top,
        });
      }
    }
  }
  return out;
}
