// MinHash, LSH band choice and set Jaccard: the estimator is unbiased enough and the bands catch what they promise.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../pipeline/dedup/hash32.ts';
import {
  candidateProbability,
  chooseBands,
  jaccardSorted,
  lshPairs,
  makePermutations,
  minhash,
  oneHashSignature,
  toSet,
} from '../../pipeline/dedup/minhash.ts';
import { bagSet, shingleSet } from '../../pipeline/dedup/fingerprint.ts';

/** Two random sets of `size` elements sharing `shared` of them: Jaccard = shared / (2 size - shared). */
function pair(size: number, shared: number, seed: number): [Int32Array, Int32Array] {
  const next = mulberry32(seed);
  const common = Array.from({ length: shared }, next);
  const a = [...common, ...Array.from({ length: size - shared }, next)];
  const b = [...common, ...Array.from({ length: size - shared }, next)];
  return [toSet(Int32Array.from(a)), toSet(Int32Array.from(b))];
}

describe('minhash', () => {
  const perms = makePermutations(256, 1);
  const schemes: [string, (s: Int32Array) => Int32Array][] = [
    ['k-permutations', (s) => minhash(s, perms)],
    ['one-permutation', (s) => oneHashSignature(s, 256, 1)],
  ];
  for (const [scheme, signature] of schemes) {
    it(`estimates Jaccard within a few points with 256 values (${scheme})`, () => {
      // Set sizes below and above k, so densification (empty bins) is exercised too.
      for (const [size, shared, seed] of [
        [400, 100, 1],
        [400, 300, 2],
        [400, 360, 3],
        [400, 390, 4],
        [60, 55, 5],
        [1000, 950, 6],
      ] as const) {
        const [a, b] = pair(size, shared, seed);
        const sa = signature(a);
        const sb = signature(b);
        const agree = sa.filter((v, i) => v === sb[i]).length / 256;
        // Standard error at 256 values is at most 0.031; allow 3 of them.
        expect(Math.abs(agree - jaccardSorted(a, b))).toBeLessThan(0.094);
      }
    });
  }

  it('gives identical sets identical signatures and empty sets a fixed one', () => {
    const [a] = pair(50, 0, 9);
    expect(oneHashSignature(a, 256, 3)).toEqual(oneHashSignature(Int32Array.from(a), 256, 3));
    expect(oneHashSignature(new Int32Array(0), 256, 3)).toEqual(oneHashSignature(new Int32Array(0), 256, 3));
  });

  it('computes exact Jaccard of sorted sets', () => {
    expect(jaccardSorted(Int32Array.of(1, 2, 3), Int32Array.of(2, 3, 4))).toBe(0.5);
    expect(jaccardSorted(new Int32Array(0), new Int32Array(0))).toBe(1);
  });
});

describe('band choice', () => {
  it('picks 18 x 14 for 0.90 at 256 permutations: at most 1% missed at the threshold', () => {
    expect(chooseBands(256, 0.9, 0.01)).toEqual({ bands: 18, rows: 14 });
    expect(1 - candidateProbability(0.9, 18, 14)).toBeLessThanOrEqual(0.01);
    // The next row count up would miss more than 1%.
    expect(1 - candidateProbability(0.9, 17, 15)).toBeGreaterThan(0.01);
  });

  it('finds near pairs as candidates and few far ones', () => {
    const perms = makePermutations(256, 7);
    const sets: Int32Array[] = [];
    for (let k = 0; k < 20; k++) sets.push(...pair(300, 290, 100 + k)); // 20 pairs at Jaccard ~0.935
    const sigs = sets.map((s) => minhash(s, perms));
    const found = new Set<string>();
    lshPairs(
      sigs,
      18,
      14,
      64,
      () => false,
      (i, j) => found.add(`${i},${j}`),
    );
    for (let k = 0; k < 20; k++) expect(found.has(`${2 * k},${2 * k + 1}`)).toBe(true);
    expect(found.size).toBe(20); // unrelated random sets share nothing
  });
});

describe('shingles and bags', () => {
  it('makes one shingle for a stream shorter than the window and none for an empty one', () => {
    expect(shingleSet(Int32Array.of(1, 2), 5).length).toBe(1);
    expect(shingleSet(new Int32Array(0), 5).length).toBe(0);
  });

  it('turns a multiset into a set whose Jaccard is the weighted Jaccard', () => {
    // {x, x, y} vs {x, y, y}: sum(min) = 2, sum(max) = 4.
    expect(jaccardSorted(bagSet(Int32Array.of(7, 7, 9)).set, bagSet(Int32Array.of(7, 9, 9)).set)).toBe(0.5);
  });
});
