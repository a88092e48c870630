// Records the validate stage writes itself, without a runner's result (a block skipped, past the run's budget, or
// whose worker was lost), and which records may be cached. See docs/validate.md, "Budgets" and "Cache".
import type { ValidateItem, ValidationRecord } from './types.ts';
import type { JobOutcome, WorkerHello } from './worker.ts';

type Lost = Extract<JobOutcome, { ok: false }>;

export function emptyRecord(
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

const LOST_CLASS: Record<Lost['reason'], ValidationRecord['failureClass']> = {
  // The block stopped its worker (SIGSTOP through libc): a signal to another process, which the audit hook would
  // have refused and recorded had the block gone through Python.
  stopped: 'sandbox-violation',
  backstop: 'timeout',
  exited: 'crashed',
  protocol: 'protocol-error',
};

/** A block whose worker was stopped, died, hung past the backstop or broke the protocol: all we know is how it ended. */
export function lostRecord(item: ValidateItem, outcome: Lost, hello: WorkerHello, twice = false): ValidationRecord {
  const again = twice ? ' (twice, each time on a fresh worker: the block did it, not the machine)' : '';
  const rec = emptyRecord(item, 'failed', `${outcome.detail.slice(-1800)}${again}`, hello);
  rec.failureClass = LOST_CLASS[outcome.reason];
  return rec;
}

/**
 * Whether a lost worker is worth a second try on a fresh one: a worker that died or hung may have been the machine's
 * (the OOM killer, a stall); one the block stopped was not (the kernel showed it stopped), and a malformed record is
 * the block's own.
 */
export function retried(outcome: Lost): boolean {
  return outcome.reason === 'exited' || outcome.reason === 'backstop';
}

/**
 * Whether a record may be cached. Not: a failure the environment caused (about this machine, not the block), a
 * record the worker marked (a timeout on a loaded machine), a malformed record (not a result), a worker lost once.
 * A worker the block stopped, or lost twice the same way, is the block's doing: cached, so a block that kills its
 * worker every time costs no restart on a re-run.
 */
export function cacheable(rec: ValidationRecord, outcome: JobOutcome, twice: boolean): boolean {
  if (!outcome.ok) return outcome.reason === 'stopped' || twice;
  return outcome.cache && rec.failureClass !== 'environment';
}

/** The record of a block the run's budget left no time for: skipped (not an attempt), with why, never cached. */
export function pastRunBudget(item: ValidateItem, runBudgetMs: number, hello: WorkerHello): ValidationRecord {
  return emptyRecord(
    item,
    'skipped',
    `not run: the run's time budget (validate.runBudgetMs, ${Math.round(runBudgetMs / 1000)} s) was spent before ` +
      `its turn; the next run validates it`,
    hello,
  );
}
