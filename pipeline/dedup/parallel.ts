// dedup with fingerprints computed in worker threads: parsing and MinHash dominate and parallelize per block;
// clustering stays in this thread, so the result is identical to `dedup`'s.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { dedup, dedupFingerprinted, sortItems } from './dedup.ts';
import type { Fingerprint } from './fingerprint.ts';
import { resolveParams } from './params.ts';
import type { DedupItem, DedupParams, DedupResult } from './types.ts';

export interface ParallelOptions {
  /** Worker threads; default: available cores, at most 8. 1 (or a small input) runs in this thread. */
  workers?: number;
  /** Codes per message; larger batches cost fewer messages, smaller ones balance load better. */
  batchSize?: number;
}

/** Below this many distinct code texts, starting workers (~0.3 s each for the TypeScript loader) does not pay. */
const MIN_PARALLEL = 200;

export async function dedupParallel(
  input: DedupItem[],
  params?: Partial<DedupParams>,
  opts: ParallelOptions = {},
): Promise<DedupResult> {
  const p = resolveParams(params);
  const items = sortItems(input);
  const codes = [...new Set(items.map((item) => item.code))];
  const workerCount = Math.max(
    1,
    Math.min(opts.workers ?? Math.min(availableParallelism(), 8), Math.ceil(codes.length / 50)),
  );
  if (workerCount === 1 || codes.length < MIN_PARALLEL) return dedup(items, p);

  const batchSize = opts.batchSize ?? 64;
  const results: Fingerprint[] = new Array(codes.length);
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let pending = Math.ceil(codes.length / batchSize);
      const send = (w: Worker) => {
        if (next >= codes.length) return;
        const batch = next;
        next += batchSize;
        w.postMessage({ batch, codes: codes.slice(batch, batch + batchSize) });
      };
      for (let k = 0; k < workerCount; k++) {
        const w = new Worker(new URL('./fingerprint-worker.mjs', import.meta.url), { workerData: { params: p } });
        workers.push(w);
        w.on('error', (err) => reject(new Error(`dedup: fingerprint worker failed: ${err.message}`)));
        w.on('message', (msg: { ready?: boolean; batch: number; fingerprints?: Fingerprint[]; error?: string }) => {
          if (msg.ready) return send(w);
          if (msg.error !== undefined) return reject(new Error(`dedup: fingerprint worker failed: ${msg.error}`));
          msg.fingerprints!.forEach((f, i) => (results[msg.batch + i] = f));
          if (--pending === 0) resolve();
          else send(w);
        });
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const byCode = new Map(codes.map((code, i) => [code, results[i]]));
  return dedupFingerprinted(
    items,
    items.map((item) => byCode.get(item.code)!),
    p,
  );
}
