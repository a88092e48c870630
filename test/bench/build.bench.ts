// Issues 7 and 9: end-to-end `nnblocks build` of the default corpus (installed torchvision), cold (empty cache)
// and warm (nothing changed), with each stage's share of the time, block count, pass rate and uniqueness.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../pipeline/run/build.ts';
import type { BuildSummary } from '../../pipeline/run/merge.ts';
import { openRun } from '../../pipeline/run/prepare.ts';
import { benchConfig } from './corpora.ts';
import { round, type Figure } from './harness.ts';

async function timedBuild(config: string): Promise<{ s: number; summary: BuildSummary }> {
  const run = openRun(config);
  const t = performance.now();
  try {
    const summary = await buildCatalog(run, { outDir: mkdtempSync(join(tmpdir(), 'nnb-bench-cat-')) });
    return { s: (performance.now() - t) / 1000, summary };
  } finally {
    run.store.close();
  }
}

function shares(t: Record<string, number>): string {
  const total = Object.values(t).reduce((a, b) => a + b, 0);
  return Object.entries(t)
    .filter(([, ms]) => ms / total >= 0.005)
    .map(([k, ms]) => `${k} ${Math.round((100 * ms) / total)}%`)
    .join(', ');
}

export async function run(): Promise<Figure[]> {
  const config = benchConfig(false);
  const cold = await timedBuild(config);
  const warm = await timedBuild(config);
  const c = cold.summary;
  const rate = c.validated ? (100 * c.passed) / c.validated : 0;
  return [
    {
      issue: 7,
      figure: `cold build, default corpus (${c.blocks} blocks; stages: ${shares(c.timings)})`,
      value: round(cold.s, 1),
      unit: 's',
    },
    {
      issue: 7,
      figure: `warm build, nothing changed (stages: ${shares(warm.summary.timings)})`,
      value: round(warm.s, 1),
      unit: 's',
    },
    {
      issue: 7,
      figure: 'blocks passing validation (all stages)',
      value: `${c.passed}/${c.validated} (${round(rate, 1)}%)`,
      target: 'NN-RAG: 73% (import only)',
    },
    {
      issue: 7,
      figure: 'unique blocks: exact / lexical / structural',
      value: c.unique ? `${c.unique.exact} / ${c.unique.lexical} / ${c.unique.structural}` : 'n/a',
    },
    {
      issue: 9,
      figure: 'catalog schema errors (cold build)',
      value: c.errors.length,
      target: '0',
      ok: c.errors.length === 0,
    },
  ];
}
