// De-duplication's caches (pipeline/dedup/cache.ts) must never change a result: what a warm run takes from them is
// exactly what a cold run computes, and a key moves with everything its value depends on.
import { describe, expect, it } from 'vitest';
import { decodeFingerprint, encodeFingerprint, fingerprintKey, LAST_RESULT } from '../../pipeline/dedup/cache.ts';
import { dedup } from '../../pipeline/dedup/dedup.ts';
import { fingerprint, fingerprintContext } from '../../pipeline/dedup/fingerprint.ts';
import { ownCode } from '../../pipeline/dedup/own-code.ts';
import { dedupParallel, ownCodes } from '../../pipeline/dedup/parallel.ts';
import { resolveParams } from '../../pipeline/dedup/params.ts';
import { FIXTURE } from './fixture.ts';
import { memoryStore } from './memory-store.ts';
import { syntheticCorpus } from './synthetic.ts';

const stores = () => ({ ownSpans: memoryStore(), fingerprints: memoryStore(), results: memoryStore() });
const items = FIXTURE.map((f) => f.item);

describe('dedup caches', () => {
  it('give back a fingerprint exactly as computed', () => {
    const ctx = fingerprintContext(resolveParams());
    for (const item of items) {
      const f = fingerprint(item.code, ctx);
      expect(decodeFingerprint(encodeFingerprint(f))).toEqual(f);
    }
  });

  it('key a fingerprint by its code and the parameters it depends on, not by the thresholds', () => {
    const code = items[0].code;
    const key = fingerprintKey(code, resolveParams());
    expect(fingerprintKey(code, resolveParams({ lexicalThreshold: 0.8, structuralThreshold: 0.7 }))).toBe(key);
    expect(fingerprintKey(code, resolveParams({ seed: 1 }))).not.toBe(key);
    expect(fingerprintKey(code, resolveParams({ shingleSize: 4 }))).not.toBe(key);
    expect(fingerprintKey(`${code} `, resolveParams())).not.toBe(key);
  });

  it('give the same result cold, warm, and warm from fingerprints alone', async () => {
    const expected = JSON.stringify(dedup(items));
    const caches = stores();
    expect(JSON.stringify(await dedupParallel(items, {}, { caches }))).toBe(expected);
    expect(caches.fingerprints.map.size).toBe(new Set(items.map((x) => x.code)).size);
    // Warm: one lookup, the result itself.
    expect(JSON.stringify(await dedupParallel(items, {}, { caches }))).toBe(expected);
    expect([caches.results.hits, caches.fingerprints.hits]).toEqual([1, 0]);
    // The result gone, the clustering runs again over the fingerprints it finds.
    caches.results.map.clear();
    expect(JSON.stringify(await dedupParallel(items, {}, { caches }))).toBe(expected);
    expect(caches.fingerprints.hits).toBe(caches.fingerprints.map.size);
  });

  it('recompute the result when anything the clustering reads changed', async () => {
    const caches = stores();
    await dedupParallel(items, {}, { caches });
    const changes = [
      items.map((x, i) => (i === 0 ? { ...x, code: `${x.code}\nX = 1\n` } : x)),
      items.map((x, i) => (i === 1 ? { ...x, validated: !x.validated } : x)),
      items.map((x, i) => (i === 2 ? { ...x, priority: x.priority === 1 ? (2 as const) : (1 as const) } : x)),
      items.slice(1),
    ];
    for (const changed of changes) {
      expect(JSON.stringify(await dedupParallel(changed, {}, { caches }))).toBe(JSON.stringify(dedup(changed)));
      // Back to the original inputs: the last result was replaced, the old one is computed again, the same.
      expect(JSON.stringify(await dedupParallel(items, {}, { caches }))).toBe(JSON.stringify(dedup(items)));
    }
    expect(caches.results.map.size).toBe(1);
    expect([...caches.results.map.keys()]).toEqual([LAST_RESULT]);
    // Other thresholds: another result from the same fingerprints.
    const looser = { lexicalThreshold: 0.5, structuralThreshold: 0.5 };
    expect(JSON.stringify(await dedupParallel(items, looser, { caches }))).toBe(JSON.stringify(dedup(items, looser)));
  });

  it('cut the own code from kept spans exactly as from a parse, in worker threads too', async () => {
    const modules = syntheticCorpus(240, 5).map((b) => `import torch\nfrom torch import nn\n\n${b.item.code}`);
    const cache = memoryStore();
    const cold = await ownCodes(modules, { workers: 2, cache });
    expect(cold).toEqual(modules.map(ownCode));
    expect(await ownCodes(modules, { workers: 2, cache })).toEqual(cold);
    expect(cache.hits).toBe(modules.length);
  }, 60_000);

  it("keep the own code's fingerprint from the parse that cut it, as computed from the own code, in worker threads too", async () => {
    // A module comment, imports (one over two lines) and a module docstring: cut or skipped alike.
    const corpus = syntheticCorpus(240, 5);
    const modules = corpus.map(
      (b, i) => `# module ${i}\nimport torch\nfrom torch import (nn,\n    Tensor)\n'''Doc.'''\n\n${b.item.code}`,
    );
    const p = resolveParams();
    const ctx = fingerprintContext(p);
    for (const workers of [1, 2]) {
      const caches = stores();
      const fingerprints = { cache: caches.fingerprints };
      const codes = await ownCodes(modules, { workers, cache: caches.ownSpans, fingerprints });
      expect(codes).toEqual(modules.map(ownCode));
      for (const code of new Set(codes))
        expect(decodeFingerprint(caches.fingerprints.map.get(fingerprintKey(code, p))!)).toEqual(
          fingerprint(code, ctx),
        );
      // De-duplication finds every fingerprint it needs and computes none.
      const items = corpus.map((b, i) => ({ ...b.item, code: codes[i] }));
      expect(JSON.stringify(await dedupParallel(items, {}, { workers, caches }))).toBe(JSON.stringify(dedup(items)));
      expect(caches.fingerprints.hits).toBe(new Set(codes).size);
    }
  }, 60_000);

  it('match dedup with fingerprints from worker threads, cold and warm', async () => {
    const corpus = syntheticCorpus(400, 3).map((b) => b.item);
    const expected = JSON.stringify(dedup(corpus));
    const caches = stores();
    expect(JSON.stringify(await dedupParallel(corpus, {}, { workers: 2, caches }))).toBe(expected);
    caches.results.map.clear();
    expect(JSON.stringify(await dedupParallel(corpus, {}, { workers: 2, caches }))).toBe(expected);
  }, 60_000);
});
