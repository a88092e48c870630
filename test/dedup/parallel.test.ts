// dedupParallel (fingerprints in worker threads) must give exactly dedup's result.
import { describe, expect, it } from 'vitest';
import { dedup } from '../../pipeline/dedup/dedup.ts';
import { dedupParallel } from '../../pipeline/dedup/parallel.ts';
import { syntheticCorpus } from './synthetic.ts';

describe('dedupParallel', () => {
  it('matches dedup on a corpus large enough to use workers', async () => {
    const items = syntheticCorpus(400, 3).map((b) => b.item);
    const parallel = await dedupParallel(items, {}, { workers: 2, batchSize: 32 });
    expect(JSON.stringify(parallel)).toBe(JSON.stringify(dedup(items)));
  }, 60_000);
});
