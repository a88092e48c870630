// Turns the walker's raw records into ModuleFacts: resolves every recorded read against the finished scope
// table, keeps the free ones (module-level or builtin) per top-level statement, split eager/deferred.
import type { Diagnostic } from '../contract/diagnostics.ts';
import { attrReads, getattrName } from './attr-reads.ts';
import { pyName } from '../util/identifier.ts';
import { literalKey } from './dict-entries.ts';
import {
  PARSER_VERSION,
  type AllFact,
  type AttrReads,
  type DictFact,
  type ImportFact,
  type ImportedName,
  type ModuleFacts,
  type NameOccurrence,
  type NameRef,
  type TopStatement,
  type UsageFacts,
} from './facts.ts';
import { stringSequence } from './literals.ts';
import type { TextMap } from './text-map.ts';
import { MAX_NESTING, NO_ATTRS, type GuardFrame, type RawRef } from './walk-state.ts';
import type { ModuleWalker } from './walk-stmt.ts';

type Refs = Map<string, NameOccurrence[]>;

function toNameRefs(refs: Refs | undefined): NameRef[] {
  if (!refs) return [];
  const out: NameRef[] = [];
  for (const [name, occurrences] of refs) {
    // The walk is in source order except where Python's evaluation order differs; keep occurrences sorted.
    for (let i = 1; i < occurrences.length; i++) {
      if (occurrences[i].startByte < occurrences[i - 1].startByte) {
        occurrences.sort((a, b) => a.startByte - b.startByte);
        break;
      }
    }
    out.push({ name, occurrences });
  }
  return out;
}

/** The guard an import sits under: the nearest `if`, or `try` whose handlers catch ImportError. */
function guardOf(frame: GuardFrame | null): ImportFact['guard'] {
  for (let f = frame; f; f = f.parent) if (f.kind !== 'try' || f.catches) return f.kind;
  return undefined;
}

function tooDeep(map: TextMap, start: number, end: number): Diagnostic {
  return {
    code: 'nesting-too-deep',
    severity: 'error',
    stage: 'parse',
    message: `statement at line ${map.line(start)} nests expressions or blocks more than ${MAX_NESTING} levels deep; it is indexed as binding and reading nothing`,
    hint: 'CPython refuses such code too (RecursionError or "too many nested parentheses"); the rest of the file is indexed',
    span: map.span(start, end),
  };
}

function allFact(w: ModuleWalker): AllFact | null {
  if (w.allOps.length === 0) return null;
  const names: string[] = [];
  let dynamic = false;
  for (const op of w.allOps) {
    const seq = stringSequence(op.text, op.op === 'append');
    if (op.op === 'assign') names.length = 0; // `__all__ = [...]` replaces what came before
    names.push(...seq.names);
    dynamic ||= seq.dynamic;
  }
  return { names: [...new Set(names)], dynamic };
}

/**
 * Attribute reads of each method body (set on the method, with the body's span) and of each statement outside
 * its method bodies (returned by statement index), for method-level reachability (docs/resolve.md, "Methods").
 * Methods of a class defined inside a function are part of that function's body. Type-test ranges found on the
 * way are appended to `typeTests`.
 */
function scanAttrReads(w: ModuleWalker, map: TextMap, typeTests: [number, number][]): (AttrReads | undefined)[] {
  const bodies = new Map<number, [number, number][]>();
  for (const { fact, start, end } of w.methodBodies) {
    if (fact.qualname.includes('<locals>')) continue;
    fact.body = { startByte: map.byte(start), endByte: map.byte(end) };
    const selfName = fact.decorators.includes('staticmethod') ? undefined : fact.params[0]?.name;
    fact.attrReads = withReceivers(attrReads(map.text, [[start, end]], { selfName }, typeTests), map);
    let list = bodies.get(fact.statementIndex);
    if (!list) bodies.set(fact.statementIndex, (list = []));
    list.push([start, end]);
  }
  const definesClass = new Set<number>();
  for (const c of w.classes) if (!c.qualname.includes('<locals>')) definesClass.add(c.statementIndex);
  return w.statements.map((s, index) => {
    if (s.kind === 'import') return undefined;
    const ranges: [number, number][] = [];
    let at = s.start;
    for (const [start, end] of (bodies.get(index) ?? []).sort((a, b) => a[0] - b[0])) {
      if (start > at) ranges.push([at, start]);
      at = Math.max(at, end);
    }
    if (s.end > at) ranges.push([at, s.end]);
    const reads = withReceivers(attrReads(map.text, ranges, { identifiers: definesClass.has(index) }, typeTests), map);
    return reads.names.length || reads.dynamic || reads.dynamicOn ? reads : undefined;
  });
}

/** The names imports nested in a function or class body bind, by `${scope}\0${bound name}`. */
function nestedImportNames(w: ModuleWalker): Map<string, ImportedName[]> {
  const out = new Map<string, ImportedName[]>();
  for (const { fact, scope } of w.imports) {
    if (scope === 0) continue;
    for (const n of fact.names) {
      const key = `${scope}\0${n.bound}`;
      const list = out.get(key);
      if (list) list.push(n);
      else out.set(key, [n]);
    }
  }
  return out;
}

function withReceivers({ reads, receivers }: ReturnType<typeof attrReads>, map: TextMap): AttrReads {
  if (receivers.length) reads.dynamicOn = receivers.map((r) => ({ name: r.name, startByte: map.byte(r.pos) }));
  return reads;
}

/** Whether a position lies in one of the ranges (sorted and merged here once). */
function rangeTest(ranges: [number, number][]): (pos: number) => boolean {
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return (pos) => {
    let lo = 0;
    let hi = merged.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (pos < merged[mid][0]) hi = mid - 1;
      else if (pos >= merged[mid][1]) lo = mid + 1;
      else return true;
    }
    return false;
  };
}

export function buildFacts(
  w: ModuleWalker,
  map: TextMap,
  encoding: string,
  diagnostics: Diagnostic[],
  errorRanges: [number, number][],
  dicts: (DictFact | undefined)[] = [],
  usage: UsageFacts = { scopes: [''], calls: [], links: [] },
): ModuleFacts {
  const typeTests = w.typeRanges.slice();
  const reads = scanAttrReads(w, map, typeTests);
  const isTypeTest = rangeTest(typeTests);
  const eager: (Refs | undefined)[] = new Array(w.statements.length);
  const deferred: (Refs | undefined)[] = new Array(w.statements.length);
  const { scopes } = w;
  const occurrence = (r: RawRef): NameOccurrence => {
    const occ: NameOccurrence = {
      startByte: map.byte(r.pos),
      endByte: map.byte(r.end),
      attrs: r.attrs === NO_ATTRS ? [] : r.attrs,
    };
    const key = literalKey(map.text, r.end, occ.attrs);
    if (key !== undefined) occ.key = key;
    else if (occ.attrs.length === 0) {
      const read = getattrName(map.text, r.pos, r.end);
      if (read && 'attr' in read) occ.attrs = [read.attr];
      else if (read) occ.via = pyName(read.via);
    }
    if (isTypeTest(r.pos)) occ.typeOnly = true;
    return occ;
  };
  const nested = nestedImportNames(w);
  for (const r of w.refs) {
    const found = scopes.lookup(r.scope, r.name, r.pos);
    if (found.kind === 'local') {
      // A read of a name a function-local import binds: one of that import's uses.
      const names = nested.get(`${found.scope}\0${r.name}`);
      if (names) {
        const occ = occurrence(r);
        for (const n of names) (n.uses ??= []).push(occ);
      }
      continue;
    }
    const table = r.deferred ? deferred : eager;
    const refs = (table[r.stmt] ??= new Map());
    let list = refs.get(r.name);
    if (!list) refs.set(r.name, (list = []));
    list.push(occurrence(r));
  }
  for (const names of nested.values()) for (const n of names) n.uses?.sort((a, b) => a.startByte - b.startByte);
  for (const r of w.mutations) {
    if (scopes.lookup(r.scope, r.name, r.pos).kind === 'module') w.statements[r.stmt].mutates.add(r.name);
  }

  let e = 0;
  const statements: TopStatement[] = w.statements.map((s, index) => {
    // Error ranges and statements are both in source order: one merge pass marks the broken statements.
    while (e < errorRanges.length && errorRanges[e][0] < s.start) e++;
    let hasError = s.tooDeep === true;
    for (let k = e; k < errorRanges.length && errorRanges[k][0] <= s.end; k++) {
      if (errorRanges[k][0] >= s.start) hasError = true;
    }
    if (s.tooDeep) diagnostics.push(tooDeep(map, s.start, s.end));
    const binds = [...s.binds];
    const rebinds: NameRef[] = [];
    for (const [name, spans] of s.rebinds) {
      const occurrences = spans
        .sort((a, b) => a.pos - b.pos)
        .map((sp) => ({ startByte: map.byte(sp.pos), endByte: map.byte(sp.end), attrs: [] }));
      rebinds.push({ name, occurrences });
    }
    const st: TopStatement = {
      index,
      kind: s.kind,
      span: map.span(s.start, s.end),
      binds,
      eager: toNameRefs(eager[index]),
      deferred: toNameRefs(deferred[index]),
      rebinds,
      mutates: [...s.mutates],
      sideEffect: binds.length === 0 && s.kind !== 'import' && s.kind !== 'class' && s.kind !== 'function',
      hasError,
    };
    const typing = [...s.typing].filter((n) => !s.binds.has(n));
    if (typing.length) st.typing = typing;
    if (s.typingBodies.length)
      st.typeChecking = s.typingBodies.map((b) => ({ startByte: map.byte(b.pos), endByte: map.byte(b.end) }));
    if (dicts[index] && !hasError) st.dict = dicts[index];
    if (reads[index]) st.attrReads = reads[index];
    return st;
  });

  const imports = w.imports.map(({ fact, frame }) => {
    const guard = guardOf(frame);
    if (guard) fact.guard = guard;
    return fact;
  });

  return {
    parserVersion: PARSER_VERSION,
    encoding,
    lineCount: map.lineCount,
    statements,
    imports,
    classes: w.classes,
    functions: w.functions,
    all: allFact(w),
    diagnostics,
    usage,
  };
}
