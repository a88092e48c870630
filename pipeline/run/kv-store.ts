// A namespace of the index's kv table as the keyed store a stage's cache takes: reads go to SQLite; writes are
// kept and stored together, in one transaction per few megabytes and at `flush` (one transaction per step, and a
// bounded buffer when a step writes hundreds of megabytes).
import type { DedupCaches } from '../dedup/cache.ts';
import type { Store } from '../index/store.ts';

export interface BufferedStore {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
  /** Stores what `put` kept. */
  flush(): void;
}

/** Characters kept before they are stored without waiting for `flush`. */
const MAX_BUFFERED = 32_000_000;

export function kvStore(store: Store, ns: string): BufferedStore {
  let pending = new Map<string, string>();
  let chars = 0;
  const flush = () => {
    if (pending.size === 0) return;
    const rows = pending;
    pending = new Map();
    chars = 0;
    store.tx(() => rows.forEach((value, key) => store.kvPut(ns, key, value)));
  };
  return {
    get: (key) => pending.get(key) ?? store.kvGet(ns, key),
    put: (key, value) => {
      pending.set(key, value);
      chars += value.length;
      if (chars >= MAX_BUFFERED) flush();
    },
    flush,
  };
}

/** The kv namespaces of de-duplication's caches (pipeline/dedup/cache.ts). */
export const DEDUP_NAMESPACES = {
  ownSpans: 'dedup-own-spans',
  fingerprints: 'dedup-fingerprints',
  results: 'dedup-results',
} as const;

/** De-duplication's caches in the index's kv table, and the flush that stores what they were given. */
export function dedupStores(store: Store): { caches: Required<DedupCaches>; flush(): void } {
  const caches = {
    ownSpans: kvStore(store, DEDUP_NAMESPACES.ownSpans),
    fingerprints: kvStore(store, DEDUP_NAMESPACES.fingerprints),
    results: kvStore(store, DEDUP_NAMESPACES.results),
  };
  return { caches, flush: () => Object.values(caches).forEach((c) => c.flush()) };
}
