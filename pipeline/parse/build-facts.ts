// Turns the walker's raw records into ModuleFacts: resolves every recorded read against the finished scope
// table, keeps the free ones (module-level or builtin) per top-level statement, split eager/deferred.
import type { Diagnostic } from '../diagnostics.ts';
import { literalKey } from './dict-entries.ts';
import {
  PARSER_VERSION,
  type AllFact,
  type DictFact,
  type ImportFact,
  type ModuleFacts,
  type NameOccurrence,
  type NameRef,
  type TopStatement,
  type UsageFacts,
} from './facts.ts';
import { stringSequence } from './literals.ts';
import type { TextMap } from './text-map.ts';
import { MAX_NESTING, NO_ATTRS, type GuardFrame } from './walk-state.ts';
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

export function buildFacts(
  w: ModuleWalker,
  map: TextMap,
  encoding: string,
  diagnostics: Diagnostic[],
  errorRanges: [number, number][],
  dicts: (DictFact | undefined)[] = [],
  usage: UsageFacts = { scopes: [''], calls: [], links: [] },
): ModuleFacts {
  const eager: (Refs | undefined)[] = new Array(w.statements.length);
  const deferred: (Refs | undefined)[] = new Array(w.statements.length);
  const { scopes } = w;
  for (const r of w.refs) {
    if (scopes.lookup(r.scope, r.name, r.pos).kind !== 'module') continue;
    const table = r.deferred ? deferred : eager;
    const refs = (table[r.stmt] ??= new Map());
    let list = refs.get(r.name);
    if (!list) refs.set(r.name, (list = []));
    const occ: NameOccurrence = {
      startByte: map.byte(r.pos),
      endByte: map.byte(r.end),
      attrs: r.attrs === NO_ATTRS ? [] : r.attrs,
    };
    const key = literalKey(map.text, r.end, occ.attrs);
    if (key !== undefined) occ.key = key;
    list.push(occ);
  }
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
    if (dicts[index] && !hasError) st.dict = dicts[index];
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
