// Fast, pure 32-bit hashing for the dedup stage: string hashes, order-sensitive combining, a seeded PRNG.
//
// Everything here is content-derived (never depends on the order items arrive in), so LSH buckets, candidate
// pairs and therefore clusters are the same for any permutation of the input.

/** FNV-1a over UTF-16 code units, finished with murmur3's avalanche so short tokens spread over all bits. */
export function hashString(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's finaliser: a bijection on 32 bits with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** One murmur3 block step: order-sensitive, so combine(combine(s, a), b) != combine(combine(s, b), a). */
export function combine(h: number, x: number): number {
  x = Math.imul(x, 0xcc9e2d51);
  x = (x << 15) | (x >>> 17);
  x = Math.imul(x, 0x1b873593);
  h ^= x;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** mulberry32: a tiny seeded PRNG; the MinHash permutations are drawn from it so `seed` fixes them. */
export function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) | 0;
  };
}

/** 8 hex digits of a 32-bit value, for readable digests in results. */
export function hex32(h: number): string {
  return (h >>> 0).toString(16).padStart(8, '0');
}
