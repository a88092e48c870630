// dedup with its per-code work in worker threads and its caches: own-code spans and fingerprints (a parse and a
// walk per block) are computed once per content, in parallel, and kept; clustering stays in this thread, so the
// result is identical to `dedup`'s. Parse trees stay in the workers, which free them batch by batch.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { collectGarbage } from '../util/memory.ts';
import { releaseTrees } from '../util/tree-sitter.ts';
import {
  decodeFingerprint,
  decodeResult,
  encodeFingerprint,
  encodeResult,
  fingerprintKey,
  keptFingerprint,
  LAST_RESULT,
  ownSpansKey,
  resultKey,
  type DedupCaches,
  type KeyValueStore,
} from './cache.ts';
import { dedupFingerprinted, sortItems } from './dedup.ts';
import { fingerprint, fingerprintContext, type Fingerprint } from './fingerprint.ts';
import { ownCodeAndFingerprint, ownCodeOf, ownCodeSpans } from './own-code.ts';
import { resolveParams } from './params.ts';
import type { DedupItem, DedupParams, DedupResult } from './types.ts';

export interface ParallelOptions {
  /** Worker threads; default: available cores, at most 8. 1 (or a small input) runs in this thread. */
  workers?: number;
  /** Most codes per message; larger batches cost fewer messages, smaller ones balance load better. */
  batchSize?: number;
  /** Where results are kept between runs (cache.ts); none: everything is computed. */
  caches?: DedupCaches;
}

/** Below this many codes to work on, starting workers (~0.3 s each for the TypeScript loader) does not pay. */
const MIN_PARALLEL = 200;
/**
 * Most source text per message (and between two releases of parse trees in this thread): a worker frees the trees
 * of a batch before the next, so each holds at most about 40 times this in trees.
 */
const BATCH_CHARS = 4_000_000;

type Task = 'fingerprint' | 'own-spans' | 'own-code';

/** The own code's spans and fingerprint from one parse (own-code.ts). */
type OwnCode = { spans: number[]; fingerprint: Fingerprint };

export async function dedupParallel(
  input: DedupItem[],
  params?: Partial<DedupParams>,
  opts: ParallelOptions = {},
): Promise<DedupResult> {
  const p = resolveParams(params);
  const items = sortItems(input);
  const caches = opts.caches ?? {};
  const keyOf = new Map<string, string>();
  for (const item of items) if (!keyOf.has(item.code)) keyOf.set(item.code, fingerprintKey(item.code, p));
  const keys = items.map((item) => keyOf.get(item.code)!);
  const rKey = caches.results ? resultKey(items, keys, p) : '';
  const known = caches.results ? decodeResult(caches.results.get(LAST_RESULT), rKey) : undefined;
  if (known) return known;

  const codes = [...keyOf.keys()];
  const prints = await cachedMap(
    codes,
    (code) => keyOf.get(code)!,
    caches.fingerprints,
    { encode: encodeFingerprint, decode: decodeFingerprint },
    (misses) => mapCodes<Fingerprint>('fingerprint', misses, p, opts),
  );
  const byCode = new Map(codes.map((code, i) => [code, prints[i]]));
  const result = dedupFingerprinted(
    items,
    items.map((item) => byCode.get(item.code)!),
    p,
  );
  caches.results?.put(LAST_RESULT, encodeResult(rKey, result));
  return result;
}

/**
 * Each assembled module's own code (own-code.ts), the spans kept in `cache` by the module's content. With
 * `fingerprints`, a module whose spans are not cached gets its own code's fingerprint from the same parse, kept in
 * that cache under the key dedupParallel looks up with the same params: de-duplication then parses nothing again.
 */
export async function ownCodes(
  assembled: string[],
  opts: {
    workers?: number;
    cache?: KeyValueStore;
    fingerprints?: { cache: KeyValueStore; params?: Partial<DedupParams> };
  } = {},
): Promise<string[]> {
  const fp = opts.fingerprints;
  const p = resolveParams(fp?.params);
  const spans = await cachedMap<number[]>(
    assembled,
    ownSpansKey,
    opts.cache,
    { encode: (s) => JSON.stringify(s), decode: (t) => JSON.parse(t) as number[] },
    async (misses) => {
      if (!fp) return mapCodes<number[]>('own-spans', misses, p, { workers: opts.workers });
      const made = await mapCodes<OwnCode>('own-code', misses, p, { workers: opts.workers });
      return made.map((m, i) => {
        const kept = keptFingerprint(misses[i], m, p); // the spans go in through cachedMap, by their own key
        fp.cache.put(kept.fingerprintKey, kept.fingerprint);
        return m.spans;
      });
    },
  );
  return assembled.map((code, i) => ownCodeOf(code, spans[i]));
}

/** `compute` for the values `cache` does not hold (by `keyOf`), which it then keeps. */
async function cachedMap<T>(
  codes: string[],
  keyOf: (code: string) => string,
  cache: KeyValueStore | undefined,
  codec: { encode: (v: T) => string; decode: (text: string) => T },
  compute: (codes: string[]) => Promise<T[]>,
): Promise<T[]> {
  const out: (T | undefined)[] = new Array(codes.length);
  const keys = cache ? codes.map(keyOf) : [];
  const missing: number[] = [];
  codes.forEach((_, i) => {
    const stored = cache?.get(keys[i]);
    if (stored === undefined) missing.push(i);
    else out[i] = codec.decode(stored);
  });
  const made = await compute(missing.map((i) => codes[i]));
  missing.forEach((i, k) => {
    out[i] = made[k];
    cache?.put(keys[i], codec.encode(made[k]));
  });
  return out as T[];
}

/** One task over many codes: in worker threads when there are enough of them, else here. */
async function mapCodes<T>(task: Task, codes: string[], p: DedupParams, opts: ParallelOptions): Promise<T[]> {
  const workerCount = Math.max(
    1,
    Math.min(opts.workers ?? Math.min(availableParallelism(), 8), Math.ceil(codes.length / 50)),
  );
  if (workerCount === 1 || codes.length < MIN_PARALLEL) return mapHere<T>(task, codes, p);
  return mapInWorkers<T>(task, codes, p, workerCount, opts.batchSize ?? 64);
}

/** The task in this thread, releasing parse trees every BATCH_CHARS of source. */
async function mapHere<T>(task: Task, codes: string[], p: DedupParams): Promise<T[]> {
  const ctx = task === 'own-spans' ? null : fingerprintContext(p);
  const out: T[] = [];
  let chars = 0;
  for (const code of codes) {
    const one = !ctx
      ? ownCodeSpans(code)
      : task === 'own-code'
        ? ownCodeAndFingerprint(code, ctx)
        : fingerprint(code, ctx);
    out.push(one as T);
    chars += code.length;
    if (chars >= BATCH_CHARS) {
      chars = 0;
      await releaseTrees();
    }
  }
  if (chars > 0) await releaseTrees();
  return out;
}

/** Consecutive runs of codes, each at most `size` codes and about BATCH_CHARS of text: [start, end) pairs. */
function batchesOf(codes: string[], size: number): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let chars = 0;
  codes.forEach((code, i) => {
    chars += code.length;
    if (i + 1 - start >= size || chars >= BATCH_CHARS) {
      out.push([start, i + 1]);
      start = i + 1;
      chars = 0;
    }
  });
  if (start < codes.length) out.push([start, codes.length]);
  return out;
}

async function mapInWorkers<T>(
  task: Task,
  codes: string[],
  p: DedupParams,
  workerCount: number,
  batchSize: number,
): Promise<T[]> {
  // The workers' memory grows beside this thread's: what earlier stages left here (a build's index and assembled
  // modules, gigabytes that V8 sees no reason to collect yet) is collected first.
  await collectGarbage();
  const batches = batchesOf(codes, batchSize);
  const results: T[] = new Array(codes.length);
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let pending = batches.length;
      const send = (w: Worker) => {
        if (next >= batches.length) return;
        const [start, end] = batches[next++];
        w.postMessage({ task, start, codes: codes.slice(start, end) });
      };
      for (let k = 0; k < Math.min(workerCount, batches.length); k++) {
        const w = new Worker(new URL('./fingerprint-worker.mjs', import.meta.url), { workerData: { params: p } });
        workers.push(w);
        w.on('error', (err) => reject(new Error(`dedup: ${task} worker failed: ${err.message}`)));
        w.on('message', (msg: { ready?: boolean; start: number; results?: T[]; error?: string }) => {
          if (msg.ready) return send(w);
          if (msg.error !== undefined) return reject(new Error(`dedup: ${task} worker failed: ${msg.error}`));
          msg.results!.forEach((r, i) => (results[msg.start + i] = r));
          if (--pending === 0) resolve();
          else send(w);
        });
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
