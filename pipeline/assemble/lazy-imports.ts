// Imports that only function bodies read (docs/resolve.md, "Imports only function bodies read"). Upstream, a
// package imports an optional library in the one module that needs it, and imports that module from inside a
// function, when it is called:
//   def _load_from_flax(...):                                  # transformers/modeling_utils.py
//       from .modeling_flax_pytorch_utils import load_flax_checkpoint_in_pytorch_model
// An emitted module holds that function's definitions at module level, so the module's own imports
// (`import jax`, `from flax.serialization import from_bytes`) became imports of the block's module, and every
// transformers model was `blocked` by tensorflow, flax and jax, which nothing it runs needs (56 blocks of the paper's
// corpus; yolov9's 16 by `pkg_resources`, read only in a version check). An import whose names no statement reads
// at import time is now attempted, and a module that is not installed binds a stand-in that raises the import's own
// error where a function body first uses it, as upstream's import would have when the function was called.
import type { BindingKey, Closure, IncludedStmt } from '../resolve/closure-record.ts';
import { STDLIB } from './stdlib.ts';

/**
 * The statements something else reads when the module is imported (not only in a function body): their imports
 * must stay as they are. A statement reading what it binds itself (`parse(keras.__version__)` after `import keras`)
 * does not count; a namespace statement reads its members when it runs, at import.
 */
export function readAtImport(c: Closure): Set<string> {
  const out = new Set<string>();
  const read = (key: BindingKey | undefined, by: string) => {
    const binder = key === undefined ? undefined : c.bindings.get(key)?.by;
    if (binder !== undefined && binder !== by) out.add(binder);
  };
  for (const st of c.stmts.values()) {
    if (st.headerImport) continue;
    const facts = st.mod.facts.statements[st.stmt];
    for (const name of [...facts.eager.map((r) => r.name), ...facts.mutates]) read(st.refs.get(name), st.key);
  }
  for (const ns of c.namespaces.values()) for (const member of ns.members.values()) read(member, ns.key);
  return out;
}

/** The stand-in a guarded import binds when its module is missing (defined once, before the first guard). */
export const ABSENT_HELPER = [
  'class _nnb_absent:',
  '    """nnblocks: what an import binds when its module is not installed and only function bodies read it:',
  '    using it raises the import\'s error, where upstream\'s import would have raised it (see the imports below)."""',
  '',
  '    def __init__(self, error):',
  '        self._nnb_error = error',
  '',
  '    def __getattr__(self, name):',
  "        if name.startswith('__'):",
  '            raise AttributeError(name)',
  '        raise ModuleNotFoundError(str(self._nnb_error), name=getattr(self._nnb_error, "name", None))',
  '',
  '    def __call__(self, *args, **kwargs):',
  '        raise ModuleNotFoundError(str(self._nnb_error), name=getattr(self._nnb_error, "name", None))',
].join('\n');

/**
 * An import line wrapped so that a missing module binds `_nnb_absent` stand-ins for the names it binds; null when
 * the line is not one plain import statement (then it stays as it is).
 *   import tensorflow as tf     →   try:
 *                                        import tensorflow as tf
 *                                    except ImportError as _nnb_error:  # nnblocks: only function bodies read it
 *                                        tf = _nnb_absent(_nnb_error)
 */
export function absentGuard(text: string): string | null {
  const names = importedNames(text);
  if (!names?.length) return null;
  const body = text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  const bind = names.map((n) => `    ${n} = _nnb_absent(_nnb_error)`).join('\n');
  return `try:\n${body}\nexcept ImportError as _nnb_error:  # nnblocks: only function bodies read it\n${bind}`;
}

const IDENT = /^[A-Za-z_]\w*$/;

/** The names an `import`/`from … import` statement binds, or null when it is not one such statement. */
export function importedNames(text: string): string[] | null {
  // Comments and line continuations go; an import statement holds no string literal.
  const flat = text
    .replace(/#[^\n]*/g, '')
    .replace(/\\\n/g, ' ')
    .replace(/[()]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (/[;'"*]/.test(flat)) return null;
  const from = /^from \.*[\w.]* import (.+)$/.exec(flat);
  const plain = /^import (.+)$/.exec(flat);
  const items = (from ?? plain)?.[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items) return null;
  const out: string[] = [];
  for (const item of items) {
    const m = /^([\w.]+)(?: as (\w+))?$/.exec(item);
    if (!m) return null;
    const name = m[2] ?? (from ? m[1] : m[1].split('.')[0]);
    if (!IDENT.test(name)) return null;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * A module-level `try`/`if` that imports a third-party module and binds only names that function bodies read,
 * wrapped like an import line (absentGuard); null when it is not one, or when its text holds a triple-quoted string
 * (indenting it would change the string). transformers' `modeling_tf_utils.py`:
 *   try:                                       try:
 *       import tf_keras as keras                   try:
 *   except (ModuleNotFoundError, ImportError):         import tf_keras as keras
 *       import keras                               except (ModuleNotFoundError, ImportError):
 *                                                      import keras
 *                                              except ImportError as _nnb_error:  # nnblocks: ...
 *                                                  keras = _nnb_absent(_nnb_error)
 */
export function guardedStatement(
  st: IncludedStmt,
  c: Closure,
  /** readAtImport's statements. */
  eager: Set<string>,
  /** The statement's module's upstream text, and the statement as emitted (renames applied). */
  bytes: Buffer,
  text: string,
  runtime: (top: string) => boolean,
  /** The emitted name of a binding (a clash may have renamed it). */
  nameOf: (key: BindingKey) => string,
): string | null {
  const facts = st.mod.facts.statements[st.stmt];
  if ((facts.kind !== 'try' && facts.kind !== 'if') || !facts.binds.length || /'''|"""/.test(text)) return null;
  // A `try`'s own imports may fail into its handler (`try: import apex` / `except ImportError: apex = None`): only
  // an import in a handler, or after it, can fail out of the statement.
  const raw = bytes.subarray(facts.span.startByte, facts.span.endByte).toString('utf8');
  const handler =
    facts.kind === 'try' ? facts.span.startLine + raw.split('\n').findIndex((l) => /^except\b/.test(l)) : -1;
  if (facts.kind === 'try' && handler < facts.span.startLine) return null;
  const outside = st.mod.facts.imports.some((i) => {
    if (i.statementIndex !== st.stmt || i.scope !== 'module' || i.level > 0 || i.future) return false;
    if (i.span.startLine < handler) return false;
    const top = (i.kind === 'import' ? (i.names[0]?.name ?? '') : i.module).split('.')[0];
    return top !== '' && !STDLIB.has(top) && !runtime(top);
  });
  if (!outside || eager.has(st.key)) return null;
  const body = text
    .split('\n')
    .map((l) => (l ? `    ${l}` : l))
    .join('\n');
  const emitted = (name: string): string => {
    for (const [key, b] of c.bindings) if (b.by === st.key && b.name === name) return nameOf(key);
    return name;
  };
  const bind = facts.binds.map((n) => `    ${emitted(n)} = _nnb_absent(_nnb_error)`).join('\n');
  return `try:\n${body}\nexcept ImportError as _nnb_error:  # nnblocks: only function bodies read what it binds\n${bind}`;
}
