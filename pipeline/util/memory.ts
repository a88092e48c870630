// A full garbage collection on request, for the few places that know gigabytes just became garbage: V8 collects
// when its heap grows, not when the process's memory does, so an old generation of 2 GB the last stage left
// behind (the index's facts, every assembled module) would otherwise stay resident while the next stage's worker
// threads grow beside it; and the native memory of parse trees is freed only after a GC (tree-sitter.ts).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * A major GC, then a turn of the event loop (native finalizers run there). V8's own `gc()`, exposed the way leak
 * detectors take it: the flag set at run time, the function read from a fresh context; where that fails, only the
 * turn of the event loop.
 */
export async function collectGarbage(): Promise<void> {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as typeof gc;
    } catch {
      gc = null;
    }
  }
  gc?.(); // a full, synchronous GC (`gc({ type: 'major' })` collects nothing on Node 20)
  await new Promise((resolve) => setImmediate(resolve));
}
