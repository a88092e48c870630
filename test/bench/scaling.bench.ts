// Context for the index figures: how tree-sitter alone scales from one to two threads on this machine (all of torch +
// torchvision), the ceiling for any per-core index throughput when both cores parse.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { round, type Figure } from './harness.ts';

const WORKER = new URL('./tree-sitter-worker.mjs', import.meta.url);

async function parseWith(threads: number, files: string[]): Promise<number> {
  const t = performance.now();
  await Promise.all(
    Array.from(
      { length: threads },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(WORKER, { workerData: files.filter((_, j) => j % threads === i) });
          w.once('message', () => void w.terminate().then(() => resolve()));
          w.once('error', reject);
        }),
    ),
  );
  return (performance.now() - t) / 1000;
}

export async function run(): Promise<Figure[]> {
  const out = execFileSync(
    'find',
    ['/usr/lib/python3/dist-packages/torchvision', '/usr/lib/python3/dist-packages/torch', '-name', '*.py'],
    { encoding: 'utf8' },
  );
  const files = out.trim().split('\n');
  const mb = files.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
  const one = await parseWith(1, files);
  const two = await parseWith(2, files);
  return [
    {
      issue: 3,
      figure: `tree-sitter alone, 1 worker thread (${files.length} files, ${round(mb)} MB, cold)`,
      value: round(mb / one),
      unit: 'MB/s per core',
    },
    {
      issue: 3,
      figure: `tree-sitter alone, 2 worker threads (speed-up ${round(one / two)}x)`,
      value: round(mb / two / 2),
      unit: 'MB/s per core',
    },
  ];
}
