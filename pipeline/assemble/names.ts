// Chooses the name each needed binding gets in the emitted module. Upstream names are kept; when two different
// bindings want one name (class `Block` in two modules), the later one gets a suffix and every reference to it
// is rewritten at its exact bytes, so neither definition is dropped and each reference reaches the right one.
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
  const taken = new Map<string, BindingKey>();
  // A package module (package.ts) holds no block's closure of its own: it may hold no block at all.
  const blockStmt = c.bindings.get(c.blockKey)?.by;
  const isOwn = own ?? ((b: Binding) => b.by === blockStmt);
  const shared = new Map<string, number>();
  for (const b of c.bindings.values()) shared.set(b.name, (shared.get(b.name) ?? 0) + 1);
  // The block keeps its own name (the manifest promises it); imports keep theirs so they stay verbatim; then
  // definitions that can't be renamed, definitions of the block's own module, then the rest in a stable order.
  const rank = (b: Binding) =>
    b.key === c.blockKey
      ? 0
      : b.kind === 'external' && (own === undefined || own(b))
        ? 1
        : shared.get(b.name)! > 1 && !renamable(b)
          ? 2
          : isOwn(b)
            ? 3
            : 4;
  const ordered = [...c.bindings.values()].sort(
    (a, b) => rank(a) - rank(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  for (const b of ordered) {
    let name = b.name;
    const holder = taken.get(name);
    if ((holder !== undefined && holder !== b.key) || RESERVED.has(name)) {
      // Upstream names may be any PEP 3131 identifier (`Blöck`): keep them, only non-identifier characters go.
      const base = `${b.name}_${moduleLabel(b)}`.replace(/[^\p{XID_Continue}]/gu, '_');
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      renamed.add(b.key);
    }
    taken.set(name, b.key);
    emitted.set(b.key, name);
  }
  return { emitted, renamed };
}
