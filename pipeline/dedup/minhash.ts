// MinHash signatures, LSH banding (with the band/row choice), and exact Jaccard of sorted hash sets.
//
// Sets are sorted, duplicate-free Int32Arrays of 32-bit element hashes. Two different elements share a hash
// with probability ~2^-32, so a pair of sets with n elements each sees a spurious match with probability about
// n^2 / 2^32 (1e-4 for n = 600), moving its Jaccard by at most 1/n: negligible against a 0.90 threshold.
import { combine, fmix32, mulberry32 } from './hash32.ts';

/** The permutation family: h_i(x) = xorshift16(imul(x ^ b_i, a_i)), a bijection on 32 bits (a_i odd). */
export interface Permutations {
  a: Int32Array;
  b: Int32Array;
}

export function makePermutations(count: number, seed: number): Permutations {
  const next = mulberry32(seed);
  const a = new Int32Array(count);
  const b = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    a[i] = next() | 1;
    b[i] = next();
  }
  return { a, b };
}

/**
 * Textbook k-permutation MinHash (`minhashScheme: 'k-permutations'`): per permutation, the smallest permuted
 * value (signed order; any fixed total order works). Multiply-xorshift instead of `(a*x + b) mod p` keeps it in
 * 32-bit integer arithmetic (Math.imul, ~2 ns per element and permutation); still O(n k), about half of dedup's
 * time on 10k blocks, hence the one-permutation default below.
 */
export function minhash(set: Int32Array, perms: Permutations): Int32Array {
  const { a, b } = perms;
  const k = a.length;
  const sig = new Int32Array(k).fill(0x7fffffff);
  for (let j = 0; j < set.length; j++) {
    const x = set[j];
    for (let i = 0; i < k; i++) {
      let v = Math.imul(x ^ b[i], a[i]);
      v ^= v >>> 16;
      if (v < sig[i]) sig[i] = v;
    }
  }
  return sig;
}

/**
 * One-permutation MinHash with optimal densification (Shrivastava, ICML 2017): each element is hashed once into
 * one of k bins and each bin keeps its smallest value; an empty bin copies the value of the first non-empty bin
 * on a probe sequence fixed by (seed, bin), the same for every set. Each position still collides with
 * probability equal to the Jaccard, but the cost is O(n + k) instead of O(n k): about 100 times cheaper for
 * k = 256, which is what keeps 10k blocks within seconds.
 */
export function oneHashSignature(set: Int32Array, k: number, seed: number): Int32Array {
  const sig = new Int32Array(k).fill(0x7fffffff);
  const filled = new Uint8Array(k);
  for (let j = 0; j < set.length; j++) {
    const m = fmix32(set[j] ^ seed);
    const bin = (m >>> 0) % k;
    const v = fmix32(m ^ 0x5bd1e995);
    if (filled[bin] === 0 || v < sig[bin]) sig[bin] = v;
    filled[bin] = 1;
  }
  if (set.length === 0) return sig;
  for (let i = 0; i < k; i++) {
    if (filled[i] === 1) continue;
    for (let attempt = 1; ; attempt++) {
      const j = (fmix32(combine(seed ^ Math.imul(i, 0x9e3779b1), attempt)) >>> 0) % k;
      if (filled[j] === 1) {
        sig[i] = sig[j];
        break;
      }
    }
  }
  return sig;
}

/** Sorts and removes duplicates (in place on a copy): the canonical set form used everywhere here. */
export function toSet(values: Int32Array): Int32Array {
  const sorted = Int32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}

/** Exact Jaccard of two sorted duplicate-free sets; two empty sets count as identical. */
export function jaccardSorted(x: Int32Array, y: Int32Array): number {
  if (x.length === 0 && y.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      inter++;
      i++;
      j++;
    } else if (x[i] < y[j]) i++;
    else j++;
  }
  return inter / (x.length + y.length - inter);
}

/** Probability that LSH with `bands` x `rows` makes a pair of Jaccard `s` a candidate: 1 - (1 - s^r)^b. */
export function candidateProbability(s: number, bands: number, rows: number): number {
  return 1 - (1 - s ** rows) ** bands;
}

/** Where the S-curve rises steepest, approximately: (1/b)^(1/r). */
export function sCurveThreshold(bands: number, rows: number): number {
  return (1 / bands) ** (1 / rows);
}

/**
 * Chooses bands x rows <= permutations for a confirmation threshold t. Placing the S-curve's midpoint
 * (1/b)^(1/r) just under t (e.g. 11 x 22, midpoint 0.897) would miss about a third of the pairs whose
 * similarity is exactly t, so instead: among all (b, r) whose chance of missing a pair at exactly t is at most
 * `maxMissRate`, take the one with the highest midpoint (fewest false candidates, each of which costs one exact
 * Jaccard). For t = 0.90, 256 permutations and 1% this gives 18 bands x 14 rows (midpoint 0.81, 99.1% at t).
 */
export function chooseBands(
  permutations: number,
  threshold: number,
  maxMissRate: number,
): { bands: number; rows: number } {
  let best: { bands: number; rows: number; mid: number } | null = null;
  for (let rows = 1; rows <= permutations; rows++) {
    const bands = Math.floor(permutations / rows);
    if (1 - candidateProbability(threshold, bands, rows) > maxMissRate) continue;
    const mid = sCurveThreshold(bands, rows);
    if (best === null || mid > best.mid) best = { bands, rows, mid };
  }
  // rows = 1 with every permutation a band always qualifies unless the threshold is ~0; fall back to it.
  return best ? { bands: best.bands, rows: best.rows } : { bands: permutations, rows: 1 };
}

/**
 * Candidate pairs from LSH: each band's rows hashed to a bucket key; members of a bucket are candidates.
 * Calls `visit(i, j)` once per distinct pair (i < j), in a deterministic order (bands, then bucket insertion
 * order, which follows the caller's index order). `visit` may return false to say "already known": in a bucket
 * larger than `bigBucket`, pairs the caller already connected are skipped, which keeps families of hundreds of
 * near-copies linear without changing the connected components.
 */
export function lshPairs(
  signatures: Int32Array[],
  bands: number,
  rows: number,
  bigBucket: number,
  connected: (i: number, j: number) => boolean,
  visit: (i: number, j: number) => void,
): void {
  const n = signatures.length;
  const seen = new Set<number>();
  for (let band = 0; band < bands; band++) {
    const buckets = new Map<number, number[]>();
    const start = band * rows;
    for (let i = 0; i < n; i++) {
      const sig = signatures[i];
      let h = fmix32(band + 1);
      for (let r = 0; r < rows; r++) h = combine(h, sig[start + r]);
      const key = fmix32(h);
      const bucket = buckets.get(key);
      if (bucket) bucket.push(i);
      else buckets.set(key, [i]);
    }
    for (const bucket of buckets.values()) {
      if (bucket.length < 2) continue;
      const big = bucket.length > bigBucket;
      for (let x = 0; x < bucket.length; x++) {
        for (let y = x + 1; y < bucket.length; y++) {
          const i = bucket[x];
          const j = bucket[y];
          const key = i * n + j;
          if (seen.has(key)) continue;
          if (big && connected(i, j)) continue;
          seen.add(key);
          visit(i, j);
        }
      }
    }
  }
}
