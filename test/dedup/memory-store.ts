// A keyed store in memory, for de-duplication's caches in tests: its map is readable, and it counts its reads that
// found something.
import type { KeyValueStore } from '../../pipeline/dedup/cache.ts';

export function memoryStore(): KeyValueStore & { map: Map<string, string>; hits: number } {
  const map = new Map<string, string>();
  const store = {
    map,
    hits: 0,
    get: (key: string) => {
      const v = map.get(key);
      if (v !== undefined) store.hits++;
      return v;
    },
    put: (key: string, value: string) => void map.set(key, value),
  };
  return store;
}
