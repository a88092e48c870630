// Definition-before-use order for the emitted statements: what a statement reads at import time (bases,
// decorators, defaults, class bodies, registries) comes first; otherwise a stable upstream order.
// Kahn's algorithm with a sorted ready set, so the same closure always gives the same order.
//
// Two kinds of edges. Hard: the statement reads the name when it runs (`class B(A)` needs A). Soft: the statement
// may call a function at import time whose body reads the name (`@compat` runs compat(), which reads VERSION):
//   def compat(fn): return fn if VERSION >= (1, 10) else fn     # compat's body reads VERSION
//   @compat                                                    # runs compat now: VERSION must come first
//   def helper(x): ...
// Soft edges are kept when they can be; on a cycle, a statement whose hard edges are met goes first.

export interface OrderNode {
  key: string;
  /** Stable tie-break: upstream source, path and statement index. */
  sortKey: string;
  /** Hard: read when the statement runs. */
  deps: Set<string>;
  /** Soft: read by code the statement may call when it runs. */
  soft?: Set<string>;
}

export interface OrderResult {
  order: string[];
  /** Keys that sat on an import-time cycle of hard edges and were placed by their sort key. */
  cycles: string[];
}

export function orderNodes(nodes: OrderNode[]): OrderResult {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const hardIn = new Map<string, number>();
  const softIn = new Map<string, number>();
  const dependents = new Map<string, { key: string; hard: boolean }[]>();
  for (const n of nodes) {
    let hard = 0;
    let soft = 0;
    const add = (dep: string, isHard: boolean) => {
      const list = dependents.get(dep) ?? [];
      list.push({ key: n.key, hard: isHard });
      dependents.set(dep, list);
    };
    for (const dep of n.deps) {
      if (dep === n.key || !byKey.has(dep)) continue;
      hard++;
      add(dep, true);
    }
    for (const dep of n.soft ?? []) {
      if (dep === n.key || !byKey.has(dep) || n.deps.has(dep)) continue;
      soft++;
      add(dep, false);
    }
    hardIn.set(n.key, hard);
    softIn.set(n.key, soft);
  }
  const cmp = (a: string, b: string) => {
    const x = byKey.get(a)!.sortKey;
    const y = byKey.get(b)!.sortKey;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const isReady = (k: string) => hardIn.get(k) === 0 && softIn.get(k) === 0;
  const ready = nodes
    .map((n) => n.key)
    .filter(isReady)
    .sort(cmp);
  const order: string[] = [];
  const cycles: string[] = [];
  let comps: Map<string, number> | undefined; // strongly connected components, computed when first stuck
  const done = new Set<string>();
  const release = (key: string) => {
    for (const d of dependents.get(key) ?? []) {
      const map = d.hard ? hardIn : softIn;
      map.set(d.key, map.get(d.key)! - 1);
      if (isReady(d.key) && !done.has(d.key)) insertSorted(ready, d.key, cmp);
    }
  };
  // Of the statements whose hard edges are met, the one the most statements not yet placed wait on (earliest on a
  // tie): soft edges over-approximate (every function a call may reach), and on a cycle of them the statement many
  // import-time calls read is the one to place. transformers' `logger = logging.get_logger(__name__)` in
  // import_utils.py: every `is_*_available()` call at import reads it, and placed by upstream position it came after
  // them (NameError on import).
  const mostWanted = (ready: string[]): string | undefined => {
    let best: string | undefined;
    let most = -1;
    for (const k of ready) {
      const wanted = (dependents.get(k) ?? []).filter((d) => !done.has(d.key)).length;
      if (wanted > most) [best, most] = [k, wanted];
    }
    return best;
  };
  while (order.length < nodes.length) {
    let key = ready.shift();
    if (key === undefined) {
      // Stuck: first drop soft edges (mostWanted, above), then, on an import-time
      // cycle of hard edges (rare in real code), place the earliest remaining statement and go on.
      const left = nodes
        .map((n) => n.key)
        .filter((k) => !done.has(k))
        .sort(cmp);
      // Of those, one whose unmet soft edges all lead back to it (the same strongly connected component): the cycle
      // is broken where it is, not by placing a statement ahead of what it reads outside the cycle. transformers'
      // `class _LazyConfigMapping` sits on a cycle through `auto_docstring`'s reads, and placed after CLIP's
      // configuration classes (more statements wait on those) it came after the decorators that read it.
      const free = left.filter((k) => hardIn.get(k) === 0);
      comps ??= components(nodes, byKey);
      const onCycle = free.filter((k) => {
        const c = comps!.get(k);
        for (const d of byKey.get(k)!.soft ?? []) if (byKey.has(d) && !done.has(d) && comps!.get(d) !== c) return false;
        return true;
      });
      key = mostWanted(onCycle.length ? onCycle : free);
      if (key === undefined) {
        key = left[0];
        cycles.push(key);
      }
    }
    if (done.has(key)) continue;
    done.add(key);
    order.push(key);
    release(key);
  }
  return { order, cycles };
}

/**
 * The strongly connected component of each node over hard and soft edges (Tarjan's algorithm, iterative: a closure
 * may hold thousands of statements).
 */
function components(nodes: OrderNode[], byKey: Map<string, OrderNode>): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const comp = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let next = 0;
  let count = 0;
  const edges = (k: string) => {
    const n = byKey.get(k)!;
    return [...n.deps, ...(n.soft ?? [])].filter((d) => byKey.has(d));
  };
  for (const root of nodes) {
    if (index.has(root.key)) continue;
    const work: { key: string; out: string[]; i: number }[] = [];
    const open = (k: string) => {
      index.set(k, next);
      low.set(k, next++);
      stack.push(k);
      onStack.add(k);
      work.push({ key: k, out: edges(k), i: 0 });
    };
    open(root.key);
    while (work.length) {
      const top = work[work.length - 1];
      if (top.i < top.out.length) {
        const d = top.out[top.i++];
        if (!index.has(d)) open(d);
        else if (onStack.has(d)) low.set(top.key, Math.min(low.get(top.key)!, index.get(d)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].key;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.key)!));
      }
      if (low.get(top.key) === index.get(top.key)) {
        for (;;) {
          const k = stack.pop()!;
          onStack.delete(k);
          comp.set(k, count);
          if (k === top.key) break;
        }
        count++;
      }
    }
  }
  return comp;
}

function insertSorted(list: string[], key: string, cmp: (a: string, b: string) => number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(list[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, key);
}
