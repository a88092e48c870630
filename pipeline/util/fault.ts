// Deterministic fault injection for the resumability tests (docs/testing.md). With NNBLOCKS_FAULT=<point>:<n> set,
// the process kills itself with SIGKILL when `fault(point)` has counted n: no exit handlers, no `finally`, no
// flushing — what a power cut or the OOM killer does. Unset (always, outside tests) a call is one comparison.
// On the ground floor: it imports node builtins only, so any stage may call it.
import { writeSync } from 'node:fs';

/**
 * Where a run can be made to die, in pipeline order. Each is one call in the stage named:
 * - `sync`     sources/fetch.ts   after the n-th source's state.json is written, its cache lock still held
 * - `parse`    index/index.ts     after n files are parsed, before any of their facts are stored
 * - `commit`   index/store.ts     after the n-th facts row is inserted, inside the still-open transaction
 * - `validate` run/validate-step.ts  after the n-th fresh validation record is stored in the cache
 * - `write`    catalog/write-catalog.ts  after the n-th catalog file's temporary copy is written, before the rename
 */
const FAULT_POINTS = ['sync', 'parse', 'commit', 'validate', 'write'] as const;
type FaultPoint = (typeof FAULT_POINTS)[number];

/** What every injected death prints first, on stderr: tests look for it to know the fault fired. */
export const FAULT_MARKER = 'nnblocks: fault injected at';

interface Armed {
  point: FaultPoint;
  n: number;
  count: number;
}

/** Reads NNBLOCKS_FAULT; a malformed value throws rather than run without the fault a test relies on. */
export function parseFault(value: string | undefined): Armed | null {
  if (!value) return null;
  const m = /^([a-z]+):([1-9]\d*)$/.exec(value);
  if (!m || !(FAULT_POINTS as readonly string[]).includes(m[1]))
    throw new Error(
      `NNBLOCKS_FAULT=${value} is not <point>:<n>. Hint: points are ${FAULT_POINTS.join(', ')}; n counts from 1 ` +
        '(see docs/testing.md).',
    );
  return { point: m[1] as FaultPoint, n: Number(m[2]), count: 0 };
}

const armed = parseFault(process.env.NNBLOCKS_FAULT);

/** Counts `by` passes through `point`; when the count reaches n, prints the marker and dies at once. */
export function fault(point: FaultPoint, by = 1): void {
  if (armed === null || armed.point !== point) return;
  armed.count += by;
  if (armed.count < armed.n) return;
  // writeSync: the line must be out before the signal, and stderr may be a pipe.
  writeSync(2, `${FAULT_MARKER} ${point}:${armed.n} (count ${armed.count}, pid ${process.pid})\n`);
  process.kill(process.pid, 'SIGKILL');
}
