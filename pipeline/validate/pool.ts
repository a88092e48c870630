// The workers of one validation run: runner.py processes, each in its own sandbox, started per import root an
// original needs (a block sees its own source's tree, never another's), fed blocks from one shared queue per root,
// and replaced when a block kills, stops or hangs one. The entry (validate.ts) decides whether workers start at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SandboxReport } from '../contract/build-info.ts';
import { hostIdentity, readableBy, sandboxHostUid } from '../sandbox/bwrap.ts';
import { seccompSupported } from '../sandbox/seccomp.ts';
import { cacheKey, type CacheKeyParts } from './cache-key.ts';
import { companionsFor, type Preloaded } from './companions.ts';
import { cacheable, lostRecord, pastRunBudget, retried } from './records.ts';
import { remember } from './remembered.ts';
import { runnerArgs, SANDBOX_INBOX, SANDBOX_WALLS, SANDBOX_WORK_ROOT, sandboxCommand } from './sandbox.ts';
import { createStaging, placeBlock, type Staging } from './staging.ts';
import type { ValidateItem, ValidateOptions, ValidationRecord } from './types.ts';
import { RunnerWorker, type JobOutcome, type WorkerCommand, type WorkerHello, type WorkerJob } from './worker.ts';

/** The seed of every recipe; recorded in each recipe so a replay never depends on this constant. */
export const DEFAULT_SEED = 0;

/**
 * Memory a block may add while other workers run blocks beside it (the shared tier; docs/validate.md, "Memory
 * tiers"). A block that meets this limit is stopped and runs again alone, one at a time per group, under the run's
 * full limit (`memoryBytes`, 4 GiB by default). Of the paper corpus's 3,556 blocks, 26 ever add more than 2 GiB:
 * without tiers two of them side by side, each near 4 GiB, were most of the build's peak memory. At 1 GiB (64
 * blocks above it) the runs again cost torchvision's 285 blocks a quarter of their time (105 s against 84 s on two
 * workers), at 2 GiB 4% (88 s).
 */
export const SHARED_MEMORY_BYTES = 2 * 1024 ** 3;

/**
 * One import root's blocks: the queue its workers share, and the blocks that met the shared tier's limit, which
 * run one at a time (`alone` is being drained by one worker while `soloBusy`).
 */
interface Lane {
  root: string;
  queue: number[];
  alone: number[];
  soloBusy: boolean;
  /** How many drains' workers serve this root now (a drain moving on prefers a lane none serves). */
  serving: number;
}

/** Whether a drain could take a block of `lane` now. */
const hasWork = (lane: Lane) => lane.queue.length > 0 || (lane.alone.length > 0 && !lane.soloBusy);

/** What one run decided before any worker starts, and where its records go. */
export interface RunPlan {
  items: ValidateItem[];
  opts: ValidateOptions;
  /** The runner's version (validate.ts, runnerVersion): part of every cache key. */
  runner: string;
  /** The runner's folder, copied into each sandbox. */
  runnerDir: string;
  /** When the run's budget ends (performance.now() time) and the budget itself. */
  runEnds: number;
  runBudgetMs: number;
  timeoutMs: number;
  memoryBytes: number;
  tmpBytes: number;
  corpus: WorkerJob['corpus'];
  /** Runtime roots: /usr and the environment's base (a runtime of the user's choosing or installed by nnblocks). */
  runtime: string[];
  /** Whether the sandboxes show the GPU's device nodes. */
  gpu: boolean;
  /** Under what the first worker's hello is remembered (remembered.ts). */
  factsKey: string;
  /** Settles item `i`'s record (and counts progress). */
  finish(i: number, rec: ValidationRecord): void;
  /** Every item skipped, saying why. */
  skipAll(detail: string, hello?: WorkerHello): void;
}

type Started = { worker: RunnerWorker; hello: WorkerHello; inbox: string };
/** A drain's worker: the one to run on (started when there is none alive), and how to end it. */
type Slot = { ready: () => Promise<Started>; kill: () => void };

/**
 * Extra time the TypeScript backstop gives the runner's own per-block deadline before killing the sandbox: the
 * runner normally reports a timeout itself; the backstop is for a worker that can no longer report (stopped, hung).
 */
function backstopMs(timeoutMs: number): number {
  return timeoutMs + Math.min(10_000, Math.max(2_000, timeoutMs / 2));
}

function toJob(
  item: ValidateItem,
  importRoot: string,
  timeoutMs: number,
  memoryBytes: number,
  corpus: WorkerJob['corpus'],
  memoryShared: boolean,
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
    moduleSlots: item.moduleSlots ?? [],
    original: item.original ?? null,
    seed: DEFAULT_SEED,
    timeoutMs,
    memoryBytes,
    ...(memoryShared ? { memoryShared } : {}),
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
  return root && !inRuntime(root, runtime) ? root : '';
}

/** Whether folder `root` is one of the runtime's roots or below one. */
function inRuntime(root: string, runtime: readonly string[]): boolean {
  return runtime.some((p) => `${root}/`.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/**
 * The packages of originals that are part of the runtime (torchvision under /usr or in the environment's base): the
 * workers that serve runtime roots import them once, before any block, instead of each block's child importing them
 * again for fidelity (~150 ms a block). They are installed like torch itself; a checkout's package, or anything of a
 * requirements layer, is upstream code and is only ever imported by a block's own contained child.
 */
function installedOriginals(items: ValidateItem[], runtime: readonly string[]): Preloaded[] {
  const seen = new Map<string, Preloaded>();
  for (const it of items) {
    if (!it.original || extraRoot(it, runtime) !== '') continue;
    const entry = { importRoot: it.original.importRoot, package: it.original.module.split('.')[0] };
    seen.set(`${entry.importRoot}\0${entry.package}`, entry);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
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

/** What build-info.json publishes of the sandbox a worker (or the remembered one) reported. */
export function sandboxReport(hello: WorkerHello, sandbox: boolean, tmpBytes: number): SandboxReport {
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
export function keyed(plan: RunPlan, hello: WorkerHello): { runnable: ValidateItem[]; keys: string[] } {
  const { opts, runtime } = plan;
  const parts: CacheKeyParts = {
    runnerVersion: plan.runner,
    torchVersion: hello.torchVersion,
    device: hello.device,
    timeoutMs: plan.timeoutMs,
    memoryBytes: plan.memoryBytes,
    sandbox: opts.sandbox,
    ...(opts.sandbox ? { walls: SANDBOX_WALLS } : {}),
    corpus: plan.corpus,
    nativeLibraries: hello.nativeLibraries,
    environment: opts.environmentKey,
  };
  const visible = (it: ValidateItem): ValidateItem =>
    opts.sandbox && extraRoot(it, runtime) && !readableBy(extraRoot(it, runtime), sandboxHostUid())
      ? { ...it, original: undefined }
      : it;
  const runnable = plan.items.map(visible);
  return { runnable, keys: runnable.map((it) => cacheKey(it, parts)) };
}

/**
 * The run once workers are needed: the first worker says what it runs as and with (torch, device); each root's
 * blocks not in the cache then drain through a pool of workers. Always closes its workers and staging.
 */
export class WorkerPool {
  private readonly staging: Staging;
  /** The workers' own work folder without a sandbox (a sandbox has a private one). */
  private readonly hostWork: string | null;
  private readonly preload: Preloaded[];
  /** Each root's companions (companions.ts), made at its first worker's start. */
  private readonly companions = new Map<string, Preloaded[]>();
  private readonly workers: RunnerWorker[] = [];
  private seq = 0;

  constructor(private readonly plan: RunPlan) {
    this.staging = createStaging(plan.runnerDir);
    this.hostWork = plan.opts.sandbox ? null : mkdtempSync(join(tmpdir(), 'nnblocks-validate-'));
    this.preload = installedOriginals(plan.items, plan.runtime);
  }

  /** Runs every block not cached; returns the sandbox the first worker reported. */
  async run(): Promise<SandboxReport> {
    try {
      const first = await this.start('');
      const hello = first.hello;
      const report = sandboxReport(hello, this.plan.opts.sandbox, this.plan.tmpBytes);
      const refused = this.plan.opts.sandbox ? privilegeProblem(hello) : null;
      if (refused || hello.error) {
        const why =
          refused && `no sandbox: upstream code was not run because the sandbox did not drop privileges: ${refused}`;
        this.plan.skipAll(why || hello.error!, hello);
        return report;
      }
      remember(this.plan.opts.workerFacts, this.plan.factsKey, hello);
      const groups = this.pending(hello);
      // One lane per import root, in root order; every drain takes blocks from the lane its worker serves, and when
      // that lane has none left, moves on to the first lane that has (its worker replaced by one of that root). So
      // no worker waits for another to finish a lane's last block, and the next root's worker starts beside it: on
      // the paper corpus, lane by lane, the workers' waits and starts were 100 s of a 2,400 s validation.
      const lanes: Lane[] = [...groups.queues]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([root, queue]) => ({ root, queue, alone: [], soloBusy: false, serving: 0 }));
      const blocks = lanes.reduce((n, l) => n + l.queue.length, 0);
      const drains = Math.max(1, Math.min(this.plan.opts.workers ?? availableParallelism(), blocks));
      // Tiers only where blocks run side by side and the limit is an address-space one (none on CUDA).
      const tiers = drains > 1 && hello.device !== 'cuda' && this.plan.memoryBytes > SHARED_MEMORY_BYTES;
      // The first worker (no extra root) is the first drain's: it serves lane '' or is closed for the next.
      await Promise.all(
        Array.from({ length: drains }, (_, k) => this.drain(groups, hello, lanes, tiers, k === 0 ? first : undefined)),
      );
      return report;
    } finally {
      await Promise.all(this.workers.map((w) => w.close()));
      if (this.hostWork) rmSync(this.hostWork, { recursive: true, force: true });
      this.staging.remove();
    }
  }

  /** Starts a worker whose sandbox shows `root` (an original's import root) besides the block it runs. */
  private async start(root: string): Promise<Started> {
    const { opts } = this.plan;
    const inbox = this.staging.inbox();
    const cmd: WorkerCommand = opts.sandbox
      ? {
          ...sandboxCommand({
            python: opts.python,
            runnerDir: this.staging.runnerDir,
            inboxDir: inbox,
            readOnly: root ? [root] : [],
            gpu: this.plan.gpu,
            tmpBytes: this.plan.tmpBytes,
            accountsDir: this.staging.dir,
            pythonRoots: opts.pythonRoots,
            sites: opts.sites,
          }),
          ...hostIdentity(),
          extraFds: this.staging.extraFds,
        }
      : { file: opts.python, args: runnerArgs(join(this.staging.runnerDir, 'runner.py'), opts.sites) };
    const started = await RunnerWorker.start(cmd, {
      device: opts.device,
      workRoot: this.hostWork ?? SANDBOX_WORK_ROOT,
      sandboxed: opts.sandbox,
      nativeLibraries: [...(opts.nativeLibraries ?? [])].sort(),
      // The runtime's workers import its originals too; a companion that is one of them is imported once.
      preload: this.preloadFor(root),
    });
    this.workers.push(started.worker);
    return { ...started, inbox };
  }

  /**
   * What a worker of `root` imports before any block: the runtime's workers ('') their originals, then every worker
   * its companions (companions.ts): the fixed ones, and the library modules its root's sources import (for '', the
   * runtime roots' sources). A companion that is one of the originals is imported once.
   */
  private preloadFor(root: string): Preloaded[] {
    let companions = this.companions.get(root);
    if (!companions) {
      const { opts, runtime } = this.plan;
      const imports = [...(opts.libraryImports ?? [])]
        .filter(([r]) => (root === '' ? inRuntime(r, runtime) : r === root))
        .flatMap(([, modules]) => modules);
      companions = companionsFor([...(opts.runtimeRoots ?? []), ...(opts.sites ?? [])], imports, root);
      this.companions.set(root, companions);
    }
    if (root !== '') return companions;
    return [...this.preload, ...companions.filter((c) => !this.preload.some((p) => p.package === c.package))];
  }

  /**
   * The blocks to run, by the root their sandbox shows; cached ones are settled here. Blocks with builders first:
   * they build production-size models and take seconds where most blocks take milliseconds, so the pool's last
   * minutes are not one worker running a big model while the other waits. Records keep their item order whatever
   * order they run in.
   */
  private pending(hello: WorkerHello): { runnable: ValidateItem[]; keys: string[]; queues: Map<string, number[]> } {
    const { runnable, keys } = keyed(this.plan, hello);
    const queues = new Map<string, number[]>();
    runnable.forEach((it, i) => {
      const hit = this.plan.opts.cache?.get(keys[i]);
      if (hit !== undefined)
        return this.plan.finish(i, { ...(JSON.parse(hit) as ValidationRecord), id: it.id, cached: true });
      const root = extraRoot(it, this.plan.runtime);
      queues.set(root, [...(queues.get(root) ?? []), i]);
    });
    const heavy = (i: number) => (runnable[i].usage?.some((c) => c.origin === 'builder') ? 0 : 1);
    for (const queue of queues.values()) queue.sort((a, b) => heavy(a) - heavy(b) || a - b);
    return { runnable, keys, queues };
  }

  /**
   * One try of block `i` on `worker`: its block placed in the worker's inbox for the job, removed after. `shared`:
   * under the shared memory tier.
   */
  private async attempt(worker: Started, item: ValidateItem, hello: WorkerHello, shared: boolean): Promise<JobOutcome> {
    const { opts, timeoutMs, corpus } = this.plan;
    const memoryBytes = shared ? SHARED_MEMORY_BYTES : this.plan.memoryBytes;
    const placed = placeBlock(worker.inbox, ++this.seq, item, hello.nativeLibraries);
    const importRoot = opts.sandbox ? `${SANDBOX_INBOX}/${basename(placed.root)}` : placed.root;
    try {
      const job = toJob(item, importRoot, timeoutMs, memoryBytes, corpus, shared);
      return await worker.worker.run(job, backstopMs(timeoutMs));
    } finally {
      placed.release();
    }
  }

  /**
   * Runs blocks one after another on one worker: those of the lane its worker serves, then of the next lane with
   * work (a worker of that root replaces it). With `tiers`, a block runs under the shared memory tier; one that meets
   * its limit goes to its lane's `alone` list, which one drain at a time takes before its next shared block, under the
   * full limit. `initial`: a worker already started for root ''.
   */
  private async drain(
    run: { runnable: ValidateItem[]; keys: string[] },
    hello: WorkerHello,
    lanes: Lane[],
    tiers: boolean,
    initial?: Started,
  ): Promise<void> {
    const { plan } = this;
    let worker = initial;
    let root = initial ? '' : null;
    /**
     * A worker for the next try: this one, or a fresh one where there is none yet (none starts for blocks the
     * run's budget leaves out) or the last block killed it, crashed it or left a process.
     */
    const ready = async () => (worker?.worker.alive ? worker : (worker = await this.start(root ?? '')));
    const slot: Slot = { ready, kill: () => worker?.worker.kill() };
    let serving = lanes.find((l) => l.root === root);
    if (serving) serving.serving++;
    for (;;) {
      // Its own lane while it has work; else a lane no other drain serves, so that each root's worker starts once
      // (the paper corpus has 22 roots, a worker's start is 3 to 5 s of torch and its companions); else any.
      const lane =
        lanes.find((l) => l.root === root && hasWork(l)) ??
        lanes.find((l) => l.serving === 0 && hasWork(l)) ??
        lanes.find(hasWork);
      if (!lane) break; // what is left runs alone, on the drain running one now
      if (lane.root !== root) {
        // Served from now: another drain choosing while this one closes its worker goes elsewhere.
        if (serving) serving.serving--;
        (serving = lane).serving++;
        // Its lane is done: the worker goes now, not when the whole run ends. Idle workers of finished roots (torch
        // and each distribution's runtime loaded, their pages no longer shared with any child) were most of the paper
        // corpus's 18.4 GiB peak.
        await worker?.worker.close();
        worker = undefined;
        root = lane.root;
        continue; // while it closed, another drain may have taken that lane's last block: choose again
      }
      const solo = lane.alone.length > 0 && !lane.soloBusy;
      const i = solo ? lane.alone.shift() : lane.queue.shift();
      if (i === undefined) continue;
      // Past the run's budget, no block starts: each left gets a record saying so (the one running finishes).
      if (performance.now() >= plan.runEnds) {
        plan.finish(i, pastRunBudget(run.runnable[i], plan.runBudgetMs, hello));
        continue;
      }
      lane.soloBusy ||= solo;
      try {
        const shared = tiers && !solo;
        const outcome = await this.attempt(await ready(), run.runnable[i], hello, shared);
        if (shared && outcome.ok && outcome.record.failureClass === 'memory') {
          lane.alone.push(i); // its record might differ under the full limit: run again alone, and keep that one
          continue;
        }
        await this.settle(run, hello, i, outcome, shared, slot);
      } finally {
        if (solo) lane.soloBusy = false;
      }
    }
    if (serving) serving.serving--;
    await worker?.worker.close();
  }

  /**
   * Block `i`'s record from its outcome, cached where it may be: a lost worker is killed, and the block tried once
   * more on a fresh one while the run has time (the same end twice is the block's, and cached).
   */
  private async settle(
    run: { runnable: ValidateItem[]; keys: string[] },
    hello: WorkerHello,
    i: number,
    first: JobOutcome,
    shared: boolean,
    { ready, kill }: Slot,
  ): Promise<void> {
    const { plan } = this;
    const item = run.runnable[i];
    let outcome = first;
    let twice = false;
    if (!outcome.ok) {
      // Whatever lost the worker, it is not reused: it may be stopped, gone, or hold the block's leftovers.
      kill();
      // A worker that died or hung may have been the machine's doing: once more, on a fresh worker, while the
      // run has time. The same end twice is the block's, and cached.
      if (retried(outcome) && performance.now() < plan.runEnds) {
        const again = await this.attempt(await ready(), item, hello, shared);
        twice = !again.ok && again.reason === outcome.reason;
        if (!again.ok) kill();
        outcome = twice ? outcome : again;
      }
    }
    const rec: ValidationRecord = outcome.ok
      ? { id: plan.items[i].id, ...outcome.record, cached: false }
      : lostRecord(item, outcome, hello, twice);
    if (plan.items[i].original && !item.original && rec.fidelity.status === 'n/a' && outcome.ok)
      rec.fidelity = {
        status: 'n/a',
        reason: `the original is not readable by uid ${sandboxHostUid()}, the sandbox's user`,
      };
    if (cacheable(rec, outcome, twice)) plan.opts.cache?.put(run.keys[i], JSON.stringify(rec));
    plan.finish(i, rec);
  }
}
