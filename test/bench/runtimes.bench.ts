// The other runtimes and corpora a user gets out of the box, each built cold in a fresh cache through the
// orchestrator: Debian's torch 1.13 with its torchvision 0.14 (content/corpus.debian.json: the compatibility path,
// which must not regress below 192 of 216), and the latest timm from PyPI on torch 2.14.1
// (content/corpus.timm.json): blocks, passed, the pass rate and the failure classes. `npm run bench -- runtimes`.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import { buildCatalog } from '../../pipeline/run/build.ts';
import { openRun } from '../../pipeline/run/prepare.ts';
import { classes } from './build.bench.ts';
import { round, type Figure } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The shipped config with its cache moved into a fresh temp folder: a cold build (the environment is kept). */
function coldCopy(name: string): string {
  const data = JSON.parse(readFileSync(join(ROOT, 'content', name), 'utf8')) as Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-rt-'));
  delete data.$schema;
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ ...data, cacheDir: join(dir, 'cache') }, null, 2));
  return file;
}

async function built(name: string): Promise<{ specs: BlockSpec[]; info: BuildInfo; s: number }> {
  const run = openRun(coldCopy(name));
  const outDir = mkdtempSync(join(tmpdir(), 'nnb-bench-rt-cat-'));
  const t = performance.now();
  try {
    await buildCatalog(run, { outDir });
  } finally {
    run.store.close();
  }
  const s = (performance.now() - t) / 1000;
  const specs = readdirSync(join(outDir, 'blocks')).map(
    (f) => JSON.parse(readFileSync(join(outDir, 'blocks', f), 'utf8')) as BlockSpec,
  );
  return { specs, info: JSON.parse(readFileSync(join(outDir, 'build-info.json'), 'utf8')) as BuildInfo, s };
}

function rate(specs: BlockSpec[]): { passed: number; ran: number; text: string } {
  const ran = specs.filter((b) => b.validation && b.validation.status !== 'blocked');
  const passed = ran.filter((b) => b.validation?.status === 'passed').length;
  return {
    passed,
    ran: ran.length,
    text: `${passed}/${ran.length} (${round((100 * passed) / Math.max(1, ran.length), 1)}%)`,
  };
}

export async function run(): Promise<Figure[]> {
  const debian = await built('corpus.debian.json');
  const d = rate(debian.specs);
  const timm = await built('corpus.timm.json');
  const t = rate(timm.specs);
  const notPassed = (specs: BlockSpec[]) => specs.filter((b) => b.validation && b.validation.status !== 'passed');
  return [
    {
      issue: 20,
      figure: `Debian torch ${debian.info.environment?.torch ?? '?'}: passed of ${debian.specs.length} blocks (failed: ${classes(notPassed(debian.specs))}; cold ${round(debian.s, 0)} s)`,
      value: `${d.passed}/${debian.specs.length}`,
      target: '>= 192/216',
      ok: d.passed >= 192,
    },
    {
      issue: 20,
      figure: `latest timm ${timm.info.environment?.requirements.find((r) => r.name === 'timm')?.version ?? '?'} on torch ${timm.info.environment?.torch ?? '?'}: passed of validated (failed: ${classes(notPassed(timm.specs))}; cold ${round(timm.s, 0)} s)`,
      value: t.text,
    },
  ];
}
