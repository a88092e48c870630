// The validate stage's entry: runs every block through runner.py in a pool of sandboxed workers, with a result cache.
// A run in phases: can upstream code run here at all, is every record already cached under what the last worker
// said of itself, else the workers (pool.ts). See docs/validate.md.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxReport } from '../contract/build-info.ts';
import { bwrapAvailable, readableBy, sandboxHostUid } from '../sandbox/bwrap.ts';
import { keyed, sandboxReport, WorkerPool, type RunPlan } from './pool.ts';
import { emptyRecord } from './records.ts';
import { helloKey, recall } from './remembered.ts';
import { hasGpuDevices, NO_SANDBOX_DETAIL, pythonPrefixes } from './sandbox.ts';
import type { ValidateItem, ValidateOptions, ValidationRecord } from './types.ts';
import type { WorkerHello } from './worker.ts';

export { DEFAULT_SEED } from './pool.ts';

/** The runner's folder: runner.py (the process entry) and its package nnblocks_runner/; sandboxes get a copy. */
const RUNNER_DIR = fileURLToPath(new URL('./python/', import.meta.url));
/** A block's budget: its candidates, canonical counts and fidelity together (config `validate.blockBudgetMs`). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * The run's budget (config `validate.runBudgetMs`): 90 minutes, so that a CI shard (120 minutes, docs/ci.md) ends
 * with time for the rest of the build and saves its cache even when a corpus is full of blocks that use their whole
 * budget; the blocks left over are `skipped` and the next run validates them.
 */
export const DEFAULT_RUN_BUDGET_MS = 90 * 60_000;
export const DEFAULT_MEMORY_BYTES = 4 * 1024 ** 3;
/** Each block's private /tmp (a tmpfs wiped after every block). */
export const DEFAULT_TMP_BYTES = 256 * 1024 ** 2;

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

/**
 * A record's status as the stage reports it: a failure only for a distribution that is not installed
 * (`missing-dependency`) is `blocked`, not `failed`: not an attempt, and the pass rate leaves it out.
 */
export function settled(rec: ValidationRecord): ValidationRecord {
  return rec.status === 'failed' && rec.failureClass === 'missing-dependency' ? { ...rec, status: 'blocked' } : rec;
}

export interface ValidationRun {
  records: ValidationRecord[];
  /** How upstream code ran, as the first worker measured it; null when no worker started. */
  sandbox: SandboxReport | null;
}

/**
 * Validates blocks: parse, compile, import (own packages blocked), build, forward, backward, fidelity. The records
 * of `validateRun`, without the sandbox report: what most tests ask.
 */
export async function validateBlocks(items: ValidateItem[], opts: ValidateOptions): Promise<ValidationRecord[]> {
  return (await validateRun(items, opts)).records;
}

/**
 * The stage's entry: every item's record, in item order, and how upstream code ran. Upstream failures are records,
 * never exceptions; throws only when a worker itself cannot start. Without a working bubblewrap, or one that can't
 * drop privileges, every block is `skipped` unless `sandbox: false`.
 */
export async function validateRun(items: ValidateItem[], opts: ValidateOptions): Promise<ValidationRun> {
  const result: ValidationRun = { records: new Array(items.length), sandbox: null };
  if (items.length === 0) return result;
  const plan = planRun(items, opts, result.records);
  const refused = opts.sandbox ? sandboxRefusal(opts) : null;
  if (refused) {
    plan.skipAll(refused);
    return result;
  }
  // Every record cached under what the last worker said of itself: nothing to run, no worker to start.
  const known = recall(opts.workerFacts, plan.factsKey);
  if (known && allCached(plan, known)) {
    result.sandbox = sandboxReport(known, opts.sandbox, plan.tmpBytes);
    return result;
  }
  result.sandbox = await new WorkerPool(plan).run();
  return result;
}

/** The run's limits and settings, defaults filled in, and where its records go (`out`, in item order). */
function planRun(items: ValidateItem[], opts: ValidateOptions, out: ValidationRecord[]): RunPlan {
  const runBudgetMs = opts.runBudgetMs ?? DEFAULT_RUN_BUDGET_MS;
  const runEnds = performance.now() + runBudgetMs; // the workers' start counts: it is the run's time too
  const gpu = opts.device !== 'cpu' && hasGpuDevices();
  const runner = runnerVersion();
  let done = 0;
  const finish = (i: number, rec: ValidationRecord) => {
    out[i] = settled(rec);
    opts.onProgress?.(++done, items.length);
  };
  return {
    items,
    opts,
    runner,
    runnerDir: RUNNER_DIR,
    runEnds,
    runBudgetMs,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    memoryBytes: opts.memoryBytes ?? DEFAULT_MEMORY_BYTES,
    tmpBytes: opts.tmpBytes ?? DEFAULT_TMP_BYTES,
    corpus: {
      packages: [...new Set(opts.corpusPackages ?? [])].sort(),
      native: [...new Set(opts.nativeModules ?? [])].sort(),
    },
    runtime: ['/usr/', ...(opts.runtimeRoots ?? [])],
    gpu,
    factsKey: helloKey({
      runner,
      python: opts.python,
      sites: opts.sites ?? [],
      runtimeRoots: opts.runtimeRoots ?? [],
      environment: opts.environmentKey,
      device: opts.device,
      gpu,
      sandbox: opts.sandbox,
      nativeLibraries: [...(opts.nativeLibraries ?? [])].sort(),
    }),
    finish,
    skipAll: (detail: string, hello?: WorkerHello) =>
      items.forEach((it, i) => finish(i, emptyRecord(it, 'skipped', detail, hello))),
  };
}

/** Why upstream code cannot run in a sandbox here (no usable bubblewrap, a Python its user can't read), or null. */
function sandboxRefusal(opts: ValidateOptions): string | null {
  const bwrap = bwrapAvailable();
  if (!bwrap.ok)
    return bwrap.error === 'bwrap not found'
      ? NO_SANDBOX_DETAIL
      : `no sandbox: bubblewrap cannot run upstream code unprivileged here (${bwrap.error})`;
  const hidden = [...pythonPrefixes(opts.python), ...(opts.pythonRoots ?? [])].find(
    (p) => !readableBy(p, sandboxHostUid()),
  );
  return hidden
    ? `no sandbox: ${hidden} (the Python) is not readable by uid ${sandboxHostUid()}, the sandbox's user`
    : null;
}

/** Settles every record from the cache, under the keys `hello` gives, when all are there; false (nothing settled) else. */
function allCached(plan: RunPlan, hello: WorkerHello): boolean {
  const { runnable, keys } = keyed(plan, hello);
  const hits = keys.map((k) => plan.opts.cache?.get(k));
  if (!hits.every((h) => h !== undefined)) return false;
  hits.forEach((h, i) => plan.finish(i, { ...(JSON.parse(h!) as ValidationRecord), id: runnable[i].id, cached: true }));
  return true;
}
