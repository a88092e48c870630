// One validate worker: a runner.py process (inside bubblewrap unless the user said --no-sandbox) fed one job at a time.
import { randomBytes } from 'node:crypto';
import { closeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { NnblocksError } from '../contract/diagnostics.ts';
import { checkRunnerRecord } from './record-check.ts';
import type { RunnerRecord } from '../contract/runner-record.ts';
import {
  runDevice,
  type InputSpec,
  type RecipeCandidate,
  type RunDevice,
  type ValidateItem,
  type ValidateOverride,
} from './types.ts';
import { hostPid, isStopped } from './watch.ts';

/** Who the worker runs as, measured by itself from /proc/self/status. */
export interface WorkerIdentity {
  uid: number;
  gid: number;
  /** CapEff as the kernel prints it (16 hex digits). */
  capEff: string;
  noNewPrivs: boolean;
  /** Whether a seccomp filter is installed (Seccomp: 2). */
  seccomp: boolean;
}

export interface WorkerHello {
  /** Resolved device: cuda when `auto` found one. */
  device: RunDevice;
  gpuName: string | null;
  torchVersion: string;
  python: string;
  /** Set when the requested device cannot be used (cuda without CUDA). */
  error: string | null;
  identity: WorkerIdentity;
  /** Compiled op libraries the worker loaded (ValidateOptions.nativeLibraries that exist and load). */
  nativeLibraries: string[];
  /** The worker's pid in its own pid namespace (2 in a sandbox): how the host finds it (watch.ts). */
  pid: number | null;
}

export interface WorkerJob {
  id: string;
  importRoot: string;
  module: string;
  className: string;
  blocked: string[];
  overrides: ValidateOverride | null;
  usage: RecipeCandidate[];
  usageInputs: InputSpec[][];
  moduleSlots?: string[];
  original: ValidateItem['original'] | null;
  seed: number;
  timeoutMs: number;
  memoryBytes: number;
  /**
   * Run under the shared memory tier (pool.ts, `SHARED_MEMORY_BYTES`): a memory error anywhere stops the block with
   * class `memory`, and the pool runs it again alone under the full limit.
   */
  memoryShared?: boolean;
  /** What classification knows of the corpus: its top-level packages and the extensions its setup.py declare. */
  corpus: { packages: string[]; native: string[] };
}

export type JobOutcome =
  /** `cache`: false when the worker says the record is about the machine (a timeout on a loaded machine). */
  | { ok: true; record: RunnerRecord; cache: boolean }
  /**
   * The worker died (`exited`), was stopped by the block and killed at once (`stopped`), was killed by the
   * TypeScript backstop (`backstop`), or sent a record that breaks the protocol (`protocol`: malformed, see
   * record-check.ts); the worker must be replaced.
   */
  | { ok: false; reason: 'exited' | 'stopped' | 'backstop' | 'protocol'; detail: string };

/** How to start a worker: the command, the host identity to start it as, and extra fds (the seccomp program). */
export interface WorkerCommand {
  file: string;
  args: string[];
  uid?: number;
  gid?: number;
  /** Opened anew for each start (stdio index 4 and up); closed here once the process has it. */
  extraFds?: () => number[];
}

const KEEP = 8000;
/** How often a job's worker is checked for being stopped (watch.ts). */
const WATCH_MS = 500;
/** A result line longer than this is not a record the runner writes (its fields are capped): drop the buffer. */
const MAX_LINE = 16 << 20;

function spawn(cmd: WorkerCommand) {
  const extra = cmd.extraFds?.() ?? [];
  try {
    return execa(cmd.file, cmd.args, {
      // fd 3: the result pipe, the only stream ever parsed; fd 4 on: already open files, passed as they are (execa
      // takes a number there at run time; its types don't list it for extra fds).
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', ...(extra as unknown as 'ignore'[])],
      buffer: false,
      reject: false,
      detached: true, // its own process group, so one kill reaches bwrap and everything under it
      cleanup: true,
      extendEnv: false,
      // Nothing of ours reaches the sandbox (bwrap --clearenv sets its own); without one, the runner gets these.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
      ...(cmd.uid !== undefined ? { uid: cmd.uid, gid: cmd.gid } : {}),
    });
  } finally {
    for (const fd of extra) closeSync(fd);
  }
}
type Proc = ReturnType<typeof spawn>;

export class RunnerWorker {
  private buffer = '';
  private stderr = '';
  private waiting: ((outcome: JobOutcome) => void) | null = null;
  /** The job being run: its id, and its token once sealed (sent only after the worker forked its child). */
  private current: { id: string; token: string } | null = null;
  private readyWaiter: { resolve: (h: WorkerHello) => void; reject: (e: Error) => void } | null = null;
  private exited = false;
  /** Set the moment we kill it: its exit event comes later, and no job may be sent to it in between. */
  private killed = false;
  /** Lines on the result pipe without this run's nonce: never trusted, counted for the report. */
  forgedLines = 0;
  /** The worker's pid on the host, found once it is ready (null: /proc can't tell; the backstop still holds). */
  private host: number | null = null;
  /**
   * Without a sandbox, the running block's process group (its child calls setsid): killing the worker's group does
   * not reach it, and a block that stopped or killed its worker would otherwise live on (there is no pid namespace
   * whose end takes it along). Null in a sandbox, and between jobs.
   */
  private child: number | null = null;
  private sandboxed = true;

  private constructor(
    private readonly proc: Proc,
    private readonly nonce: string,
  ) {
    const results = proc.stdio[3] as Readable;
    results.setEncoding('utf8');
    results.on('data', (chunk: string) => this.onData(chunk));
    const keep = (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-KEEP);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    void proc.then(
      () => this.onExit(),
      () => this.onExit(),
    );
  }

  /** Starts a worker and waits for its `ready` line (it imports torch first). Throws when it never gets there. */
  static async start(
    cmd: WorkerCommand,
    hello: {
      device: string;
      workRoot: string;
      sandboxed: boolean;
      nativeLibraries: string[];
      /** Installed originals' packages to import once, before any block (fidelity without a per-block import). */
      preload: { importRoot: string; package: string }[];
    },
    timeoutMs = 120_000,
  ): Promise<{ worker: RunnerWorker; hello: WorkerHello }> {
    const nonce = randomBytes(16).toString('hex');
    const proc = spawn(cmd);
    const worker = new RunnerWorker(proc, nonce);
    worker.sandboxed = hello.sandboxed;
    const ready = new Promise<WorkerHello>((resolve, reject) => {
      worker.readyWaiter = { resolve, reject };
    });
    proc.stdin?.write(JSON.stringify({ nonce, ...hello }) + '\n');
    const timer = setTimeout(
      () => worker.readyWaiter?.reject(new Error(`no ready line within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      const said = await ready;
      if (proc.pid !== undefined && said.pid !== null) worker.host = hostPid(proc.pid, said.pid);
      return { worker, hello: said };
    } catch (err) {
      worker.kill();
      throw new NnblocksError(
        `validate worker did not start: ${(err as Error).message}\n${worker.stderr.trim()}`,
        'validate',
        'check that the configured python imports torch, and that bubblewrap works (or pass --no-sandbox)',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs one job; the backstop kills the whole sandbox when the runner's own deadline did not fire, and a worker the
   * block stopped (SIGSTOP) is killed as soon as the host sees it stopped. The job's token goes out only when the
   * worker says it `started` (forked the block's child), and its result counts only with that id and token: no
   * block ever holds a token, so none can write a record for another.
   */
  run(job: WorkerJob, backstopMs: number): Promise<JobOutcome> {
    if (!this.alive) return Promise.resolve({ ok: false, reason: 'exited', detail: 'the worker had exited' });
    return new Promise<JobOutcome>((resolve) => {
      /**
       * Every way a job ends goes through here: both clocks (declared below, running by the time it is called) stop;
       * a live interval would keep Node running.
       */
      const settle = (outcome: JobOutcome, killWorker: boolean) => {
        clearTimeout(timer);
        clearInterval(watch);
        this.waiting = null;
        this.current = null;
        if (killWorker) this.kill();
        this.child = null; // the worker ended the block's group itself
        resolve(outcome);
      };
      const timer = setTimeout(
        () =>
          settle(
            { ok: false, reason: 'backstop', detail: `no result within ${backstopMs} ms; the sandbox was killed` },
            true,
          ),
        backstopMs,
      );
      // Nothing of ours stops a process: a stopped worker was stopped by the block (or a person's debugger).
      const watch = setInterval(() => {
        if (this.host === null || !isStopped(this.host)) return;
        const detail = 'signal: the block stopped its worker (the kernel showed it stopped); the sandbox was killed';
        settle({ ok: false, reason: 'stopped', detail }, true);
      }, WATCH_MS);
      this.current = { id: job.id, token: randomBytes(16).toString('hex') };
      this.waiting = (outcome) => settle(outcome, false);
      this.proc.stdin?.write(JSON.stringify(job) + '\n');
    });
  }

  get alive(): boolean {
    return !this.exited && !this.killed;
  }

  /** Kills the worker's whole process group (bwrap, its pid namespace with it), and without a sandbox the block's. */
  kill(): void {
    this.killed = true;
    this.endChild();
    if (this.exited || this.proc.pid === undefined) return;
    try {
      process.kill(-this.proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Kills the block's process group when the worker can't (no sandbox, and the worker killed or gone). */
  private endChild(): void {
    if (this.child === null) return;
    try {
      process.kill(-this.child, 'SIGKILL');
    } catch {
      // already gone
    }
    this.child = null;
  }

  /** Ends the job stream and waits for the worker to leave; kills it after `graceMs`. */
  async close(graceMs = 3000): Promise<void> {
    if (this.exited) return;
    this.proc.stdin?.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.proc.catch(() => undefined);
    clearTimeout(timer);
    this.kill(); // anything left in the group
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_LINE && !this.buffer.includes('\n')) {
      this.buffer = '';
      this.forgedLines += 1;
      return;
    }
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let msg: {
        nonce?: unknown;
        type?: unknown;
        id?: unknown;
        token?: unknown;
        record?: unknown;
        retire?: unknown;
        cache?: unknown;
        child?: unknown;
      };
      try {
        msg = JSON.parse(line);
      } catch {
        this.forgedLines += 1;
        continue;
      }
      if (typeof msg !== 'object' || msg === null || msg.nonce !== this.nonce) {
        this.forgedLines += 1;
        continue;
      }
      if (msg.type === 'ready' && this.readyWaiter) {
        const hello = readHello(msg);
        if (hello) this.readyWaiter.resolve(hello);
        else this.readyWaiter.reject(new Error('malformed ready line'));
        this.readyWaiter = null;
      } else if (msg.type === 'started' && this.current && msg.id === this.current.id) {
        const child = msg.child;
        if (!this.sandboxed && typeof child === 'number' && Number.isSafeInteger(child) && child > 1)
          this.child = child;
        this.proc.stdin?.write(JSON.stringify({ token: this.current.token }) + '\n');
      } else if (
        msg.type === 'result' &&
        this.current &&
        msg.id === this.current.id &&
        msg.token === this.current.token
      ) {
        // A worker that could not clear its sandbox ends itself after this result; no job may go to it.
        if (msg.retire === true) this.killed = true;
        const checked = checkRunnerRecord(msg.record);
        this.waiting?.(
          checked.ok
            ? { ...checked, cache: msg.cache !== false }
            : { ok: false, reason: 'protocol', detail: checked.why },
        );
      } else {
        this.forgedLines += 1;
      }
    }
  }

  private onExit(): void {
    this.exited = true;
    this.endChild();
    this.readyWaiter?.reject(new Error(`the worker exited before it was ready`));
    this.readyWaiter = null;
    // Not the worker's stderr: the sandbox's processes can write to it, and this detail is published.
    this.waiting?.({ ok: false, reason: 'exited', detail: 'the worker exited without reporting a result' });
  }
}

/** The ready line's fields, type-checked (it comes from the worker before any block ran, but cheaply so). */
export function readHello(msg: Record<string, unknown>): WorkerHello | null {
  const id = msg.identity as Record<string, unknown> | undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : null);
  const device = runDevice(msg.device);
  if (!device || typeof msg.torchVersion !== 'string' || !id) return null;
  if (typeof id.uid !== 'number' || typeof id.gid !== 'number') return null;
  return {
    device,
    gpuName: str(msg.gpuName),
    torchVersion: msg.torchVersion.slice(0, 64),
    python: str(msg.python) ?? 'unknown',
    error: str(msg.error),
    nativeLibraries: Array.isArray(msg.nativeLibraries)
      ? msg.nativeLibraries.filter((p): p is string => typeof p === 'string').map((p) => p.slice(0, 500))
      : [],
    pid: typeof msg.pid === 'number' && Number.isInteger(msg.pid) && msg.pid > 0 ? msg.pid : null,
    identity: {
      uid: id.uid,
      gid: id.gid,
      capEff: str(id.capEff) ?? 'unknown',
      noNewPrivs: id.noNewPrivs === true,
      seccomp: id.seccomp === true,
    },
  };
}
