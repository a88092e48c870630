// Parses many files, in worker threads when there is enough work to pay for starting them (~0.3 s each).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ModuleFacts } from '../parse/facts.ts';
import { parseModule } from '../parse/parse-module.ts';

export interface ParseJob {
  id: number;
  bytes: Uint8Array;
}

/** `json`: the facts as the worker serialized them, stored as-is (saves re-serializing on the main thread). */
export type ParseOutcome = { id: number; facts: ModuleFacts; json?: string } | { id: number; error: string };

/**
 * Below this many bytes one thread finishes first: a worker needs ~0.7 s to start (tsx + tree-sitter + JIT
 * warm-up) and the parser does ~3-5 MB/s per thread, so two workers only pay off from several MB.
 */
const PARALLEL_MIN_BYTES = 6_000_000;
const BATCH_BYTES = 256_000;

/** How many threads `parseAll` uses for these jobs. */
export function parseThreads(
  jobs: ParseJob[],
  requested = availableParallelism(),
  minParallelBytes = PARALLEL_MIN_BYTES,
): number {
  const total = jobs.reduce((n, j) => n + j.bytes.length, 0);
  const threads = Math.max(1, Math.min(requested, jobs.length));
  return total < minParallelBytes ? 1 : threads;
}

export async function parseAll(
  jobs: ParseJob[],
  opts: { threads?: number; onDone?: (n: number) => void; minParallelBytes?: number } = {},
): Promise<ParseOutcome[]> {
  const threads = parseThreads(jobs, opts.threads, opts.minParallelBytes);
  if (threads === 1) return parseInline(jobs, opts.onDone);
  return parseInWorkers(jobs, threads, opts.onDone);
}

function parseInline(jobs: ParseJob[], onDone?: (n: number) => void): ParseOutcome[] {
  return jobs.map((j) => {
    try {
      const facts = parseModule(Buffer.from(j.bytes.buffer, j.bytes.byteOffset, j.bytes.byteLength));
      onDone?.(1);
      return { id: j.id, facts };
    } catch (err) {
      onDone?.(1);
      return { id: j.id, error: String((err as Error).stack ?? err) };
    }
  });
}

/** Batches of ~256 kB, largest files first, handed to whichever worker is free: keeps both cores busy to the end. */
function makeBatches(jobs: ParseJob[]): ParseJob[][] {
  const sorted = [...jobs].sort((a, b) => b.bytes.length - a.bytes.length || a.id - b.id);
  const batches: ParseJob[][] = [];
  let cur: ParseJob[] = [];
  let size = 0;
  for (const j of sorted) {
    cur.push(j);
    size += j.bytes.length;
    if (size >= BATCH_BYTES) {
      batches.push(cur);
      cur = [];
      size = 0;
    }
  }
  if (cur.length) batches.push(cur);
  return batches;
}

async function parseInWorkers(
  jobs: ParseJob[],
  threads: number,
  onDone?: (n: number) => void,
): Promise<ParseOutcome[]> {
  const batches = makeBatches(jobs);
  const out: ParseOutcome[] = [];
  let next = 0;
  const url = new URL('./parse-worker.mjs', import.meta.url);
  const workers = Array.from({ length: Math.min(threads, batches.length) }, () => new Worker(url));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              if (next >= batches.length) return resolve();
              const batch = next++;
              w.postMessage({ batch, jobs: batches[batch] });
            };
            w.on(
              'message',
              (msg: {
                ready?: boolean;
                results?: ({ id: number; json: string } | { id: number; error: string })[];
              }) => {
                if (msg.results) {
                  // Workers send JSON text rather than object graphs: a string crosses threads as one copy, where a
                  // structured clone of thousands of small objects costs more than parsing the text here.
                  for (const r of msg.results)
                    out.push('json' in r ? { id: r.id, facts: JSON.parse(r.json) as ModuleFacts, json: r.json } : r);
                  onDone?.(msg.results.length);
                }
                send();
              },
            );
            w.on('error', reject);
            w.on('exit', (code) => {
              if (code !== 0) reject(new Error(`parse worker exited with code ${code}`));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return out.sort((a, b) => a.id - b.id);
}
