// Chooses the name each needed binding gets in the emitted module. Upstream names are kept; when two different
// bindings want one name (class `Block` in two modules), the later one gets a suffix and every reference to it
// is rewritten at its exact bytes, so neither definition is dropped and each reference reaches the right one.
// The bindings of one module-level name at several statements are one variable: they share their emitted name,
// so a rebinding still rebinds what an earlier statement read (`cfgs = {...}`, `cfgs = wrap(cfgs)`).
import type { Binding, BindingKey, Closure } from '../resolve/closure-record.ts';

export interface NamePlan {
  /** Binding key → emitted name. */
  emitted: Map<BindingKey, string>;
  /** Binding keys whose emitted name differs from the upstream one. */
  renamed: Set<BindingKey>;
}

const RESERVED = new Set(['_nnb_SimpleNamespace']);

export function planNames(
  c: Closure,
  moduleLabel: (b: Binding) => string,
  /**
   * Whether the statement of a definition can be renamed at its bytes (`class X`, `def X`, `X = ...`). A name a
   * compound statement binds can't (`try: import torch_mlu; AVAILABLE = True` / `except: AVAILABLE = False`):
   * on a clash it keeps its name and the other binding is renamed.
   */
  renamable: (b: Binding) => boolean = () => true,
  /**
   * Bindings that keep their names before the others (after the block's and the imports'): by default those of the
   * block's own statement; in a package module (package.ts), its own definitions before what it imports.
   */
  own?: (b: Binding) => boolean,
): NamePlan {
  const emitted = new Map<BindingKey, string>();
  const renamed = new Set<BindingKey>();
  /** Emitted name → the variable holding it. */
  const taken = new Map<string, string>();
  // A package module (package.ts) holds no block's closure of its own: it may hold no block at all.
  const blockStmt = c.bindings.get(c.blockKey)?.by;
  const isOwn = own ?? ((b: Binding) => b.by === blockStmt);
  // A definition's variable: its module and name (every statement binding it there); any other binding is its own.
  const variable = (b: Binding) => {
    const st = b.kind === 'def' ? c.stmts.get(b.by) : undefined;
    return st ? `${st.mod.sourceId}\0${st.mod.path}\0${b.name}` : b.key;
  };
  const members = new Map<string, Binding[]>();
  for (const b of c.bindings.values()) {
    const list = members.get(variable(b));
    if (list) list.push(b);
    else members.set(variable(b), [b]);
  }
  const shared = new Map<string, number>();
  for (const [first] of members.values()) shared.set(first.name, (shared.get(first.name) ?? 0) + 1);
  // The block keeps its own name (the manifest promises it); imports keep theirs so they stay verbatim; then
  // definitions that can't be renamed, definitions of the block's own module, then the rest in a stable order.
  // A variable ranks as its first-ranked binding, and can be renamed only where each of its bindings can.
  const rankOne = (b: Binding) =>
    b.key === c.blockKey
      ? 0
      : b.kind === 'external' && (own === undefined || own(b))
        ? 1
        : shared.get(b.name)! > 1 && !members.get(variable(b))!.every(renamable)
          ? 2
          : isOwn(b)
            ? 3
            : 4;
  const ranks = new Map([...members].map(([v, list]) => [v, Math.min(...list.map(rankOne))]));
  const rank = (b: Binding) => ranks.get(variable(b))!;
  const ordered = [...c.bindings.values()].sort(
    (a, b) => rank(a) - rank(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const named = new Map<string, string>();
  for (const b of ordered) {
    const v = variable(b);
    const had = named.get(v);
    if (had !== undefined) {
      emitted.set(b.key, had);
      if (had !== b.name) renamed.add(b.key);
      continue;
    }
    let name = b.name;
    const holder = taken.get(name);
    if ((holder !== undefined && holder !== v) || RESERVED.has(name)) {
      // Upstream names may be any PEP 3131 identifier (`Blöck`): keep them, only non-identifier characters go.
      const base = `${b.name}_${moduleLabel(b)}`.replace(/[^\p{XID_Continue}]/gu, '_');
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      renamed.add(b.key);
    }
    taken.set(name, v);
    named.set(v, name);
    emitted.set(b.key, name);
  }
  return { emitted, renamed };
}
