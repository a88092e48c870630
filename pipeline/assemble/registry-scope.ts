// Registries that name their scope after the module that makes them. OpenMMLab's
//   MODELS = Registry('model', parent=MMENGINE_MODELS, locations=['mmdet.models'])      # mmdet/registry.py
// takes scope `mmdet`: `Registry.infer_scope` reads the first part of the calling module's `__name__`. Emitted,
// every registry is made by one module (or one package), so every registry infers that one name. Two packages'
// registries under one parent then clash (`AssertionError: scope … exists in model registry`: mmpretrain's hivit
// reaches mmdet's registry and its own), and a scoped key (`type='mmdet.CrossEntropyLoss'`,
// `'mmengine.GELU'`) no longer finds its registry. So a call to such a class that leaves the scope to be inferred
// gets the scope it infers upstream written out as a keyword: the one edit to upstream text that is not a rename,
// and it gives the call exactly the value it has in its own package.
import type { Closure, IncludedStmt } from '../resolve/closure-record.ts';

/** An edit to upstream text at exact byte offsets (emit.ts applies them). */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A class that infers its scope from its caller: it defines `infer_scope` (mmengine's `Registry`). */
function infersScope(c: Closure, whole: Closure, key: string): boolean {
  const b = c.bindings.get(key) ?? whole.bindings.get(key);
  if (!b) return false;
  if (b.kind === 'external') return /^mmengine(?:\.[\w.]+)?\.Registry$/.test(key.split('\0')[1] ?? '');
  if (b.kind !== 'def') return false;
  const st = whole.stmts.get(b.by);
  if (!st) return false;
  const cls = st.mod.facts.classes.find((k) => k.statementIndex === st.stmt && k.qualname === b.name);
  return cls?.methods.some((m) => m.name === 'infer_scope') ?? false;
}

/**
 * Insertions of `scope='<package>'` into the calls of statement `st` to a class that infers its scope, where the
 * call names no scope itself, at byte offsets of `bytes` (the module's text). `c`: the closure (or one package
 * module's view of it) that `st` reads through; `whole`: the closure, where the classes are.
 */
export function registryScopeEdits(st: IncludedStmt, c: Closure, whole: Closure, bytes: Buffer): Edit[] {
  const top = st.mod.module?.split('.')[0];
  if (!top) return [];
  const facts = st.mod.facts.statements[st.stmt];
  const out: Edit[] = [];
  for (const ref of [...facts.eager, ...facts.deferred]) {
    const key = st.refs.get(ref.name);
    if (!key || !infersScope(c, whole, key)) continue;
    for (const occ of ref.occurrences) {
      const at = callArguments(bytes, occ.endByte, facts.span.endByte);
      if (!at || /(?:^|[(,]\s*)scope\s*=/.test(at.text) || /\*\*/.test(at.text)) continue;
      out.push(scopeKeyword(at, top));
    }
  }
  return out;
}

/**
 * The keyword, placed as the call's own arguments are: one per line after a trailing comma, else after the last.
 *   Registry('model', parent=MODELS)       →  Registry('model', parent=MODELS, scope='mmdet')
 *   Registry(                              →  Registry(
 *       'model',                                   'model',
 *       locations=['mmpretrain.models'],           locations=['mmpretrain.models'],
 *   )                                              scope='mmpretrain',
 *                                              )
 */
function scopeKeyword(at: { text: string; start: number; close: number }, top: string): Edit {
  const before = at.text.replace(/\s+$/, '');
  const keyword = `scope='${top}'`;
  if (before.endsWith(',') && at.text.slice(before.length).includes('\n')) {
    const lineStart = before.lastIndexOf('\n') + 1;
    const indent = /^[ \t]*/.exec(before.slice(lineStart))![0];
    const after = at.start + Buffer.byteLength(before);
    return { start: after, end: after, text: `\n${indent}${keyword},` };
  }
  const sep = before.endsWith('(') ? '' : before.endsWith(',') ? ' ' : ', ';
  return { start: at.close, end: at.close, text: sep + keyword };
}

/**
 * The argument text of a call whose callee ends at `from` (`Registry` ↑`(...)`), from its opening parenthesis up to
 * its closing one, and their offsets; null when no call follows. Strings and comments are skipped, so a `)` in
 * `Registry('a)')` does not end it.
 */
function callArguments(
  bytes: Buffer,
  from: number,
  limit: number,
): { text: string; start: number; close: number } | null {
  let i = from;
  while (i < limit && (bytes[i] === 0x20 || bytes[i] === 0x09)) i++;
  if (bytes[i] !== 0x28) return null; // '('
  let depth = 0;
  for (let j = i; j < limit; j++) {
    const ch = bytes[j];
    if (ch === 0x23) {
      while (j < limit && bytes[j] !== 0x0a) j++; // a comment, to the end of its line
    } else if (ch === 0x27 || ch === 0x22) {
      const triple = bytes[j + 1] === ch && bytes[j + 2] === ch;
      const end = triple ? bytes.indexOf(Buffer.from(String.fromCharCode(ch).repeat(3)), j + 3) : -1;
      if (triple) j = end < 0 ? limit : end + 2;
      else {
        for (j++; j < limit && bytes[j] !== ch && bytes[j] !== 0x0a; j++) if (bytes[j] === 0x5c) j++;
      }
    } else if (ch === 0x28 || ch === 0x5b || ch === 0x7b) depth++;
    else if (ch === 0x29 || ch === 0x5d || ch === 0x7d) {
      depth--;
      if (depth === 0) return { text: bytes.subarray(i, j).toString('utf8'), start: i, close: j };
    }
  }
  return null;
}
