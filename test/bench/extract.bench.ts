// Extraction figures: every non-abstract torchvision block extracted, parsed, compiled, imported with torchvision
// blocked, built with default arguments (parameter count equal to the original's); extraction time per block.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractBlocks, writeManifest } from '../../pipeline/assemble/extract.ts';
import { openRun, prepare, sourceLabels } from '../../pipeline/run/prepare.ts';
import { testPython } from '../helpers/python.ts';
import { benchConfig } from './corpora.ts';
import { percentile, round, type Figure } from './harness.ts';

type Check = {
  parse?: string;
  compile?: string;
  import?: string;
  error?: string;
  params?: number;
  buildError?: string;
};

export async function run(): Promise<Figure[]> {
  const run = openRun(benchConfig(false));
  const p = await prepare(run);
  run.store.close();
  const blocks = p.discovered.blocks.filter((b) => !b.abstract);
  const outDir = mkdtempSync(join(tmpdir(), 'nnb-extract-'));
  const labels = sourceLabels(p.snapshots);
  extractBlocks(p.program, blocks, { outDir, labels, write: false }); // warm-up: the figure is for a warm index
  const extracted = extractBlocks(p.program, blocks, { outDir, labels });
  const manifest = writeManifest(
    outDir,
    extracted.filter((e) => e.code).map((e) => e.entry),
  );
  const ms = extracted.map((e) => e.ms);

  const py = (mode: string) =>
    JSON.parse(
      execFileSync(testPython(), ['-I', 'test/bench/check-extracted.py', mode, manifest, 'torchvision'], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      }),
    ) as Record<string, Check>;
  const ours = py('extracted');
  const orig = py('original');
  const ids = extracted.map((e) => e.entry.id);
  const count = (f: (c: Check) => boolean) => ids.filter((id) => ours[id] && f(ours[id])).length;
  const builtOrig = ids.filter((id) => orig[id]?.params !== undefined);
  const sameParams = builtOrig.filter((id) => ours[id]?.params === orig[id].params);
  const causes = new Map<string, number>();
  for (const id of ids)
    if (ours[id]?.error)
      causes.set(ours[id].error!.split(':')[0], (causes.get(ours[id].error!.split(':')[0]) ?? 0) + 1);
  const n = blocks.length;
  const imported = count((c) => c.import === 'ok');
  return [
    {
      issue: 4,
      figure: 'torchvision non-abstract blocks extracted',
      value: `${extracted.filter((e) => e.code).length}/${n}`,
      target: '100%',
      ok: extracted.every((e) => e.code),
    },
    {
      issue: 4,
      figure: 'extracted modules that parse and compile',
      value: `${count((c) => c.compile === 'ok')}/${n}`,
      target: '100%',
      ok: count((c) => c.compile === 'ok') === n,
    },
    {
      issue: 4,
      figure: 'import with torchvision blocked (fresh python -I)',
      value: round((100 * imported) / n, 1),
      unit: '%',
      target: '>= 97%',
      ok: imported / n >= 0.97,
      detail: { imported, failures: Object.fromEntries(causes) },
    },
    {
      issue: 4,
      figure: `originals that build with defaults: extracted builds too, same parameter count`,
      value: `${sameParams.length}/${builtOrig.length}`,
      target: 'all',
      ok: sameParams.length === builtOrig.length,
      detail: { mismatches: builtOrig.filter((id) => !sameParams.includes(id)) },
    },
    {
      issue: 4,
      figure: 'extraction time per block, median (warm index)',
      value: round(percentile(ms, 50), 2),
      unit: 'ms',
      target: '<= 20 ms',
      ok: percentile(ms, 50) <= 20,
    },
    {
      issue: 4,
      figure: 'extraction time per block, p95 (warm index)',
      value: round(percentile(ms, 95), 2),
      unit: 'ms',
    },
  ];
}
