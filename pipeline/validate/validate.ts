// The validate stage's entry: runs every block through runner.py in a pool of sandboxed workers, with a result cache.
// See docs/validate.md.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxReport } from '../catalog/contract.ts';
import { cacheKey, type CacheKeyParts } from './cache-key.ts';
import { bwrapAvailable, hostIdentity, readableBy, sandboxHostUid } from '../sandbox/bwrap.ts';
import { seccompSupported } from '../sandbox/seccomp.ts';
import {
  hasGpuDevices,
  NO_SANDBOX_DETAIL,
  pythonPrefixes,
  runnerArgs,
  SANDBOX_INBOX,
  SANDBOX_WALLS,
  SANDBOX_WORK_ROOT,
  sandboxCommand,
} from './sandbox.ts';
import { cacheable, emptyRecord, lostRecord, pastRunBudget, retried } from './records.ts';
import { helloKey, recall, remember } from './remembered.ts';
import { createStaging, placeBlock } from './staging.ts';
import type { ValidateItem, ValidateOptions, ValidationRecord } from './types.ts';
import { RunnerWorker, type JobOutcome, type WorkerCommand, type WorkerHello, type WorkerJob } from './worker.ts';

/** The runner's folder: runner.py (the process entry) and its package nnblocks_runner/; sandboxes get a copy. */
const RUNNER_DIR = fileURLToPath(new URL('./python/', import.meta.url));
/** The seed of every recipe; recorded in each recipe so a replay never depends on this constant. */
export const DEFAULT_SEED = 0;
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

/**
 * A record's status as the stage reports it: a failure only for a distribution that is not installed
 * (`missing-dependency`) is `blocked`, not `failed`: not an attempt, and the pass rate leaves it out.
 */
export function settled(rec: ValidationRecord): ValidationRecord {
  return rec.status === 'failed' && rec.failureClass === 'missing-dependency' ? { ...rec, status: 'blocked' } : rec;
}

function toJob(
  item: ValidateItem,
  importRoot: string,
  timeoutMs: number,
  memoryBytes: number,
  corpus: WorkerJob['corpus'],
): WorkerJob {
  return {
    id: item.id,
    importRoot,
    module: item.module,
    className: item.className,
    blocked: item.blockedPackages,
    overrides: item.overrides ?? null,
    usage: item.usage ?? [],
    usageInputs: item.usageInputs ?? [],
    original: item.original ?? null,
    seed: DEFAULT_SEED,
    timeoutMs,
    memoryBytes,
    corpus,
  };
}

/**
 * The folder an item's original class imports from that its sandbox must show, or '' for none: an original of the
 * runtime (under /usr or the environment's base, `runtime`), which every sandbox shows. Workers are grouped by it,
 * so a block sees its own source's tree (for fidelity) and never another source's.
 */
function extraRoot(item: ValidateItem, runtime: readonly string[]): string {
  const root = item.original?.importRoot ?? '';
  return root && !runtime.some((p) => `${root}/`.startsWith(p.endsWith('/') ? p : `${p}/`)) ? root : '';
}

/**
 * The packages of originals that are part of the runtime (torchvision under /usr or in the environment's base): the
 * workers that serve runtime roots import them once, before any block, instead of each block's child importing them
 * again for fidelity (~150 ms a block). They are installed like torch itself; a checkout's package, or anything of a
 * requirements layer, is upstream code and is only ever imported by a block's own contained child.
 */
function installedOriginals(
  items: ValidateItem[],
  runtime: readonly string[],
): { importRoot: string; package: string }[] {
  const seen = new Map<string, { importRoot: string; package: string }>();
  for (const it of items) {
    if (!it.original || extraRoot(it, runtime) !== '') continue;
    const entry = { importRoot: it.original.importRoot, package: it.original.module.split('.')[0] };
    seen.set(`${entry.importRoot}\0${entry.package}`, entry);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** Packages of the runtime that blocks of every corpus import (detr's, dino's, yolo's `torchvision.ops`...). */
const COMPANIONS = ['torchvision'];

/**
 * The runtime's companion packages, where its site folders hold them: every worker imports them once before any
 * block (about a second each on torch 2.x) instead of each block's child doing it again. A block whose corpus
 * provides one of them still never sees it: the Blocker takes preloaded packages it refuses out of sys.modules.
 */
function runtimeCompanions(
  runtime: readonly string[],
  already: { importRoot: string; package: string }[],
): { importRoot: string; package: string }[] {
  const out: { importRoot: string; package: string }[] = [];
  for (const pkg of COMPANIONS) {
    if (already.some((e) => e.package === pkg)) continue;
    const root = runtime.find((r) => existsSync(join(r, pkg, '__init__.py')));
    if (root) out.push({ importRoot: root, package: pkg });
  }
  return out;
}

/** Why a sandbox that started anyway must not run upstream code, or null when it dropped every privilege. */
function privilegeProblem(hello: WorkerHello): string | null {
  const id = hello.identity;
  if (id.uid === 0 || id.gid === 0) return `it runs as uid ${id.uid} gid ${id.gid}`;
  if (!/^0+$/.test(id.capEff)) return `it kept capabilities (CapEff ${id.capEff})`;
  if (!id.noNewPrivs) return 'no_new_privs is not set';
  if (seccompSupported() && !id.seccomp) return 'the seccomp filter is not installed';
  return null;
}

export interface ValidationRun {
  records: ValidationRecord[];
  /** How upstream code ran, as the first worker measured it; null when no worker started. */
  sandbox: SandboxReport | null;
}

/**
 * Validates blocks: parse, compile, import (own packages blocked), build, forward, backward, fidelity.
 * Upstream failures are records, never exceptions; throws only when the worker itself cannot start.
 * Without a working bubblewrap, or one that can't drop privileges, every block is `skipped` unless `sandbox: false`.
 */
export async function validateBlocks(items: ValidateItem[], opts: ValidateOptions): Promise<ValidationRecord[]> {
  return (await validateRun(items, opts)).records;
}

export async function validateRun(items: ValidateItem[], opts: ValidateOptions): Promise<ValidationRun> {
  const runBudgetMs = opts.runBudgetMs ?? DEFAULT_RUN_BUDGET_MS;
  const runEnds = performance.now() + runBudgetMs; // the workers' start counts: it is the run's time too
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const memoryBytes = opts.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  const tmpBytes = opts.tmpBytes ?? DEFAULT_TMP_BYTES;
  const corpus = {
    packages: [...new Set(opts.corpusPackages ?? [])].sort(),
    native: [...new Set(opts.nativeModules ?? [])].sort(),
  };
  const out: ValidationRecord[] = new Array(items.length);
  const run: ValidationRun = { records: out, sandbox: null };
  let done = 0;
  const finish = (i: number, rec: ValidationRecord) => {
    out[i] = settled(rec);
    opts.onProgress?.(++done, items.length);
  };
  const skipAll = (detail: string, hello?: WorkerHello) =>
    items.forEach((it, i) => finish(i, emptyRecord(it, 'skipped', detail, hello)));
  if (items.length === 0) return run;

  if (opts.sandbox) {
    const bwrap = bwrapAvailable();
    if (!bwrap.ok) {
      skipAll(
        bwrap.error === 'bwrap not found'
          ? NO_SANDBOX_DETAIL
          : `no sandbox: bubblewrap cannot run upstream code unprivileged here (${bwrap.error})`,
      );
      return run;
    }
    const hidden = [...pythonPrefixes(opts.python), ...(opts.pythonRoots ?? [])].find(
      (p) => !readableBy(p, sandboxHostUid()),
    );
    if (hidden) {
      skipAll(`no sandbox: ${hidden} (the Python) is not readable by uid ${sandboxHostUid()}, the sandbox's user`);
      return run;
    }
  }

  const gpu = opts.device !== 'cpu' && hasGpuDevices();
  const runtime = ['/usr/', ...(opts.runtimeRoots ?? [])];
  const corpusKey = { timeoutMs, memoryBytes, corpus, runtime };
  const factsKey = helloKey({
    runner: runnerVersion(),
    python: opts.python,
    sites: opts.sites ?? [],
    runtimeRoots: opts.runtimeRoots ?? [],
    environment: opts.environmentKey,
    device: opts.device,
    gpu,
    sandbox: opts.sandbox,
    nativeLibraries: [...(opts.nativeLibraries ?? [])].sort(),
  });
  // Every record cached under what the last worker said of itself: nothing to run, no worker to start.
  const known = recall(opts.workerFacts, factsKey);
  if (known) {
    const { runnable, keys } = keyed(items, known, opts, corpusKey);
    const hits = keys.map((k) => opts.cache?.get(k));
    if (hits.every((h) => h !== undefined)) {
      run.sandbox = sandboxReport(known, opts.sandbox, tmpBytes);
      hits.forEach((h, i) => finish(i, { ...(JSON.parse(h!) as ValidationRecord), id: runnable[i].id, cached: true }));
      return run;
    }
  }

  const staging = createStaging(RUNNER_DIR);
  const hostWork = opts.sandbox ? null : mkdtempSync(join(tmpdir(), 'nnblocks-validate-'));
  const helloIn = {
    device: opts.device,
    workRoot: hostWork ?? SANDBOX_WORK_ROOT,
    sandboxed: opts.sandbox,
    nativeLibraries: [...(opts.nativeLibraries ?? [])].sort(),
  };
  // Runtime roots: /usr and the environment's base (a runtime of the user's choosing or installed by nnblocks).
  const preload = installedOriginals(items, runtime);
  const companions = runtimeCompanions(opts.runtimeRoots ?? [], preload);
  const workers: RunnerWorker[] = [];
  /** Starts a worker whose sandbox shows `root` (an original's import root) besides the block it runs. */
  const start = async (root: string) => {
    const inbox = staging.inbox();
    const cmd: WorkerCommand = opts.sandbox
      ? {
          ...sandboxCommand({
            python: opts.python,
            runnerDir: staging.runnerDir,
            inboxDir: inbox,
            readOnly: root ? [root] : [],
            gpu,
            tmpBytes,
            accountsDir: staging.dir,
            pythonRoots: opts.pythonRoots,
            sites: opts.sites,
          }),
          ...hostIdentity(),
          extraFds: staging.extraFds,
        }
      : { file: opts.python, args: runnerArgs(join(staging.runnerDir, 'runner.py'), opts.sites) };
    const started = await RunnerWorker.start(cmd, {
      ...helloIn,
      preload: root === '' ? [...preload, ...companions] : companions,
    });
    workers.push(started.worker);
    return { ...started, inbox };
  };

  try {
    // The first worker tells us the torch version, the resolved device and who the sandbox really runs as.
    const first = await start('');
    const hello = first.hello;
    run.sandbox = sandboxReport(hello, opts.sandbox, tmpBytes);
    const refused = opts.sandbox ? privilegeProblem(hello) : null;
    if (refused) {
      skipAll(`no sandbox: upstream code was not run because the sandbox did not drop privileges: ${refused}`, hello);
      return run;
    }
    if (hello.error) {
      skipAll(hello.error, hello);
      return run;
    }
    remember(opts.workerFacts, factsKey, hello);
    const { runnable, keys } = keyed(items, hello, opts, corpusKey);
    const groups = new Map<string, number[]>();
    runnable.forEach((it, i) => {
      const hit = opts.cache?.get(keys[i]);
      if (hit !== undefined) return finish(i, { ...(JSON.parse(hit) as ValidationRecord), id: it.id, cached: true });
      const root = extraRoot(it, runtime);
      groups.set(root, [...(groups.get(root) ?? []), i]);
    });
    // Blocks with builders first: they build production-size models and take seconds where most blocks take
    // milliseconds, so the pool's last minutes are not one worker running a big model while the other waits.
    // Records keep their item order whatever order they run in.
    const heavy = (i: number) => (runnable[i].usage?.some((c) => c.origin === 'builder') ? 0 : 1);
    for (const pending of groups.values()) pending.sort((a, b) => heavy(a) - heavy(b) || a - b);

    let seq = 0;
    type Started = Awaited<ReturnType<typeof start>>;
    /** One try of block `i` on `worker`: its block placed in the worker's inbox for the job, removed after. */
    const attempt = async (worker: Started, i: number): Promise<JobOutcome> => {
      const placed = placeBlock(worker.inbox, ++seq, runnable[i], hello.nativeLibraries);
      const importRoot = opts.sandbox ? `${SANDBOX_INBOX}/${basename(placed.root)}` : placed.root;
      try {
        return await worker.worker.run(
          toJob(runnable[i], importRoot, timeoutMs, memoryBytes, corpus),
          backstopMs(timeoutMs),
        );
      } finally {
        placed.release();
      }
    };
    const drain = async (root: string, pending: number[], initial?: Started) => {
      let worker = initial;
      /**
       * A worker for the next try: this one, or a fresh one where there is none yet (none starts for blocks the
       * run's budget leaves out) or the last block killed it, crashed it or left a process.
       */
      const ready = async () => (worker?.worker.alive ? worker : (worker = await start(root)));
      while (pending.length > 0) {
        const i = pending.shift()!;
        // Past the run's budget, no block starts: each left gets a record saying so (the one running finishes).
        if (performance.now() >= runEnds) {
          finish(i, pastRunBudget(runnable[i], runBudgetMs, hello));
          continue;
        }
        let outcome = await attempt(await ready(), i);
        let twice = false;
        if (!outcome.ok) {
          // Whatever lost the worker, it is not reused: it may be stopped, gone, or hold the block's leftovers.
          worker?.worker.kill();
          // A worker that died or hung may have been the machine's doing: once more, on a fresh worker, while the
          // run has time. The same end twice is the block's, and cached.
          if (retried(outcome) && performance.now() < runEnds) {
            const again = await attempt(await ready(), i);
            twice = !again.ok && again.reason === outcome.reason;
            if (!again.ok) worker?.worker.kill();
            outcome = twice ? outcome : again;
          }
        }
        const rec: ValidationRecord = outcome.ok
          ? { id: items[i].id, ...outcome.record, cached: false }
          : lostRecord(runnable[i], outcome, hello, twice);
        if (items[i].original && !runnable[i].original && rec.fidelity.status === 'n/a' && outcome.ok)
          rec.fidelity = {
            status: 'n/a',
            reason: `the original is not readable by uid ${sandboxHostUid()}, the sandbox's user`,
          };
        if (cacheable(rec, outcome, twice)) opts.cache?.put(keys[i], JSON.stringify(rec));
        finish(i, rec);
      }
    };
    // Per group, a pool of workers drains one shared queue; the first worker (no extra root) serves group ''.
    const count = opts.workers ?? availableParallelism();
    for (const [root, pending] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const size = Math.max(1, Math.min(count, pending.length));
      const reuse = root === '' ? first : undefined;
      await Promise.all(Array.from({ length: size }, (_, k) => drain(root, pending, k === 0 ? reuse : undefined)));
    }
    if (!groups.has('')) first.worker.kill();
    return run;
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    if (hostWork) rmSync(hostWork, { recursive: true, force: true });
    staging.remove();
  }
}

/** What build-info.json publishes of the sandbox a worker (or the remembered one) reported. */
function sandboxReport(hello: WorkerHello, sandbox: boolean, tmpBytes: number): SandboxReport {
  return {
    enabled: sandbox,
    uid: hello.identity.uid,
    gid: hello.identity.gid,
    hostUid: sandbox ? sandboxHostUid() : (process.getuid?.() ?? hello.identity.uid),
    capEff: hello.identity.capEff,
    noNewPrivs: hello.identity.noNewPrivs,
    seccomp: hello.identity.seccomp,
    device: hello.device,
    tmpBytes: sandbox ? tmpBytes : null,
    // Published as `<package>/<file>`: the host path would tell readers where this machine keeps its packages.
    ...(hello.nativeLibraries.length > 0
      ? { nativeLibraries: hello.nativeLibraries.map((p) => `${basename(dirname(p))}/${basename(p)}`) }
      : {}),
  };
}

/**
 * The items as they run (an original the sandbox's user can't read would stop its sandbox from starting: no
 * fidelity for it) and each one's cache key under what `hello` says of the worker.
 */
function keyed(
  items: ValidateItem[],
  hello: WorkerHello,
  opts: ValidateOptions,
  run: { timeoutMs: number; memoryBytes: number; corpus: CacheKeyParts['corpus']; runtime: string[] },
): { runnable: ValidateItem[]; keys: string[] } {
  const parts: CacheKeyParts = {
    runnerVersion: runnerVersion(),
    torchVersion: hello.torchVersion,
    device: hello.device,
    timeoutMs: run.timeoutMs,
    memoryBytes: run.memoryBytes,
    sandbox: opts.sandbox,
    ...(opts.sandbox ? { walls: SANDBOX_WALLS } : {}),
    corpus: run.corpus,
    nativeLibraries: hello.nativeLibraries,
    environment: opts.environmentKey,
  };
  const visible = (it: ValidateItem): ValidateItem =>
    opts.sandbox && extraRoot(it, run.runtime) && !readableBy(extraRoot(it, run.runtime), sandboxHostUid())
      ? { ...it, original: undefined }
      : it;
  const runnable = items.map(visible);
  return { runnable, keys: runnable.map((it) => cacheKey(it, parts)) };
}
