// One validate worker: a runner.py process (inside bubblewrap unless the user said --no-sandbox) fed one job at a time.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { NnblocksError } from '../diagnostics.ts';
import type { ValidateItem, ValidateOverride, ValidationRecord } from './types.ts';

export interface WorkerHello {
  /** Resolved device: cuda when `auto` found one. */
  device: string;
  gpuName: string | null;
  torchVersion: string;
  python: string;
  /** Set when the requested device cannot be used (cuda without CUDA). */
  error: string | null;
}

export interface WorkerJob {
  id: string;
  importRoot: string;
  module: string;
  className: string;
  blocked: string[];
  overrides: ValidateOverride | null;
  original: ValidateItem['original'] | null;
  seed: number;
  timeoutMs: number;
  memoryBytes: number;
}

/** What the runner reports for a block: the record minus the fields TypeScript owns. */
export type RunnerRecord = Omit<ValidationRecord, 'id' | 'cached'>;

export type JobOutcome =
  | { ok: true; record: RunnerRecord }
  /** The worker died (`exited`) or was killed by the TypeScript backstop (`backstop`); it must be replaced. */
  | { ok: false; reason: 'exited' | 'backstop'; detail: string };

const KEEP = 8000;

function spawn(cmd: { file: string; args: string[] }) {
  return execa(cmd.file, cmd.args, {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'], // fd 3: the result pipe, the only stream ever parsed
    buffer: false,
    reject: false,
    detached: true, // its own process group, so one kill reaches bwrap and everything under it
    cleanup: true,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
  });
}
type Proc = ReturnType<typeof spawn>;

export class RunnerWorker {
  private buffer = '';
  private stderr = '';
  private waiting: ((outcome: JobOutcome) => void) | null = null;
  private readyWaiter: { resolve: (h: WorkerHello) => void; reject: (e: Error) => void } | null = null;
  private exited = false;
  /** Set the moment we kill it: its exit event comes later, and no job may be sent to it in between. */
  private killed = false;
  /** Lines on the result pipe without this run's nonce: never trusted, counted for the report. */
  forgedLines = 0;

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
    cmd: { file: string; args: string[] },
    hello: { device: string; workRoot: string; sandboxed: boolean },
    timeoutMs = 120_000,
  ): Promise<{ worker: RunnerWorker; hello: WorkerHello }> {
    const nonce = randomBytes(16).toString('hex');
    const proc = spawn(cmd);
    const worker = new RunnerWorker(proc, nonce);
    const ready = new Promise<WorkerHello>((resolve, reject) => {
      worker.readyWaiter = { resolve, reject };
    });
    proc.stdin?.write(JSON.stringify({ nonce, ...hello }) + '\n');
    const timer = setTimeout(
      () => worker.readyWaiter?.reject(new Error(`no ready line within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      return { worker, hello: await ready };
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

  /** Runs one job; the backstop kills the whole sandbox when the runner's own deadline did not fire. */
  run(job: WorkerJob, backstopMs: number): Promise<JobOutcome> {
    if (!this.alive) return Promise.resolve({ ok: false, reason: 'exited', detail: this.stderr.trim() });
    return new Promise<JobOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.kill();
        resolve({ ok: false, reason: 'backstop', detail: `no result within ${backstopMs} ms; the sandbox was killed` });
      }, backstopMs);
      this.waiting = (outcome) => {
        clearTimeout(timer);
        this.waiting = null;
        resolve(outcome);
      };
      this.proc.stdin?.write(JSON.stringify(job) + '\n');
    });
  }

  get alive(): boolean {
    return !this.exited && !this.killed;
  }

  /** Kills the worker's whole process group (bwrap, its pid namespace with it). */
  kill(): void {
    this.killed = true;
    if (this.exited || this.proc.pid === undefined) return;
    try {
      process.kill(-this.proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
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
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let msg: { nonce?: string; type?: string; record?: RunnerRecord } & Partial<WorkerHello>;
      try {
        msg = JSON.parse(line);
      } catch {
        this.forgedLines += 1;
        continue;
      }
      if (msg.nonce !== this.nonce) {
        this.forgedLines += 1;
        continue;
      }
      if (msg.type === 'ready' && this.readyWaiter) {
        const { device, gpuName, torchVersion, python, error } = msg as WorkerHello;
        this.readyWaiter.resolve({ device, gpuName, torchVersion, python, error });
        this.readyWaiter = null;
      } else if (msg.type === 'result' && msg.record) {
        this.waiting?.({ ok: true, record: msg.record });
      }
    }
  }

  private onExit(): void {
    this.exited = true;
    this.readyWaiter?.reject(new Error(`the worker exited before it was ready`));
    this.readyWaiter = null;
    this.waiting?.({ ok: false, reason: 'exited', detail: `the worker exited: ${this.stderr.trim().slice(-2000)}` });
  }
}
