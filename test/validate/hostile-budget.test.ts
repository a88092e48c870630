// Denial of service by time, as root: a block that sleeps, stops its worker or kills it costs at most its budget on
// the first run and nothing on the next (its record is cached); a timeout on a loaded machine is not cached; blocks past the run's budget are recorded as skipped, never dropped.
// Real bubblewrap, real torch.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateCache, ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems, processesMatching, runProcessName } from './helpers.ts';

const BUDGET_MS = 8000;

// The name (comm) the stopper and killer give themselves, so the test can tell whether one outlived its run:
// without a sandbox no pid namespace ends with the worker, and the host must end the block's process group itself.
const MARK = runProcessName('nnbdos');

const LIBC = py`
  import ctypes, os, signal, time, torch.nn as nn
  libc = ctypes.CDLL(None, use_errno=True)
  libc.prctl(15, b"${MARK}", 0, 0, 0)  # PR_SET_NAME
`;

const BLOCKS = {
  // Every candidate sleeps: the block's budget, not a budget per candidate, bounds it.
  sleeper: py`
    import time, torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim: int = 4):
            super().__init__()
            time.sleep(3600)
        def forward(self, x):
            time.sleep(3600)
            return x
  `,
  // SIGSTOP through libc, below the audit hook: the worker can no longer report.
  stopper:
    LIBC +
    py`
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            libc.kill(os.getppid(), signal.SIGSTOP)
            time.sleep(3600)
        def forward(self, x):
            return x
  `,
  killer:
    LIBC +
    py`
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            libc.kill(os.getppid(), signal.SIGKILL)
            time.sleep(3600)
        def forward(self, x):
            return x
  `,
  honest: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
        def forward(self, x):
            return self.fc(x)
  `,
};

/** An in-memory cache that remembers which records were written. */
function memoryCache(): ValidateCache & { written: ValidationRecord[] } {
  const map = new Map<string, string>();
  const written: ValidationRecord[] = [];
  return {
    written,
    get: (k) => map.get(k),
    put: (k, v) => {
      written.push(JSON.parse(v) as ValidationRecord);
      map.set(k, v);
    },
  };
}

let first: Record<string, ValidationRecord>;
let again: Record<string, ValidationRecord>;
let cache: ReturnType<typeof memoryCache>;
let firstMs: number;
let againMs: number;

beforeAll(async () => {
  const { items } = fixtureItems(BLOCKS);
  cache = memoryCache();
  const opts = baseOptions({ timeoutMs: BUDGET_MS, workers: 2, cache });
  let t0 = Date.now();
  first = byName(await validateBlocks(items, opts));
  firstMs = Date.now() - t0;
  t0 = Date.now();
  again = byName(await validateBlocks(items, opts));
  againMs = Date.now() - t0;
}, 300_000);

const said = (r: ValidationRecord) => `${r.status} ${r.failureClass ?? ''} ${r.failureDetail ?? ''}`;

describe('a block costs at most its budget, once', () => {
  it('stops a block that sleeps in every candidate at its budget, and caches the timeout', () => {
    expect(first.sleeper, said(first.sleeper)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(cache.written.some((r) => r.id === 'fixture:sleeper' && r.failureClass === 'timeout')).toBe(true);
  });

  // The worker is its sandbox's pid 1 and catches no signal: the kernel drops a SIGSTOP or SIGKILL a block sends it
  // (docs/validate.md, "The worker is the sandbox's pid 1"). What is left of either attack is a block that sleeps,
  // stopped at its budget like any other. The host's stopped-worker watch and the retry on a fresh worker stay as
  // the backstop for a worker that stops or dies anyway (test/validate/worker.test.ts drives them).
  it('cannot stop its worker: it ends at its budget like a sleeper, and the timeout is cached', () => {
    expect(first.stopper, said(first.stopper)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(cache.written.some((r) => r.id === 'fixture:stopper' && r.failureClass === 'timeout')).toBe(true);
  });

  it('cannot kill its worker: it ends at its budget like a sleeper, and the timeout is cached', () => {
    expect(first.killer, said(first.killer)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(cache.written.some((r) => r.id === 'fixture:killer' && r.failureClass === 'timeout')).toBe(true);
  });

  it('costs nothing on a re-run: every record comes from the cache', () => {
    for (const name of Object.keys(BLOCKS)) expect(again[name], name).toMatchObject({ cached: true });
    expect(again.honest).toMatchObject({ status: 'passed', params: 10 });
    // The first run pays the sleeper's budget and a worker's start for each worker lost; the re-run starts one.
    expect(againMs).toBeLessThan(firstMs);
  });
});

// Without the sandbox (--no-sandbox) the worker is no namespace's init: a block can stop or kill it. The host-side
// backstops for a worker that stops or dies are what catch it there.
describe('a worker stopped or killed (no pid namespace: --no-sandbox)', () => {
  let recs: Record<string, ValidationRecord>;
  let written: ValidationRecord[];
  beforeAll(async () => {
    const { items } = fixtureItems({ stopper: BLOCKS.stopper, killer: BLOCKS.killer, honest: BLOCKS.honest });
    const mine = memoryCache();
    recs = byName(
      await validateBlocks(items, baseOptions({ sandbox: false, timeoutMs: BUDGET_MS, workers: 1, cache: mine })),
    );
    written = mine.written;
  }, 300_000);

  it('kills a worker the block stopped as soon as the host sees it: a signal violation, cached', () => {
    expect(recs.stopper, said(recs.stopper)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(recs.stopper.failureDetail).toContain('stopped its worker');
    expect(written.some((r) => r.id === 'fixture:stopper')).toBe(true);
  });

  it('runs a block that kills its worker once more on a fresh one, then caches what it did twice', () => {
    expect(recs.killer, said(recs.killer)).toMatchObject({ status: 'failed', failureClass: 'crashed' });
    expect(recs.killer.failureDetail).toContain('twice');
    expect(written.some((r) => r.id === 'fixture:killer')).toBe(true);
    expect(recs.honest).toMatchObject({ status: 'passed' });
  });

  it('leaves no process of either block behind: the host ends the block with the worker it lost', () => {
    expect(processesMatching(MARK)).toEqual([]);
  });
});

describe('the run budget', () => {
  it('records the blocks it leaves out as skipped, naming the budget, and caches none of them', async () => {
    const { items } = fixtureItems({ honest: BLOCKS.honest, other: BLOCKS.honest });
    const mine = memoryCache();
    const recs = byName(
      await validateBlocks(items, baseOptions({ timeoutMs: BUDGET_MS, runBudgetMs: 1, cache: mine })),
    );
    for (const r of Object.values(recs)) {
      expect(r.status).toBe('skipped');
      expect(r.failureDetail).toContain('runBudgetMs');
    }
    expect(mine.written).toEqual([]);
    // The next run, with time left, validates them: nothing was dropped.
    const next = byName(await validateBlocks(items, baseOptions({ timeoutMs: BUDGET_MS, cache: mine })));
    expect(next.honest).toMatchObject({ status: 'passed', cached: false });
  });
});

describe('a timeout on a loaded machine', () => {
  const hogs: ChildProcess[] = [];
  const allCpus = execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' })
    .trim()
    .split(' ')
    .pop()!;
  let loaded: Record<string, ValidationRecord>;
  let written: ValidationRecord[];

  beforeAll(async () => {
    // This test process's main thread, the sandboxes it starts, and four busy processes share one core: a block
    // that computes gets a fifth of it, and waits for it the rest of the time.
    execFileSync('taskset', ['-p', '-c', '0', String(process.pid)]);
    for (let k = 0; k < 4; k++)
      hogs.push(spawn('taskset', ['-c', '0', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
    const { items } = fixtureItems({
      spinner: py`
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                while True:
                    pass
      `,
      sleeper: BLOCKS.sleeper,
    });
    const mine = memoryCache();
    try {
      loaded = byName(await validateBlocks(items, baseOptions({ timeoutMs: 6000, workers: 2, cache: mine })));
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
      execFileSync('taskset', ['-p', allCpus, String(process.pid)]);
    }
    written = mine.written;
  }, 120_000);

  afterAll(() => {
    for (const h of hogs) h.kill('SIGKILL');
  });

  it('is a timeout that says the machine was loaded, and is not cached', () => {
    expect(loaded.spinner, said(loaded.spinner)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(loaded.spinner.failureDetail).toContain('loaded machine');
    expect(written.some((r) => r.id === 'fixture:spinner')).toBe(false);
  });

  it('while a block that slept through its budget is its own timeout, cached', () => {
    expect(loaded.sleeper, said(loaded.sleeper)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(loaded.sleeper.failureDetail).not.toContain('loaded machine');
    expect(written.some((r) => r.id === 'fixture:sleeper')).toBe(true);
  });
});
