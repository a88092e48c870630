// The validate stage's entry: runs every block through runner.py in a pool of sandboxed workers, with a result cache.
// See docs/validate.md.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheKey, type CacheKeyParts } from './cache-key.ts';
import { bwrapAvailable, hasGpuDevices, NO_SANDBOX_DETAIL, SANDBOX_WORK_ROOT, sandboxCommand } from './sandbox.ts';
import type { ValidateItem, ValidateOptions, ValidationRecord } from './types.ts';
import { RunnerWorker, type JobOutcome, type WorkerHello, type WorkerJob } from './worker.ts';

/** The runner's folder: runner.py (the process entry) and its package nnblocks_runner/, bound read-only in the sandbox. */
const RUNNER_DIR = fileURLToPath(new URL('./python/', import.meta.url));
export const RUNNER_PATH = join(RUNNER_DIR, 'runner.py');
/** The seed of every recipe; recorded in each recipe so a replay never depends on this constant. */
export const DEFAULT_SEED = 0;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MEMORY_BYTES = 4 * 1024 ** 3;
/**
 * Extra time the TypeScript backstop gives the runner's own per-block deadline before killing the sandbox: the
 * runner normally reports a timeout itself; the backstop is for a worker that can no longer report (stopped, hung).
 */
function backstopMs(timeoutMs: number): number {
  return timeoutMs + Math.min(10_000, Math.max(2_000, timeoutMs / 2));
}

/** Every Python file of the runner, in a fixed order (the runner version hashes them all). */
function runnerFiles(dir = RUNNER_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) =>
      e.isDirectory() ? runnerFiles(join(dir, e.name)) : e.name.endsWith('.py') ? [join(dir, e.name)] : [],
    );
}

/** Version of the runner: a change to any of its Python files invalidates every cached record. */
export function runnerVersion(): string {
  const hash = createHash('sha256');
  for (const file of runnerFiles()) hash.update(relative(RUNNER_DIR, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

function emptyRecord(
  item: ValidateItem,
  status: ValidationRecord['status'],
  detail: string,
  hello?: WorkerHello,
): ValidationRecord {
  return {
    id: item.id,
    status,
    failureClass: null,
    failureDetail: detail,
    stages: [],
    recipe: null,
    outputs: [],
    params: null,
    buffers: null,
    gradients: null,
    peakMemoryBytes: null,
    device: hello?.device ?? 'none',
    gpuName: hello?.gpuName ?? null,
    torchVersion: hello?.torchVersion ?? null,
    moduleTree: null,
    fidelity: { status: 'n/a', reason: 'block did not run' },
    stdoutTail: '',
    stderrTail: '',
    cached: false,
  };
}

/** A block whose worker died or hung past the backstop: the sandbox was killed, so all we know is how it ended. */
function lostRecord(
  item: ValidateItem,
  outcome: Extract<JobOutcome, { ok: false }>,
  hello: WorkerHello,
): ValidationRecord {
  const rec = emptyRecord(item, 'failed', outcome.detail.slice(-2000), hello);
  rec.failureClass = outcome.reason === 'backstop' ? 'timeout' : 'crashed';
  return rec;
}

function toJob(item: ValidateItem, timeoutMs: number, memoryBytes: number): WorkerJob {
  return {
    id: item.id,
    importRoot: item.importRoot,
    module: item.module,
    className: item.className,
    blocked: item.blockedPackages,
    overrides: item.overrides ?? null,
    original: item.original ?? null,
    seed: DEFAULT_SEED,
    timeoutMs,
    memoryBytes,
  };
}

/**
 * Validates blocks: parse, compile, import (own packages blocked), build, forward, backward, fidelity.
 * Upstream failures are records, never exceptions; throws only when the worker itself cannot start.
 * Without a working bubblewrap every block is `skipped` unless `sandbox: false`.
 */
export async function validateBlocks(items: ValidateItem[], opts: ValidateOptions): Promise<ValidationRecord[]> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const memoryBytes = opts.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  const out: ValidationRecord[] = new Array(items.length);
  let done = 0;
  const finish = (i: number, rec: ValidationRecord) => {
    out[i] = rec;
    opts.onProgress?.(++done, items.length);
  };
  if (items.length === 0) return out;

  if (opts.sandbox) {
    const bwrap = bwrapAvailable();
    if (!bwrap.ok) {
      const detail =
        bwrap.error === 'bwrap not found'
          ? NO_SANDBOX_DETAIL
          : `${NO_SANDBOX_DETAIL} (bubblewrap failed here: ${bwrap.error})`;
      items.forEach((it, i) => finish(i, emptyRecord(it, 'skipped', detail)));
      return out;
    }
  }

  const hostWork = opts.sandbox ? null : mkdtempSync(join(tmpdir(), 'nnblocks-validate-'));
  const roots = items.flatMap((it) => [it.importRoot, it.original?.importRoot ?? '']);
  const cmd = opts.sandbox
    ? sandboxCommand({
        python: opts.python,
        runner: RUNNER_PATH,
        readOnly: roots,
        gpu: opts.device !== 'cpu' && hasGpuDevices(),
      })
    : { file: opts.python, args: ['-I', '-B', '-u', RUNNER_PATH] };
  const helloIn = { device: opts.device, workRoot: hostWork ?? SANDBOX_WORK_ROOT, sandboxed: opts.sandbox };
  const workers: RunnerWorker[] = [];
  const start = async () => {
    const started = await RunnerWorker.start(cmd, helloIn);
    workers.push(started.worker);
    return started;
  };

  try {
    // The first worker tells us the torch version and the resolved device, which the cache keys need.
    const first = await start();
    const hello = first.hello;
    if (hello.error) {
      items.forEach((it, i) => finish(i, emptyRecord(it, 'skipped', hello.error!, hello)));
      return out;
    }
    const parts: CacheKeyParts = {
      runnerVersion: runnerVersion(),
      torchVersion: hello.torchVersion,
      device: hello.device,
      timeoutMs,
      memoryBytes,
      sandbox: opts.sandbox,
    };
    const keys = items.map((it) => cacheKey(it, parts));
    const pending: number[] = [];
    items.forEach((it, i) => {
      const hit = opts.cache?.get(keys[i]);
      if (hit === undefined) return void pending.push(i);
      finish(i, { ...(JSON.parse(hit) as ValidationRecord), id: it.id, cached: true });
    });

    const count = Math.max(1, Math.min(opts.workers ?? availableParallelism(), pending.length));
    let next = 0;
    const drain = async (initial: RunnerWorker) => {
      let worker = initial;
      while (next < pending.length) {
        const i = pending[next++];
        if (!worker.alive) worker = (await start()).worker; // the last block killed or crashed it
        const outcome = await worker.run(toJob(items[i], timeoutMs, memoryBytes), backstopMs(timeoutMs));
        if (!outcome.ok) {
          // Not cached: a dead worker may be our infrastructure as much as the block.
          finish(i, lostRecord(items[i], outcome, hello));
          continue;
        }
        const rec: ValidationRecord = { id: items[i].id, ...outcome.record, cached: false };
        opts.cache?.put(keys[i], JSON.stringify(rec));
        finish(i, rec);
      }
    };
    // The first worker drains at once; the others join as soon as their torch import is done.
    await Promise.all([
      drain(first.worker),
      ...Array.from({ length: count - 1 }, () => start().then((s) => drain(s.worker))),
    ]);
    return out;
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    if (hostWork) rmSync(hostWork, { recursive: true, force: true });
  }
}
