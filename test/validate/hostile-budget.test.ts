// Denial of service by time, as root (issue "Hostile code, round two", item 6): a block that sleeps, stops its
// worker or kills it costs at most its budget on the first run and nothing on the next (its record is cached); a
// timeout on a loaded machine is not cached; blocks past the run's budget are recorded as skipped, never dropped.
// Real bubblewrap, real torch.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateCache, ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const BUDGET_MS = 8000;

const LIBC = py`
  import ctypes, os, signal, time, torch.nn as nn
  libc = ctypes.CDLL(None, use_errno=True)
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

  it('catches a block that stops its worker at once, as the violation it is, and caches it', () => {
    expect(first.stopper, said(first.stopper)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(first.stopper.failureDetail).toContain('stopped its worker');
    expect(cache.written.some((r) => r.id === 'fixture:stopper')).toBe(true);
  });

  it('runs a block that kills its worker once more on a fresh worker, then caches what it did twice', () => {
    expect(first.killer, said(first.killer)).toMatchObject({ status: 'failed', failureClass: 'crashed' });
    expect(first.killer.failureDetail).toContain('twice');
    expect(cache.written.some((r) => r.id === 'fixture:killer')).toBe(true);
  });

  it('costs nothing on a re-run: every record comes from the cache', () => {
    for (const name of Object.keys(BLOCKS)) expect(again[name], name).toMatchObject({ cached: true });
    expect(again.honest).toMatchObject({ status: 'passed', params: 10 });
    // The first run pays the sleeper's budget and a worker's start for each worker lost; the re-run starts one.
    expect(againMs).toBeLessThan(firstMs);
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
