// Definition-before-use order for the emitted statements: what a statement reads at import time (bases,
// decorators, defaults, class bodies, registries) comes first; otherwise a stable upstream order.
// Kahn's algorithm with a sorted ready set, so the same closure always gives the same order.

export interface OrderNode {
  key: string;
  /** Stable tie-break: upstream source, path and statement index. */
  sortKey: string;
  deps: Set<string>;
}

export interface OrderResult {
  order: string[];
  /** Keys that sat on an import-time cycle and were placed by their sort key. */
  cycles: string[];
}

export function orderNodes(nodes: OrderNode[]): OrderResult {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const n of nodes) {
    let d = 0;
    for (const dep of n.deps) {
      if (dep === n.key || !byKey.has(dep)) continue;
      d++;
      const list = dependents.get(dep) ?? [];
      list.push(n.key);
      dependents.set(dep, list);
    }
    indegree.set(n.key, d);
  }
  const cmp = (a: string, b: string) => {
    const x = byKey.get(a)!.sortKey;
    const y = byKey.get(b)!.sortKey;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const ready = nodes
    .filter((n) => indegree.get(n.key) === 0)
    .map((n) => n.key)
    .sort(cmp);
  const order: string[] = [];
  const cycles: string[] = [];
  const done = new Set<string>();
  const release = (key: string) => {
    for (const dep of dependents.get(key) ?? []) {
      const d = indegree.get(dep)! - 1;
      indegree.set(dep, d);
      if (d === 0 && !done.has(dep)) insertSorted(ready, dep, cmp);
    }
  };
  while (order.length < nodes.length) {
    let key = ready.shift();
    if (key === undefined) {
      // An import-time cycle (rare in real code): place the earliest remaining node and go on.
      key = nodes
        .map((n) => n.key)
        .filter((k) => !done.has(k))
        .sort(cmp)[0];
      cycles.push(key);
    }
    if (done.has(key)) continue;
    done.add(key);
    order.push(key);
    release(key);
  }
  return { order, cycles };
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
