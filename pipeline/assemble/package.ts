// Several blocks extracted together as ONE importable package: each upstream module whose definitions any of
// them needs is written once, at its upstream path inside the package (`blocks/torchvision/ops/misc.py`), holding
// those definitions verbatim in upstream order and importing what it reads from the package's other modules
// (relative imports, so the folder can be renamed). Blocks extracted together share their classes:
// `isinstance(vit.blocks[0], Block)` holds. See docs/resolve.md ("Several blocks: one package").
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { BindingKey, Closure, ImportRewrite, IncludedStmt } from '../resolve/closure-record.ts';
import {
  FUTURE_ANNOTATIONS,
  importedModules,
  importLines,
  lateReach,
  namespaceStatement,
  postponesAnnotations,
  renamableIn,
  statementText,
  unfollowedComment,
  type SourceLabel,
} from './emit.ts';
import { mergeClosures } from './merge-closures.ts';
import { planNames, type NamePlan } from './names.ts';
import { orderNodes, type OrderNode } from './order.ts';
import { earlierImports, homeOf, isLazy, packageFiles, relativeModule, type PackageFile } from './package-files.ts';
import { HeaderImports } from './header-imports.ts';

export interface PackageInput {
  blockId: string;
  /** The closure of the module written for the block (with its builders, when it has any). */
  closure: Closure;
}

export interface PackageModule {
  /** Path inside the package folder, `/`-separated: `torchvision/ops/misc.py`, `torchvision/ops/__init__.py`. */
  path: string;
  /** Dotted name inside the package: `torchvision.ops.misc`. */
  module: string;
  code: string;
}

export interface PackagedBlock {
  blockId: string;
  /** Dotted module inside the package that holds the block's class. */
  module: string;
  path: string;
  className: string;
  /**
   * Top-level outside packages importing its module imports (its module and the package modules it imports, at
   * import time): a module holds what any extracted block needs of its upstream module, and imports what that needs.
   */
  imports: string[];
  /** Paths of the package modules importing its module runs (its own, those it imports, their parents' inits). */
  reached: string[];
}

export interface EmittedPackage {
  modules: PackageModule[];
  blocks: PackagedBlock[];
  diagnostics: Diagnostic[];
}

/** Why the package's `__init__.py` files exist; also how a later extraction recognises a folder it may replace. */
export const PACKAGE_MARKER = '# Package assembled by nnblocks';

export function emitPackage(
  inputs: PackageInput[],
  readText: (mod: IndexedModule) => Buffer,
  labels: Map<string, SourceLabel>,
  preloaded: (top: string) => boolean,
): EmittedPackage {
  const merged = mergeClosures(inputs.map((i) => i.closure));
  const { files, fileOf } = packageFiles(merged);
  const diagnostics: Diagnostic[] = [];
  const defFile = (key: BindingKey): PackageFile | undefined => fileOf.get(merged.bindings.get(key)?.by ?? '');
  const moduleFile = moduleObjects(merged, files, fileOf);
  // Each module's names first: a module importing a definition imports it under the name its own module gave it.
  const plans = new Map<PackageFile, FilePlan>();
  for (const f of files)
    plans.set(
      f,
      planFile(f, merged, (key) => homeOf(merged, f, key, fileOf), moduleFile, readText),
    );
  const modules: PackageModule[] = [];
  /** Per module: the outside packages its own imports name, and the package modules it imports at import time. */
  const tops = new Map<PackageFile, Set<string>>();
  const deps = new Map<PackageFile, Set<PackageFile>>();
  for (const f of files) {
    const { plan, view, imported, modules: objects } = plans.get(f)!;
    const imports = new HeaderImports(importedModules(view), preloaded);
    const { futures, stdlib, thirdParty } = imports;
    for (const st of f.stmts) {
      if (postponesAnnotations(st.mod)) futures.add(FUTURE_ANNOTATIONS);
      if (!st.headerImport) continue;
      for (const line of importLines(st, view, plan.emitted, readText)) imports.line(line);
      imports.submodules(merged.submodules.get(st.key));
    }
    for (const line of earlierImports(f, readText)) imports.line(line);
    // What it reads from the package's other modules, one import per module, names sorted.
    const fromFile = new Map<PackageFile, string[]>();
    for (const [key, home] of imported) {
      const there = plans.get(home)!.plan.emitted.get(key)!;
      const here = plan.emitted.get(key)!;
      const list = fromFile.get(home) ?? [];
      list.push(there === here ? here : `${there} as ${here}`);
      fromFile.set(home, list);
    }
    const internal = [...fromFile]
      .sort((a, b) => (a[0].module < b[0].module ? -1 : 1))
      .map(([home, names]) => `from ${relativeModule(f, home)} import ${names.sort().join(', ')}`);
    // A module object read through attributes whose members its package module holds: that module, as upstream.
    for (const [key, home] of objects) internal.push(moduleImport(f, home, plan.emitted.get(key)!));
    const registers = registrationHomes(f, merged, fileOf);
    deps.set(f, new Set([...fromFile.keys(), ...objects.values(), ...registers]));
    // Header imports only: one under try/if may fail (`try: import parrots`), and upstream counts on it.
    const own = new Set<string>([...stdlib, ...thirdParty].map((line) => topOf(line)).filter((t) => t !== ''));
    tops.set(f, own);
    const nsKeys = namespacesOf(f, merged, objects);
    const lazy = new LazyImports(f, merged, (key) => homeOf(merged, f, key, fileOf), moduleFile, plans);
    const body = fileBody(f, merged, view, plan, nsKeys, readText, labels, diagnostics, (rw) => lazy.text(rw));
    if (nsKeys.length || lazy.namespaces) stdlib.push('from types import SimpleNamespace as _nnb_SimpleNamespace');
    const header = [
      `# ${f.upstream.join(', ')}\n# Assembled by nnblocks from upstream code for local use only; do not redistribute.\n# ${licenseLine(f, labels)}. Each definition below names its upstream file, lines and revision.`,
    ];
    for (const group of [[...futures], stdlib, thirdParty, internal]) if (group.length) header.push(group.join('\n'));
    if (body) header.push(body);
    // Last, as upstream's package import ran them after this module's own definitions: no new import cycle.
    if (registers.length)
      header.push(
        `# nnblocks: modules holding registrations of names this module asks a registry for by string\n` +
          registers.map((home, i) => moduleImport(f, home, `_nnb_registers_${i}`)).join('\n'),
      );
    modules.push({ path: f.path, module: f.module, code: header.join('\n\n') + '\n' });
  }
  for (const dir of initFolders(files)) {
    modules.push({
      path: dir ? `${dir}/__init__.py` : '__init__.py',
      module: dir.replace(/\//g, '.'),
      code: `${PACKAGE_MARKER}: a folder of the upstream module path, empty here.\n`,
    });
  }
  const blocks = inputs.map(({ blockId, closure }) => {
    const f = defFile(closure.blockKey)!;
    const reached = new Set<PackageFile>();
    const visit = (m: PackageFile) => {
      if (reached.has(m)) return;
      reached.add(m);
      for (const d of deps.get(m) ?? []) visit(d);
      // Python runs the `__init__.py` of each parent package first.
      for (const p of files) if (p.isInit && m.module.startsWith(`${p.module}.`)) visit(p);
    };
    visit(f);
    const imports = [...new Set([...reached].flatMap((m) => [...(tops.get(m) ?? [])]))].sort();
    const className = plans.get(f)!.plan.emitted.get(closure.blockKey)!;
    return { blockId, module: f.module, path: f.path, className, imports, reached: [...reached].map((m) => m.path) };
  });
  modules.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { modules, blocks, diagnostics };
}

/**
 * The names of one module: its own definitions and imports keep their upstream names (an upstream module binds a
 * name once at a time); what it imports from the package's other modules comes under the name its references use,
 * renamed only on a clash with its own (`from ..ops.misc import Conv as Conv_misc`).
 */
interface FilePlan {
  plan: NamePlan;
  view: Closure;
  /** Bindings imported from the package's other modules, and from which. */
  imported: Map<BindingKey, PackageFile>;
  /** Namespaces imported as the package module they stand for. */
  modules: Map<BindingKey, PackageFile>;
}

function planFile(
  f: PackageFile,
  merged: Closure,
  homeOf: (key: BindingKey) => PackageFile | undefined,
  moduleFile: (key: BindingKey) => PackageFile | undefined,
  readText: (mod: IndexedModule) => Buffer,
): FilePlan {
  const keys = new Set(f.stmts.map((st) => st.key));
  const bindings = new Map([...merged.bindings].filter(([, b]) => keys.has(b.by)));
  const imported = new Map<BindingKey, PackageFile>();
  const modules = new Map<BindingKey, PackageFile>();
  const own = new Set<BindingKey>(bindings.keys());
  const need = (key: BindingKey) => {
    const b = merged.bindings.get(key);
    if (!b || bindings.has(key)) return;
    bindings.set(key, b);
    const home = homeOf(key);
    const object = b.kind === 'namespace' ? moduleFile(key) : undefined;
    if (object && object !== f) modules.set(key, object);
    else if (b.kind === 'namespace') for (const m of merged.namespaces.get(key)!.members.values()) need(m);
    // A definition, or a name another module imports from outside (`try: from torch import _assert` ...).
    else if (home && home !== f) imported.set(key, home);
    else own.add(key);
  };
  for (const st of f.stmts) {
    st.refs.forEach(need);
    for (const rw of st.importRewrites) if (!isLazy(rw)) for (const b of rw.binds) need(b.binding);
  }
  const view: Closure = { ...merged, stmts: new Map(f.stmts.map((st) => [st.key, st])), bindings };
  const plan = planNames(
    view,
    (b) => (merged.stmts.get(b.by)?.mod.module ?? 'ns').split('.').pop()!,
    renamableIn(view, readText),
    (b) => own.has(b.key),
  );
  return { plan, view, imported, modules };
}

/**
 * The package module a namespace (a module object read through attributes: `F_t.adjust_hue`) can be imported as:
 * the one written for that upstream module, when it binds every member used under the attribute's name. Then the
 * import stays what upstream wrote (`from . import _functional_tensor as F_t`) and the members are not copied into
 * the importing module's names.
 */
function moduleObjects(
  merged: Closure,
  files: PackageFile[],
  fileOf: Map<string, PackageFile>,
): (key: BindingKey) => PackageFile | undefined {
  const byUpstream = new Map<string, PackageFile>();
  for (const f of files) {
    if (f.upstream.length === 1 && f.module.includes('.'))
      byUpstream.set(`${f.stmts[0].mod.sourceId}\0${f.upstream[0]}`, f);
  }
  return (key) => {
    const ns = merged.namespaces.get(key);
    const [, sourceId, module] = key.split('\0');
    const home = ns && byUpstream.get(`${sourceId}\0${module}`);
    if (!home) return undefined;
    for (const [attr, m] of ns.members) {
      const b = merged.bindings.get(m);
      if (!b || b.kind === 'namespace' || b.name !== attr || fileOf.get(b.by) !== home) return undefined;
    }
    return home;
  };
}

/** `from .. import misc as misc_nn_ops`: module `home` as a name of module `f`. */
/**
 * The other package modules holding a registration that a statement of `f` asks for by string
 * (`IncludedStmt.askedBy`): upstream the package's import ran it; here `f` imports its module.
 */
function registrationHomes(f: PackageFile, merged: Closure, fileOf: Map<string, PackageFile>): PackageFile[] {
  const mine = new Set(f.stmts.map((st) => st.key));
  const out = new Set<PackageFile>();
  for (const st of merged.stmts.values()) {
    if (!st.askedBy || ![...st.askedBy].some((k) => mine.has(k))) continue;
    const home = fileOf.get(st.key);
    if (home && home !== f) out.add(home);
  }
  return [...out].sort((a, b) => (a.module < b.module ? -1 : 1));
}

function moduleImport(f: PackageFile, home: PackageFile, as: string): string {
  const dot = home.module.lastIndexOf('.');
  const parent = { module: home.module.slice(0, dot), isInit: true } as PackageFile;
  const last = home.module.slice(dot + 1);
  return `from ${relativeModule(f, parent)} import ${last}${last === as ? '' : ` as ${as}`}`;
}

/**
 * A function's own import of internal names stays in the function, as an import from the package's module that
 * holds each name (upstream it is lazy to break an import cycle: tv_tensors' `Image` imports `transforms.v2`'s
 * functional inside a method). A module object becomes a namespace of the members used, built there:
 *   from torchvision.transforms.v2 import functional as F
 *   → from ...transforms.v2.functional._geometry import resize as _nnb_0; F = _nnb_SimpleNamespace(resize=_nnb_0)
 */
class LazyImports {
  /** Whether a namespace was built (the module imports `_nnb_SimpleNamespace`). */
  namespaces = false;
  constructor(
    private readonly f: PackageFile,
    private readonly merged: Closure,
    private readonly homeOf: (key: BindingKey) => PackageFile | undefined,
    private readonly moduleFile: (key: BindingKey) => PackageFile | undefined,
    private readonly plans: Map<PackageFile, { plan: NamePlan }>,
  ) {}

  text(rw: ImportRewrite): string[] | null {
    if (!isLazy(rw)) return null;
    const parts: string[] = [];
    // One import per module: `from ..x import a as _nnb_0, b as _nnb_1`.
    const names = new Map<PackageFile, string[]>();
    let n = 0;
    const expr = (key: BindingKey, as?: string): string => {
      const b = this.merged.bindings.get(key)!;
      const object = b.kind === 'namespace' ? this.moduleFile(key) : undefined;
      if (object && object !== this.f) {
        const local = as ?? `_nnb_${n++}`;
        parts.push(moduleImport(this.f, object, local));
        return local;
      }
      if (b.kind === 'namespace') {
        this.namespaces = true;
        const members = [...this.merged.namespaces.get(key)!.members].map(([a, k]) => `${a}=${expr(k)}`);
        return `_nnb_SimpleNamespace(${members.join(', ')})`;
      }
      const home = this.homeOf(key);
      const there = home && this.plans.get(home)!.plan.emitted.get(key);
      if (!home || !there) return b.name;
      if (home === this.f) return there;
      const local = as ?? `_nnb_${n++}`;
      names.set(home, [...(names.get(home) ?? []), there === local ? there : `${there} as ${local}`]);
      return local;
    };
    const assignments: string[] = [];
    for (const b of rw.binds) {
      const e = expr(b.binding, b.bound);
      if (e !== b.bound) assignments.push(`${b.bound} = ${e}`);
    }
    for (const [home, list] of names) parts.push(`from ${relativeModule(this.f, home)} import ${list.join(', ')}`);
    return [...parts, ...assignments];
  }
}

/** `import a.b as c`, `from a.b import c` → `a`; a guarded submodule import (`try: ...`) → ''. */
function topOf(line: string): string {
  const m = /^(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(line);
  return m ? m[1] : '';
}

/** Namespaces (module objects read through attributes) the module's statements read, nested ones first. */
function namespacesOf(f: PackageFile, merged: Closure, objects: Map<BindingKey, PackageFile>): BindingKey[] {
  const out: BindingKey[] = [];
  const visit = (key: BindingKey) => {
    const ns = merged.namespaces.get(key);
    if (!ns || out.includes(key) || objects.has(key)) return;
    for (const m of ns.members.values()) visit(m);
    out.push(key);
  };
  for (const st of f.stmts) for (const k of st.refs.values()) visit(k);
  return out;
}

/** The module's statements in definition-before-use order (upstream order where nothing says otherwise). */
function fileBody(
  f: PackageFile,
  merged: Closure,
  view: Closure,
  plan: NamePlan,
  nsKeys: BindingKey[],
  readText: (mod: IndexedModule) => Buffer,
  labels: Map<string, SourceLabel>,
  diagnostics: Diagnostic[],
  nested: (rw: ImportRewrite) => string[] | null,
): string {
  const here = new Set<string>([...f.stmts.map((st) => st.key), ...nsKeys]);
  const within = (keys: Iterable<string>) => new Set([...keys].filter((k) => here.has(k)));
  const reach = lateReach(merged);
  const nodes: OrderNode[] = f.stmts
    .filter((st) => !st.headerImport)
    .map((st) => ({
      key: st.key,
      sortKey: `${st.mod.sourceId}\0${st.mod.path}\0${String(st.stmt).padStart(6, '0')}`,
      deps: within(st.eagerDeps),
    }));
  for (const key of nsKeys) {
    const deps = [...merged.namespaces.get(key)!.members.values()].map((m) => merged.bindings.get(m)!.by);
    nodes.push({ key, sortKey: `\uffff${key}`, deps: within(deps) });
  }
  // A namespace calls none of its members: no soft edges (emit.ts).
  for (const n of nodes) if (!merged.namespaces.has(n.key)) n.soft = within([...n.deps].flatMap((d) => [...reach(d)]));
  const { order, cycles } = orderNodes(nodes);
  if (cycles.length) {
    diagnostics.push({
      code: 'import-time-cycle',
      severity: 'warning',
      stage: 'assemble',
      message: `${f.module}: ${cycles.length} statement(s) read each other at import time; placed in upstream order`,
    });
  }
  const nameOf = (key: BindingKey) => plan.emitted.get(key)!;
  return order
    .map((key) => {
      const ns = merged.namespaces.get(key);
      if (ns) {
        const members = [...ns.members].map(([attr, k]) => `${attr}=${nameOf(k)}`).join(', ');
        return namespaceStatement(ns, nameOf(key), members);
      }
      const st = view.stmts.get(key)!;
      return (
        provenance(st, labels) +
        unfollowedComment(st) +
        statementText(st, view, plan, readText(st.mod), diagnostics, nested, merged)
      );
    })
    .join('\n\n\n');
}

function provenance(st: IncludedStmt, labels: Map<string, SourceLabel>): string {
  const facts = st.mod.facts.statements[st.stmt];
  const label = labels.get(st.mod.sourceId);
  const cut = st.keptEntries
    ? ` (only the ${st.keptEntries.size} of ${facts.dict!.entries.length} entries read here)`
    : '';
  return `# nnblocks: ${st.mod.sourceId} ${st.mod.path}:${facts.span.startLine}-${facts.span.endLine}${label ? ` @ ${label.revision}` : ''}${cut}\n`;
}

function licenseLine(f: PackageFile, labels: Map<string, SourceLabel>): string {
  const ids = [...new Set(f.stmts.map((st) => st.mod.sourceId))].sort();
  const of = (id: string) => labels.get(id)?.license ?? 'unknown';
  return ids.length === 1
    ? `Upstream license: ${of(ids[0])}`
    : `Upstream licenses: ${ids.map((id) => `${of(id)} (${id})`).join(', ')}`;
}

/** Every folder of the package (the package itself: '') that has no module of its own as `__init__.py`. */
function initFolders(files: PackageFile[]): string[] {
  const have = new Set(files.filter((f) => f.path.endsWith('/__init__.py')).map((f) => f.path.slice(0, -12)));
  const dirs = new Set<string>(['']);
  for (const f of files) {
    const parts = f.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].filter((d) => !have.has(d)).sort();
}
