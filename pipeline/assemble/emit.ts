// Emits one dependency-closed Python module for a block: upstream statements copied verbatim (decorators kept),
// imports preserved and grouped (future, stdlib, third-party), definitions before use, each with a provenance line.
// The only edits to upstream text are at exact byte spans: renames on a name clash, nested imports of internal
// names (which can't work without the repository) turned into assignments to the emitted definitions, and the
// scope a registry infers from its module written out (registry-scope.ts).
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ImportFact } from '../parse/facts.ts';
import {
  externalKey,
  type Binding,
  type Closure,
  type ImportRewrite,
  type IncludedStmt,
  type NamespaceNode,
} from '../resolve/closure-record.ts';
import { pyName } from '../util/identifier.ts';
import { planNames } from './names.ts';
import { orderNodes, type OrderNode } from './order.ts';
import { HeaderImports } from './header-imports.ts';
import { guardedStatement, readAtImport } from './lazy-imports.ts';
import { locationAliases, registryLocations } from './registry-locations.ts';
import { registryScopeEdits, type Edit } from './registry-scope.ts';

export interface SourceLabel {
  /** e.g. 'torchvision 0.14.1a0 (https://github.com/pytorch/vision, tag v0.14.1)' or a commit. */
  revision: string;
  license: string | null;
}

export interface EmittedDefinition {
  name: string;
  module: string;
  path: string;
  sourceId: string;
  lines: [number, number];
}

export interface Assembled {
  code: string;
  className: string;
  /** The extra roots' names in the emitted module (a clash may rename one), in the closure's order. */
  rootNames: string[];
  /** Internal statements copied, in emitted order (the block's own class included). */
  definitions: EmittedDefinition[];
  diagnostics: Diagnostic[];
}

export function emitModule(
  blockId: string,
  c: Closure,
  readText: (mod: IndexedModule) => Buffer,
  labels: Map<string, SourceLabel>,
  /** Packages whose import loads the submodules blocks read (the runtime, the standard library): no guarded imports. */
  preloaded: (top: string) => boolean = () => false,
  /**
   * Packages a source of the corpus provides: their imports are never guarded (lazy-imports.ts), so that an import
   * of another source's package (resolveAcross: false) still fails where it is, and says so.
   */
  corpusPackage: (top: string) => boolean = () => false,
): Assembled {
  const diagnostics: Diagnostic[] = [];
  const plan = planNames(
    c,
    (b) => {
      const st = c.stmts.get(b.by);
      return st?.mod.module?.split('.').pop() ?? 'ns';
    },
    renamableIn(c, readText),
  );
  const nameOf = (key: string) => plan.emitted.get(key)!;

  const header = c.stmts.get(c.bindings.get(c.blockKey)!.by)!;
  const imports = new HeaderImports(importedModules(c), preloaded);
  const { futures, stdlib } = imports;
  const eager = readAtImport(c);
  const nodes: OrderNode[] = [];
  for (const st of c.stmts.values()) {
    if (st.headerImport) {
      // Not an import of a corpus module the index lacks (rewriteImport): that gap stays visible at import.
      const lazy = !st.rewriteImport && !eager.has(st.key);
      for (const line of importLines(st, c, plan.emitted, readText))
        imports.line(line, lazy && !corpusPackage(line.top));
      imports.submodules(c.submodules.get(st.key));
      continue;
    }
    if (postponesAnnotations(st.mod)) futures.add(FUTURE_ANNOTATIONS);
    nodes.push({
      key: st.key,
      sortKey: `${st.mod.sourceId}\0${st.mod.path}\0${String(st.stmt).padStart(6, '0')}`,
      deps: st.eagerDeps,
    });
  }
  for (const ns of c.namespaces.values()) {
    const deps = new Set<string>();
    for (const member of ns.members.values()) deps.add(c.bindings.get(member)!.by);
    nodes.push({ key: ns.key, sortKey: `\uffff${ns.key}`, deps });
  }
  const reach = lateReach(c);
  for (const n of nodes) {
    // A namespace only reads its members; it calls none of them (a statement that calls one through it has the
    // soft edges, by reach). Soft edges here closed a cycle in transformers: `logger = logging_ns.get_logger(...)`
    // waited on everything `get_logger`'s module reaches, and went after the import-time calls that read it.
    if (c.namespaces.has(n.key)) continue;
    const soft = new Set<string>();
    for (const dep of n.deps) for (const k of reach(dep)) soft.add(k);
    n.soft = soft;
  }
  const { order, cycles } = orderNodes(nodes);
  if (cycles.length) {
    diagnostics.push({
      code: 'import-time-cycle',
      severity: 'warning',
      stage: 'assemble',
      message: `${cycles.length} statement(s) read each other at import time; placed in upstream order`,
    });
  }

  const body: string[] = [];
  const definitions: EmittedDefinition[] = [];
  for (const key of order) {
    const ns = c.namespaces.get(key);
    if (ns) {
      const members = [...ns.members].map(([attr, k]) => `${attr}=${nameOf(k)}`).join(', ');
      body.push(namespaceStatement(ns, nameOf(key), members));
      continue;
    }
    const st = c.stmts.get(key)!;
    const facts = st.mod.facts.statements[st.stmt];
    const label = labels.get(st.mod.sourceId);
    const cut = st.keptEntries
      ? ` (only the ${st.keptEntries.size} of ${facts.dict!.entries.length} entries read here)`
      : '';
    const bytes = readText(st.mod);
    const text = statementText(st, c, plan, bytes, diagnostics);
    const guarded = guardedStatement(st, c, eager, bytes, text, (t) => preloaded(t) || corpusPackage(t), nameOf);
    if (guarded) imports.useAbsent();
    body.push(
      `# nnblocks: ${st.mod.sourceId} ${st.mod.path}:${facts.span.startLine}-${facts.span.endLine}${label ? ` @ ${label.revision}` : ''}${cut}\n` +
        unfollowedComment(st) +
        (guarded ?? text),
    );
    definitions.push({
      name: facts.binds.join(', ') || facts.kind,
      module: st.mod.module ?? st.mod.path,
      path: st.mod.path,
      sourceId: st.mod.sourceId,
      lines: [facts.span.startLine, facts.span.endLine],
    });
  }
  if (c.namespaces.size) stdlib.push('from types import SimpleNamespace as _nnb_SimpleNamespace');
  const aliases = locationAliases(registryLocations(c, readText));
  if (aliases) body.push(aliases);

  const own = header.mod.sourceId;
  const licenseOf = (id: string) => labels.get(id)?.license ?? 'unknown';
  // Code of other sources of the corpus (cross-source resolution) brings their licenses along.
  const others = [...new Set(definitions.map((d) => d.sourceId))].filter((id) => id !== own).sort();
  const license = others.length
    ? `Upstream licenses: ${[own, ...others].map((id) => `${licenseOf(id)} (${id})`).join(', ')}`
    : `Upstream license: ${licenseOf(own)}`;
  const parts = [
    `# ${blockId}\n# Assembled by nnblocks from upstream code for local use only; do not redistribute.\n# ${license}. Each definition below names its upstream file, lines and revision.`,
  ];
  if (futures.size) parts.push([...futures].join('\n'));
  if (stdlib.length) parts.push(stdlib.join('\n'));
  const thirdParty = imports.thirdPartyLines();
  if (thirdParty.length) parts.push(thirdParty.join('\n'));
  parts.push(body.join('\n\n\n'));
  return {
    code: parts.join('\n\n') + '\n',
    className: nameOf(c.blockKey),
    rootNames: c.rootKeys.map(nameOf),
    definitions,
    diagnostics,
  };
}

export const FUTURE_ANNOTATIONS = 'from __future__ import annotations';

/** Whether a definition's name can be edited at its bytes (names.ts `renamable`); an import's always can. */
export function renamableIn(c: Closure, readText: (mod: IndexedModule) => Buffer): (b: Binding) => boolean {
  return (b) => {
    const st = c.stmts.get(b.by);
    if (b.kind !== 'def' || !st) return true;
    const facts = st.mod.facts.statements[st.stmt];
    // Bound through `global` in a function: renamed at its occurrences (statementText).
    if (!facts.binds.includes(b.name) && facts.rebinds.some((r) => r.name === b.name)) return true;
    const text = readText(st.mod).subarray(facts.span.startByte, facts.span.endByte).toString('utf8');
    return definitionName(text, facts.kind, b.name) !== null;
  };
}

/**
 * Whether `mod` starts with `from __future__ import annotations` (PEP 563): its annotations are never evaluated, so
 * they may name what is defined later, the class being defined, or nothing at run time at all.
 *   from __future__ import annotations
 *   class TVTensor(torch.Tensor):
 *       def wrap(self, like: TVTensor) -> TVTensor: ...     # fine: TVTensor is not bound yet, never looked up
 * A future statement holds for its whole module, so one emitted statement from such a module makes the emitted
 * module postpone every annotation: the only way its own annotations stay unevaluated. A statement from a module
 * without it can only import more easily so (its annotations go unevaluated; what they name is emitted anyway), and
 * `typing.get_type_hints` and TorchScript resolve the strings in the module's globals.
 */
export function postponesAnnotations(mod: IndexedModule): boolean {
  return mod.facts.imports.some(
    (i) => i.future && i.scope === 'module' && i.names.some((n) => n.name === 'annotations'),
  );
}

/**
 * Next to a class whose unreached methods read names that were not followed (closure `unfollowed`): a reader who
 * calls such a method learns why a NameError comes.
 *   # nnblocks: not followed (only methods never reached from import, construction or forward use them): print_log
 *   # nnblocks: those methods: init_weights
 */
export function unfollowedComment(st: IncludedStmt): string {
  if (!st.unfollowed) return '';
  return (
    wrapComment(
      '# nnblocks: not followed (only methods never reached from import, construction or forward use them): ',
      st.unfollowed.names,
    ) + wrapComment('# nnblocks: those methods: ', st.unfollowed.methods)
  );
}

/** `prefix` then the names, comma-separated, on comment lines of at most ~118 characters. */
function wrapComment(prefix: string, names: string[]): string {
  const lines: string[] = [];
  let line = prefix;
  for (const [i, n] of names.entries()) {
    const piece = n + (i < names.length - 1 ? ',' : '');
    if (line !== prefix && line.length + piece.length > 118) {
      lines.push(line.trimEnd());
      line = '#   ';
    }
    line += piece + ' ';
  }
  lines.push(line.trimEnd());
  return lines.join('\n') + '\n';
}

/**
 * What calling into a statement's code may read: the names its function bodies read (`lateDeps`), and theirs in
 * turn; through a namespace, its members'. A statement that reads a function at import time (a decorator, a
 * default `f()`, a base class whose `__init_subclass__` runs) must come after all of it (a soft edge, order.ts).
 */
export function lateReach(c: Closure): (key: string) => Set<string> {
  const memo = new Map<string, Set<string>>();
  const next = (key: string): Iterable<string> => {
    const st = c.stmts.get(key);
    if (st) return st.lateDeps;
    const ns = c.namespaces.get(key);
    return ns ? [...ns.members.values()].map((m) => c.bindings.get(m)!.by) : [];
  };
  return (start) => {
    let out = memo.get(start);
    if (out) return out;
    out = new Set();
    const stack = [...next(start)];
    while (stack.length) {
      const k = stack.pop()!;
      if (out.has(k)) continue;
      out.add(k);
      stack.push(...next(k));
    }
    memo.set(start, out);
    return out;
  };
}

/** A statement's upstream text with renames and internal-import rewrites applied at their byte spans. */
export function statementText(
  st: IncludedStmt,
  c: Closure,
  plan: ReturnType<typeof planNames>,
  bytes: Buffer,
  diagnostics: Diagnostic[],
  /**
   * What a nested import of internal names binds them with, instead of assignments to module-level definitions:
   * a package module (package.ts) keeps a function's import lazy, `from ..v2 import functional as F` → an import
   * from the package's module holding each name, so modules that import each other only when called stay apart.
   */
  nested?: (rw: ImportRewrite) => string[] | null,
  /** The whole closure, when `c` holds one package module's statements only (package.ts): where classes are. */
  whole: Closure = c,
): string {
  const facts = st.mod.facts.statements[st.stmt];
  const edits: Edit[] = [];
  for (const ref of [...facts.eager, ...facts.deferred, ...facts.rebinds]) {
    const key = st.refs.get(ref.name);
    if (!key) continue;
    const name = plan.emitted.get(key)!;
    if (name === ref.name) continue;
    for (const occ of ref.occurrences) edits.push({ start: occ.startByte, end: occ.endByte, text: name });
  }
  for (const rw of st.importRewrites) {
    const parts: string[] = [];
    if (rw.absolute !== undefined) {
      const internal = new Set(rw.binds.map((b) => b.bound));
      const names = rw.imp.star
        ? ['*']
        : rw.imp.names
            .filter((n) => !internal.has(n.bound))
            .map((n) => (n.asname ? `${n.name} as ${n.asname}` : n.name));
      if (names.length) parts.push(`from ${rw.absolute} import ${names.join(', ')}`);
    }
    const lazy = nested?.(rw);
    if (lazy) parts.push(...lazy);
    else
      for (const b of rw.binds) {
        if (plan.emitted.get(b.binding) !== b.bound) parts.push(`${b.bound} = ${plan.emitted.get(b.binding)}`);
      }
    edits.push({
      start: rw.imp.span.startByte,
      end: rw.imp.span.endByte,
      text: parts.length ? parts.join('; ') : 'pass  # nnblocks: internal import, defined at module level',
    });
  }
  edits.push(...registryScopeEdits(st, c, whole, bytes));
  let text = bytes.subarray(facts.span.startByte, facts.span.endByte).toString('utf8');
  const base = facts.span.startByte;
  // The statement's own definition name, when its binding was renamed to resolve a clash.
  for (const [key, b] of c.bindings) {
    if (b.by !== st.key || !plan.renamed.has(key) || b.kind !== 'def') continue;
    // Bound only through `global` in a function here: renamed at its occurrences above.
    if (!facts.binds.includes(b.name) && facts.rebinds.some((r) => r.name === b.name)) continue;
    const def = definitionName(text, facts.kind, b.name);
    if (!def) {
      diagnostics.push({
        code: 'rename-failed',
        severity: 'warning',
        stage: 'assemble',
        source: st.mod.sourceId,
        path: st.mod.path,
        span: facts.span,
        message: `could not rename '${b.name}' in a ${facts.kind} statement to resolve a name clash`,
      });
      continue;
    }
    edits.push({ start: base + def.at, end: base + def.at + def.bytes, text: plan.emitted.get(key)! });
  }
  // Edits inside a left-out dict entry go with it.
  const cuts = droppedEntries(st);
  const all = edits.filter((e) => !cuts.some((d) => e.start >= d.start && e.end <= d.end)).concat(cuts);
  all.sort((a, b) => b.start - a.start);
  let buf = Buffer.from(text, 'utf8');
  let last = Infinity;
  for (const e of all) {
    if (e.end > last) continue; // overlapping edit (shouldn't happen): keep the first, stay valid
    const s = e.start - base;
    buf = Buffer.concat([buf.subarray(0, s), Buffer.from(e.text), buf.subarray(e.end - base)]);
    last = e.start;
  }
  text = buf.toString('utf8');
  return text;
}

/**
 * A dict literal read only with literal keys loses the entries nobody reads (closure `keptEntries`): each goes
 * with its comma and the space up to the next entry, so what stays is valid Python.
 *   ACTS = {'relu': nn.ReLU, 'mish': Mish}     # only ACTS['relu'] read  →  ACTS = {'relu': nn.ReLU, }
 */
function droppedEntries(st: IncludedStmt): Edit[] {
  const dict = st.mod.facts.statements[st.stmt].dict;
  if (!dict || !st.keptEntries) return [];
  const out: Edit[] = [];
  dict.entries.forEach((e, i) => {
    if (st.keptEntries!.has(i)) return;
    const next = dict.entries[i + 1];
    out.push({ start: e.startByte, end: next ? next.startByte : e.endByte, text: '' });
  });
  return out;
}

/**
 * Byte offset and length (in the statement's UTF-8 text) of the name a class/def/assignment binds, or null.
 * Names are matched as Python reads them (PEP 3131, NFKC): `class Ｂlock` binds `Block`.
 */
function definitionName(text: string, kind: string, name: string): { at: number; bytes: number } | null {
  const ident = '[\\p{XID_Start}_][\\p{XID_Continue}]*';
  if (kind === 'for') return forTargetName(text, name);
  const re =
    kind === 'class'
      ? new RegExp(`^\\s*class\\s+(${ident})`, 'gmu')
      : kind === 'function'
        ? new RegExp(`^\\s*(?:async\\s+)?def\\s+(${ident})`, 'gmu')
        : kind === 'assign'
          ? new RegExp(`^(${ident})`, 'gu')
          : null;
  if (!re) return null;
  for (const m of text.matchAll(re)) {
    if (pyName(m[1]) !== name) continue;
    const charIndex = m.index + m[0].length - m[1].length;
    return { at: Buffer.byteLength(text.slice(0, charIndex)), bytes: Buffer.byteLength(m[1]) };
  }
  return null;
}

/**
 * Where a module-level `for` loop binds `name` in its target (`for model_type, classes in TABLE.items():`), as
 * definitionName: transformers' image and video processor tables each have a loop binding `model_type`.
 */
function forTargetName(text: string, name: string): { at: number; bytes: number } | null {
  const head = /^\s*(?:async\s+)?for\b/u.exec(text);
  if (!head) return null;
  const rest = text.slice(head[0].length);
  const end = rest.search(/\bin\b/u);
  if (end < 0) return null;
  for (const m of rest.slice(0, end).matchAll(/[\p{XID_Start}_][\p{XID_Continue}]*/gu)) {
    if (pyName(m[0]) !== name) continue;
    const charIndex = head[0].length + m.index;
    return { at: Buffer.byteLength(text.slice(0, charIndex)), bytes: Buffer.byteLength(m[0]) };
  }
  return null;
}

/** Dotted modules the header imports load themselves: `import a.b` loads a and a.b; `from a.b import c`, a.b.c. */
export function importedModules(c: Closure): Set<string> {
  const out = new Set<string>();
  const add = (dotted: string) => dotted.split('.').forEach((_, i, parts) => out.add(parts.slice(0, i + 1).join('.')));
  for (const st of c.stmts.values()) {
    if (!st.headerImport) continue;
    for (const imp of st.mod.facts.imports) {
      if (imp.statementIndex !== st.stmt || imp.scope !== 'module' || imp.level > 0) continue;
      if (imp.kind === 'import') imp.names.forEach((n) => add(n.name));
      else imp.names.forEach((n) => add(`${imp.module}.${n.name}`));
    }
  }
  return out;
}

/**
 * Import lines for a header import statement: verbatim, unless a name it binds was renamed, or it is relative or
 * of the block's own package (`rewriteImport`): then one absolute import per name, of the needed names only.
 *   from .sub import X, Y        # pkg/sub.py not indexed, only X needed  →  from pkg.sub import X
 */
export function importLines(
  st: IncludedStmt,
  c: Closure,
  emitted: Map<string, string>,
  readText: (mod: IndexedModule) => Buffer,
): { text: string; top: string; future: boolean }[] {
  const facts = st.mod.facts.statements[st.stmt];
  const imps = st.mod.facts.imports.filter((i) => i.statementIndex === st.stmt && i.scope === 'module');
  const future = imps.some((i) => i.future);
  const top = imps[0]
    ? (imps[0].kind === 'import' ? (imps[0].names[0]?.name ?? '') : imps[0].module).split('.')[0]
    : '';
  const mine = [...c.bindings.values()].filter(
    (b) => b.by === st.key && b.kind === 'external' && (b.needed || !st.rewriteImport),
  );
  if (!st.rewriteImport && mine.every((b) => emitted.get(b.key) === b.name) && !clobbers(imps, emitted)) {
    return [
      { text: readText(st.mod).subarray(facts.span.startByte, facts.span.endByte).toString('utf8'), top, future },
    ];
  }
  // One line per needed name, a star import's too (`from .ext import *` → `from pkg.ext import fast_op`); a name
  // nothing reads that another binding holds is left out.
  const taken = claimsOf(emitted);
  const kept = mine.filter((b) => b.needed || (taken.get(emitted.get(b.key)!) ?? []).every((k) => k === b.key));
  return kept.map((b) => {
    const qualified = b.key.split('\0')[1];
    const name = emitted.get(b.key)!;
    const dot = qualified.lastIndexOf('.');
    const member = qualified.slice(dot + 1);
    const text =
      dot < 0
        ? `import ${qualified}${name === qualified ? '' : ` as ${name}`}`
        : `from ${qualified.slice(0, dot)} import ${member}${name === member ? '' : ` as ${name}`}`;
    return { text, top: qualified.split('.')[0], future: false };
  });
}

const claimTables = new WeakMap<Map<string, string>, Map<string, string[]>>();

/** Emitted name → the binding keys emitted under it (one, unless bindings of one object share it). */
function claimsOf(emitted: Map<string, string>): Map<string, string[]> {
  let table = claimTables.get(emitted);
  if (!table) {
    table = new Map();
    for (const [key, name] of emitted) table.set(name, [...(table.get(name) ?? []), key]);
    claimTables.set(emitted, table);
  }
  return table;
}

/**
 * Whether copying an absolute `from` import verbatim would bind a name the module holds for another object: an
 * import statement binds every name it lists, also those nothing in the closure reads through it. PyG's
 *   from inspect import Parameter                               # inspector.py: `Parameter.empty`
 *   from torch.nn import LayerNorm, Linear, Parameter           # another module, which never reads Parameter
 * copied as they are, the second rebinds `Parameter`, and `Parameter.empty` fails.
 */
function clobbers(imps: ImportFact[], emitted: Map<string, string>): boolean {
  const taken = claimsOf(emitted);
  return imps.some(
    (i) =>
      i.kind === 'from' &&
      i.level === 0 &&
      i.names.some((n) => {
        const own = externalKey(`${i.module}.${n.name}`, n.bound);
        return (taken.get(n.bound) ?? []).some((k) => k !== own);
      }),
  );
}

/** The line that builds the namespace standing in for a module object (closure-record.ts, NamespaceNode). */
export function namespaceStatement(ns: NamespaceNode, name: string, members: string): string {
  const which = ns.complete ? 'every public member: used as an object' : 'only the members used';
  return `# nnblocks: namespace standing in for module object '${ns.key.split('\0')[2]}' (${which})\n${name} = _nnb_SimpleNamespace(${members})`;
}
