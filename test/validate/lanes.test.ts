// The pool's lanes (pipeline/validate/pool.ts; docs/validate.md, "Sandbox"): blocks are queued by the import root
// their sandbox shows, and a worker whose lane has no block left moves on to the next lane with work instead of
// waiting for the other workers to finish theirs. Checked through real sandboxed workers: one lane holds a single
// slow block, the other quick ones, and the quick ones start while the slow one still runs.
import { describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { baseOptions, byName, fixtureItems, reportingBlock } from './helpers.ts';

// The time the block's module was imported (its child's start), as its output: float64 keeps the seconds exact.
const block = (sleep: number) => reportingBlock(`import time\nFOUND = time.time()\ntime.sleep(${sleep})`, 'float64');

describe("the pool's lanes", () => {
  it('moves a worker whose lane is done on to the next lane, while the other still runs its last block', async () => {
    const { root, items } = fixtureItems({
      slow: block(6),
      quick1: block(0),
      quick2: block(0),
      quick3: block(0),
    });
    // The quick blocks' originals live in a checkout: their lane is that root's, after the runtime's lane ('').
    for (const it of items.slice(1)) it.original = { importRoot: root, module: 'quick1', className: 'Block' };
    const recs = byName(await validateBlocks(items, baseOptions({ workers: 2 })));
    for (const r of Object.values(recs)) expect(r.status, `${r.id}: ${r.failureDetail}`).toBe('passed');
    const started = (name: string) => recs[name].outputs[0].checksum as number;
    const slowEnds = started('slow') + 6;
    // Lane by lane, no quick block could start before the slow block's lane was done.
    for (const q of ['quick1', 'quick2', 'quick3']) expect(started(q)).toBeLessThan(slowEnds);
  });

  it('gives each root one worker: a drain moving on prefers a lane no other drain serves', async () => {
    // The worker a block ran on, by its start time: the worker is its sandbox's pid 1 (field 22 of /proc/1/stat, in
    // clock ticks since boot), one start per worker.
    const onWorker = reportingBlock(
      'import time\nFOUND = float(open("/proc/1/stat").read().rsplit(")", 1)[1].split()[19])\ntime.sleep(1)',
      'float64',
    );
    const { items: b } = fixtureItems({ b1: onWorker, b2: onWorker });
    const { items: c } = fixtureItems({ c1: onWorker, c2: onWorker });
    // Two checkouts, two lanes of two blocks; the runtime's lane ('') is empty, so both drains choose at once.
    for (const [list, module] of [
      [b, 'b1'],
      [c, 'c1'],
    ] as const)
      for (const it of list) it.original = { importRoot: it.importRoot, module, className: 'Block' };
    const recs = byName(await validateBlocks([...b, ...c], baseOptions({ workers: 2 })));
    for (const r of Object.values(recs)) expect(r.status, `${r.id}: ${r.failureDetail}`).toBe('passed');
    const worker = (name: string) => recs[name].outputs[0].checksum as number;
    // Each lane ran on one worker, and the two lanes on two: before, both drains took the first lane, then both
    // the second, and each root's worker started twice.
    expect(worker('b1')).toBe(worker('b2'));
    expect(worker('c1')).toBe(worker('c2'));
  });
});
