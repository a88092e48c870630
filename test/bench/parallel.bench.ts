// Validation that scales with cores (issue 23): the default corpus's torchvision blocks validated with one worker
// and with two, the same items, no cache, sandbox on, alternating (1, 2, 1, 2...; NNBLOCKS_BENCH_ROUNDS runs of each,
// default 1). Each run starts its own workers, as a build does: their start is part of the time. Figures: the
// parallel efficiency from 1 to 2 workers, T1 / (2 * T2) on the medians (target >= 0.8), and the throughput with two
// workers (target >= 6 blocks/s on 2 cores). NNBLOCKS_BENCH_LIMIT=N validates N blocks spread over the list.
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { percentile, round, type Figure } from './harness.ts';
import { spread, torchvisionItems } from './torchvision-items.ts';

const ISSUE = 23;

export async function run(): Promise<Figure[]> {
  const name = 'parallel efficiency of validation from 1 to 2 workers, torchvision';
  if (!bwrapAvailable().ok) return [{ issue: ISSUE, figure: name, value: 'skipped: no bubblewrap', ok: false }];
  const limit = Number(process.env.NNBLOCKS_BENCH_LIMIT) || 0;
  const rounds = Math.max(1, Number(process.env.NNBLOCKS_BENCH_ROUNDS) || 1);
  const all = await torchvisionItems();
  const items = spread(all.items, limit);
  // Untimed: two blocks first, so that neither count pays for a cold page cache (torch's import).
  await validateBlocks(items.slice(0, 2), { ...all.options, workers: 2 });
  const times: Record<1 | 2, number[]> = { 1: [], 2: [] };
  const passed: Record<1 | 2, number[]> = { 1: [], 2: [] };
  for (let r = 0; r < rounds; r++) {
    for (const workers of [1, 2] as const) {
      const t = performance.now();
      const records = await validateBlocks(items, { ...all.options, workers });
      const s = (performance.now() - t) / 1000;
      times[workers].push(s);
      passed[workers].push(records.filter((x) => x.status === 'passed').length);
      process.stderr.write(`bench: parallel, ${workers} worker(s): ${items.length} blocks in ${round(s, 1)} s\n`);
    }
  }
  const [t1, t2] = [percentile(times[1], 50), percentile(times[2], 50)];
  const efficiency = t1 / (2 * t2);
  const throughput = items.length / t2;
  const span = `${items.length}${limit ? ` of ${all.items.length}` : ''} blocks, ${rounds} run(s) each`;
  return [
    {
      issue: ISSUE,
      figure: `${name} (${span}): T1 / (2 T2)`,
      value: round(efficiency, 2),
      target: '>= 0.8',
      ok: efficiency >= 0.8,
      detail: { t1: times[1].map((s) => round(s, 1)), t2: times[2].map((s) => round(s, 1)), passed },
    },
    {
      issue: ISSUE,
      figure: `validate throughput on torchvision with 2 workers (${span}), median`,
      value: round(throughput, 2),
      unit: 'blocks/s',
      target: '>= 6 blocks/s',
      ok: throughput >= 6,
    },
  ];
}
