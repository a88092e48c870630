// Own code and fingerprints of the assembled modules, computed in a worker thread while the blocks are still being
// assembled (docs/dedup.md, "Caches"). Assembly runs on one core, in this thread, for about two minutes of a paper-
// corpus build; the other core had nothing to do but compile the originals' bytecode. The spec stage then cut the
// same modules' own code and fingerprinted it on both cores for a minute, after validation. Here each new module is
// handed to a worker as it is made, and what the worker has finished when assembly ends is kept in the caches that
// the spec stage reads (parallel.ts `ownCodes`): it finds those there and computes only the rest. The results are
// the same whichever computes them; what is prefetched changes how long the stages take, never what they make.
//
// The assembly loop is synchronous, so this thread takes no replies while it runs: the worker's progress is read
// from two shared ints instead, the codes go out in batches as they come, and no more are sent while MAX_BACKLOG
// batches wait (a slower worker is not handed the whole corpus's text to hold). At `settle`, the worker skips the
// batches it has not begun, and the replies already made are kept.
import { Worker } from 'node:worker_threads';
import { ownSpansKey, type KeptOwnCode, type KeyValueStore } from './cache.ts';
import { resolveParams } from './params.ts';
import type { DedupParams } from './types.ts';

/** Batches sent and not yet done above which a new module waits for the spec stage instead. */
const MAX_BACKLOG = 4;
/**
 * Module text per batch: a quarter of the spec stage's. The build process keeps what the worker thread used at its
 * most after the thread ends (the pages stay with the process), and validation's peak comes later: a batch's parse
 * trees are most of that, about 20 bytes a character. With 4 MB batches the process kept about 370 MB more after 600
 * of the paper corpus's modules, with 1 MB batches about 130 MB.
 */
const PREFETCH_BATCH_CHARS = 1_000_000;
/**
 * The worker thread's priority, the lowest: it is to take the core assembly leaves idle, never time from assembly or
 * from the originals' bytecode compile, which run beside it and which validation waits for.
 */
const NICE = 19;

export interface OwnCodeCaches {
  ownSpans: KeyValueStore;
  fingerprints: KeyValueStore;
}

export class OwnCodePrefetch {
  /** Started with the first batch: a build too small to fill one starts none. */
  private worker: Worker | null = null;
  private readonly control = new Int32Array(new SharedArrayBuffer(8)); // [stop, batches done]
  private readonly params: DedupParams;
  /** The own-spans keys of the modules handed over (keys, not texts: the texts are a build's largest data). */
  private readonly sent = new Set<string>();
  /** Batches sent and not answered: how many modules, and what settles their reply. */
  private readonly pending = new Map<number, { size: number; resolve: () => void }>();
  private readonly replies: Promise<void>[] = [];
  private batch: string[] = [];
  private chars = 0;
  private posted = 0;
  /** Modules kept in the caches, and modules left to the spec stage (backlog, or a batch begun too late). */
  private readonly counts = { kept: 0, left: 0 };

  private readonly batchChars: number;
  private readonly nice: number;

  /**
   * `batchChars`: module text per batch (a batch is what the worker skips or does whole); `nice`: the worker thread's
   * priority. Tests make the first small and the second the process's own.
   */
  constructor(
    private readonly caches: OwnCodeCaches,
    params?: Partial<DedupParams>,
    opts: { batchChars?: number; nice?: number } = {},
  ) {
    this.params = resolveParams(params);
    this.batchChars = opts.batchChars ?? PREFETCH_BATCH_CHARS;
    this.nice = opts.nice ?? NICE;
  }

  /** Batches the worker has finished (or skipped), read while this thread is busy. */
  get finished(): number {
    return Atomics.load(this.control, 1);
  }

  private start(): Worker {
    const worker = new Worker(new URL('./fingerprint-worker.mjs', import.meta.url), {
      workerData: { params: this.params, control: this.control.buffer, nice: this.nice },
    });
    worker.on('message', (msg: { start?: number; results?: KeptOwnCode[] }) => {
      const batch = msg.start === undefined ? undefined : this.pending.get(msg.start);
      if (!batch) return; // its `ready`
      this.pending.delete(msg.start!);
      for (const kept of msg.results ?? []) {
        this.caches.ownSpans.put(kept.spansKey, kept.spans);
        this.caches.fingerprints.put(kept.fingerprintKey, kept.fingerprint);
      }
      this.counts.kept += msg.results?.length ?? 0;
      this.counts.left += msg.results ? 0 : batch.size;
      batch.resolve();
    });
    // A worker that fails or ends leaves its modules to the spec stage: prefetching never fails a build.
    const lost = () => {
      Atomics.store(this.control, 0, 1);
      for (const batch of this.pending.values()) {
        this.counts.left += batch.size;
        batch.resolve();
      }
      this.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    return worker;
  }

  /** Hands one assembled module to the worker (unless its own code is cached, or it was handed already). */
  add(code: string): void {
    if (code === '') return;
    const key = ownSpansKey(code);
    if (this.sent.has(key) || this.caches.ownSpans.get(key) !== undefined) return;
    this.sent.add(key);
    this.batch.push(code);
    this.chars += code.length;
    if (this.chars >= this.batchChars) this.post();
  }

  /**
   * Stops the worker at its next batch, keeps what it made in the caches (the caller flushes them), and ends it.
   * Waits at most for the batch it is in.
   */
  async settle(): Promise<{ kept: number; left: number }> {
    this.counts.left += this.batch.length; // never sent: the spec stage makes these
    this.batch = [];
    Atomics.store(this.control, 0, 1);
    await Promise.all(this.replies);
    await this.worker?.terminate();
    return { ...this.counts };
  }

  private post(): void {
    const codes = this.batch;
    this.batch = [];
    this.chars = 0;
    if (this.posted - this.finished >= MAX_BACKLOG || Atomics.load(this.control, 0) !== 0) {
      this.counts.left += codes.length;
      return;
    }
    const start = this.posted++;
    this.replies.push(new Promise((resolve) => this.pending.set(start, { size: codes.length, resolve })));
    this.worker ??= this.start();
    this.worker.postMessage({ task: 'own-code-kept', start, codes });
  }
}
