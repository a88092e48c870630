// The parse pool: worker threads give exactly the facts the inline parser gives, for real torchvision files and
// for a file nested deeper than the walker follows (a worker's stack is not the main thread's).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAll } from '../../pipeline/index/parse-pool.ts';

const MODELS = '/usr/lib/python3/dist-packages/torchvision/models';

describe('parseAll', () => {
  it('parses in two worker threads with the same results as inline, in job order', async () => {
    const files = readdirSync(MODELS)
      .filter((f) => f.endsWith('.py'))
      .sort();
    const jobs = files.map((f, id) => ({ id, bytes: readFileSync(join(MODELS, f)) }));
    const inline = await parseAll(jobs, { threads: 1 });
    let done = 0;
    // A zero threshold forces workers even for this small set.
    const pooled = await parseAll(jobs, { threads: 2, minParallelBytes: 0, onDone: (n) => (done += n) });
    expect(done).toBe(jobs.length);
    expect(pooled.map((o) => o.id)).toEqual(jobs.map((j) => j.id));
    for (const [i, o] of pooled.entries()) {
      expect('facts' in o && o.json, files[i]).toBeTruthy();
      expect('facts' in o && o.facts).toEqual('facts' in inline[i] && inline[i].facts);
    }
  });

  it('50,000 nested lambdas give the same nesting-too-deep facts in a worker as inline', async () => {
    const bytes = Buffer.from(`X = ${'lambda: '.repeat(50_000)}1\nY = 2\n`);
    const jobs = [
      { id: 0, bytes },
      { id: 1, bytes: Buffer.from('Z = 3\n') },
    ];
    const [inline] = await parseAll(jobs, { threads: 1 });
    const pooled = await parseAll(jobs, { threads: 2, minParallelBytes: 0 });
    expect('facts' in inline && inline.facts.diagnostics.map((d) => d.code)).toEqual(['nesting-too-deep']);
    expect('facts' in pooled[0] && pooled[0].facts).toEqual('facts' in inline && inline.facts);
  });
});
