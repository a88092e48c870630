// Issues 7 and 9: end-to-end `nnblocks build` of the default corpus (torchvision 0.29.1 on torch 2.14.1, the managed
// environment), cold (empty cache) and warm (nothing changed), with each stage's share of the time, block count, pass
// rate and uniqueness; where passing recipes came from, fidelity, published reasons and validation throughput;
// blocks of kind `block` passed, failures the sandbox or environment caused, unresolved names.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { buildCatalog } from '../../pipeline/run/build.ts';
import type { BuildSummary } from '../../pipeline/run/merge.ts';
import { openRun } from '../../pipeline/run/prepare.ts';
import { benchConfig } from './corpora.ts';
import { round, type Figure } from './harness.ts';

async function timedBuild(config: string): Promise<{ s: number; summary: BuildSummary; outDir: string }> {
  const run = openRun(config);
  const t = performance.now();
  try {
    const outDir = mkdtempSync(join(tmpdir(), 'nnb-bench-cat-'));
    const summary = await buildCatalog(run, { outDir });
    return { s: (performance.now() - t) / 1000, summary, outDir };
  } finally {
    run.store.close();
  }
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** `needs-arguments 4, forward-error 2`: failure classes by count, most first. */
export function classes(specs: BlockSpec[]): string {
  const n = new Map<string, number>();
  for (const b of specs) {
    const c = b.validation?.status === 'blocked' ? 'blocked' : (b.validation?.failureClass ?? 'unknown');
    n.set(c, (n.get(c) ?? 0) + 1);
  }
  return (
    [...n]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none'
  );
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
  const specs = readdirSync(join(cold.outDir, 'blocks')).map(
    (f) => JSON.parse(readFileSync(join(cold.outDir, 'blocks', f), 'utf8')) as BlockSpec,
  );
  const passed = specs.filter((b) => b.validation?.status === 'passed');
  const origins = new Map<string, number>();
  for (const b of passed) {
    const o = b.validation?.recipe?.origin ?? 'inference';
    origins.set(o, (origins.get(o) ?? 0) + 1);
  }
  const failed = specs.filter((b) => b.validation?.status === 'failed' || b.validation?.status === 'blocked');
  const withReason = failed.filter((b) => b.validation?.reason);
  const compared = passed.filter((b) => b.validation?.fidelity !== 'not-compared');
  const identical = compared.filter((b) => b.validation?.fidelity === 'exact');
  const validateS = (c.timings.validate ?? 0) / 1000;
  const kindBlock = specs.filter((b) => b.kind === 'block' && b.validation);
  const kindBlockPassed = kindBlock.filter((b) => b.validation?.status === 'passed');
  const classOf = (b: BlockSpec) => b.validation?.failureClass ?? '';
  // The sandbox's or environment's fault: a refused compiler or account lookup, the environment class.
  const byHarness = failed.filter((b) => classOf(b) === 'environment' || classOf(b) === 'sandbox-violation');
  const unresolved = failed.filter((b) => classOf(b) === 'unresolved-name');
  const torch = readJson<{ environment?: { torch: string } }>(join(cold.outDir, 'build-info.json')).environment?.torch;
  return [
    {
      issue: 20,
      figure: `blocks of kind \`block\` passed (torch ${torch ?? '?'}; failed: ${classes(kindBlock.filter((b) => b.validation?.status !== 'passed'))})`,
      value: `${kindBlockPassed.length}/${kindBlock.length} (${round((100 * kindBlockPassed.length) / Math.max(1, kindBlock.length), 1)}%)`,
      target: '>= 95%',
      ok: kindBlockPassed.length >= 0.95 * kindBlock.length,
    },
    {
      issue: 20,
      figure: 'failures the sandbox or the environment caused (classes environment, sandbox-violation)',
      value: byHarness.length,
      target: '0',
      ok: byHarness.length === 0,
    },
    {
      issue: 20,
      figure: 'unresolved-name failures',
      value: unresolved.length,
      target: '0',
      ok: unresolved.length === 0,
    },
    {
      issue: 15,
      figure: `passed, recipes by origin (${[...origins].map(([k, n]) => `${k} ${n}`).join(', ')})`,
      value: `${passed.length}/${specs.length}`,
      target: '>= 190',
      ok: passed.length >= 190,
    },
    {
      issue: 15,
      figure: 'failed or blocked blocks with a published reason',
      value: `${withReason.length}/${failed.length}`,
      ok: withReason.length === failed.length,
    },
    {
      issue: 15,
      figure: 'fidelity exact (bit-identical to the original), of passed blocks whose original imports',
      value: `${identical.length}/${compared.length}`,
      target: '>= 99%',
      ok: identical.length >= 0.99 * compared.length,
    },
    {
      issue: 15,
      figure: 'validation throughput, cold (blocks / validate stage seconds)',
      value: validateS ? round(c.validated / validateS, 2) : 'n/a',
      unit: 'blocks/s',
      target: '>= 4',
      ok: validateS > 0 && c.validated / validateS >= 4,
    },
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
