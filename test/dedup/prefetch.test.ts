// De-duplication's prefetch (pipeline/dedup/prefetch.ts): modules handed to a worker thread while the blocks are
// assembled leave in the caches exactly what the spec stage's own-code cut would keep, so that stage computes only
// the modules the worker did not get to; a synchronous loop handing them over, as assembly is, is no obstacle.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ownCode } from '../../pipeline/dedup/own-code.ts';
import { ownCodes } from '../../pipeline/dedup/parallel.ts';
import { OwnCodePrefetch } from '../../pipeline/dedup/prefetch.ts';
import { memoryStore } from './memory-store.ts';
import { syntheticCorpus } from './synthetic.ts';

const modules = syntheticCorpus(60, 7).map((b, i) => `# module ${i}\nimport torch\n\n${b.item.code}`);

/** What the spec stage's cut keeps, computed with nothing prefetched. */
async function expected() {
  const caches = { ownSpans: memoryStore(), fingerprints: memoryStore() };
  await ownCodes(modules, { workers: 1, cache: caches.ownSpans, fingerprints: { cache: caches.fingerprints } });
  return caches;
}

/** Keeps this thread busy, as assembly does, until `done` holds (or 60 s have passed). */
function busyUntil(done: () => boolean): void {
  const end = performance.now() + 60_000;
  while (!done() && performance.now() < end);
}

describe('own-code prefetch', () => {
  it('keeps what the spec stage would, while this thread is busy, and the spec stage then computes nothing', async () => {
    const caches = { ownSpans: memoryStore(), fingerprints: memoryStore() };
    // At the process's priority: at its own, the lowest, a loaded machine may leave the worker no time at all here.
    const prefetch = new OwnCodePrefetch(caches, {}, { batchChars: 2_000, nice: 0 });
    for (const code of modules) prefetch.add(code);
    busyUntil(() => prefetch.finished >= 2); // the worker starts and works through its backlog meanwhile
    const counts = await prefetch.settle();
    const want = await expected();
    expect(counts.kept + counts.left).toBe(modules.length);
    expect(counts.kept).toBeGreaterThan(0);
    // Every kept entry is the one the cut makes (same key, same value).
    for (const [key, value] of caches.ownSpans.map) expect(want.ownSpans.map.get(key)).toBe(value);
    for (const [key, value] of caches.fingerprints.map) expect(want.fingerprints.map.get(key)).toBe(value);
    expect(caches.ownSpans.map.size).toBe(counts.kept);
    // The spec stage's cut: the same own code, and the kept modules found in the cache.
    const hitsBefore = caches.ownSpans.hits;
    const codes = await ownCodes(modules, {
      workers: 1,
      cache: caches.ownSpans,
      fingerprints: { cache: caches.fingerprints },
    });
    expect(codes).toEqual(modules.map(ownCode));
    expect(caches.ownSpans.hits - hitsBefore).toBe(counts.kept);
    expect(caches.ownSpans.map).toEqual(want.ownSpans.map);
    expect(caches.fingerprints.map).toEqual(want.fingerprints.map);
  }, 60_000);

  it('starts no worker for less than a batch, hands over a module once, and skips one already cached', async () => {
    const caches = { ownSpans: memoryStore(), fingerprints: memoryStore() };
    const prefetch = new OwnCodePrefetch(caches, {});
    prefetch.add(modules[0]);
    prefetch.add(modules[0]);
    prefetch.add('');
    expect(await prefetch.settle()).toEqual({ kept: 0, left: 1 });
    const want = await expected();
    const warm = { ownSpans: want.ownSpans, fingerprints: memoryStore() };
    const again = new OwnCodePrefetch(warm, {}, { batchChars: 1 });
    for (const code of modules) again.add(code);
    expect(await again.settle()).toEqual({ kept: 0, left: 0 });
    expect(warm.fingerprints.map.size).toBe(0);
  }, 60_000);

  it('runs its worker thread at the lowest priority, not the rest of the process', async () => {
    const caches = { ownSpans: memoryStore(), fingerprints: memoryStore() };
    const prefetch = new OwnCodePrefetch(caches, {}, { batchChars: 1 });
    prefetch.add(modules[0]);
    const niceOf = () =>
      readdirSync(`/proc/${process.pid}/task`).map((tid) => {
        const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
    const deadline = Date.now() + 60_000;
    while (!niceOf().includes(19) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(niceOf()).toContain(19);
    expect(niceOf()).toContain(0); // this thread, and the process's others
    await prefetch.settle();
  }, 90_000);
});
