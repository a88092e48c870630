// Every passed block of the default catalog (content/corpus.json: torchvision 0.29.1 on torch 2.14.1) reproduces
// as its page says: the replay script (src/lib/replay.ts) on the block as `nnblocks extract` writes it, compiled ops
// included, in a process that never imports torchvision; and the "Use it" lines (src/lib/usage-snippet.ts) on the
// installed torchvision, after the recipe's seed, fed the recipe's inputs and measured as validation measures. Each
// output's shape, dtype, Σ|x| and projection must match the record. The snippets run in two Python processes side by
// side (run-snippets.py); failures are listed by block.
//
// The catalog is built here from the default config and its cache (`.nnblocks`): seconds after `npm run catalog`,
// a full validation (minutes) on a cold cache.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { PROJECTION_TOLERANCE } from '../../src/lib/replay-check.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { usageOf } from '../../src/lib/usage-snippet.ts';
import { testPython } from '../helpers/python.ts';
import { skipBecause } from '../helpers/skip.ts';
import { tempDir } from '../helpers/tree.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, 'content', 'corpus.json');
const HARNESS = join(import.meta.dirname, 'run-snippets.py');
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

/** Blocks of the default catalog that call compiled ops (torchvision's `_C_stable.so`): extract must link it. */
const COMPILED_OPS = [
  'torchvision:torchvision.ops.roi_align.RoIAlign',
  'torchvision:torchvision.ops.deform_conv.DeformConv2d',
  'torchvision:torchvision.ops.ps_roi_pool.PSRoIPool',
  'torchvision:torchvision.models.detection.faster_rcnn.FasterRCNN',
  'torchvision:torchvision.models.detection.mask_rcnn.MaskRCNN',
];

interface Result {
  id: string;
  kind: 'replay' | 'use';
  error: string | null;
  s: number;
}

/** Runs the harness on one job file in `cwd`; its result lines, one per job it finished. */
function runJobs(file: string, cwd: string): Promise<{ results: Result[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(testPython(), [HARNESS, file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const results = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Result);
      resolve({ results, stderr: stderr.slice(-2000) });
    });
  });
}

const noValidation = (() => {
  const bwrap = bwrapAvailable();
  return bwrap.ok ? null : `bubblewrap does not work here (${bwrap.error})`;
})();

it('runs every passed block’s replay script (after extract) and Use it lines, to the recorded outputs', async (ctx) => {
  if (noValidation) skipBecause(ctx, `validation cannot run: ${noValidation}`);
  const work = tempDir('nnb-default-snippets-');
  const catalog = join(work, 'catalog');
  expect(await runCli(['build', '--config', CONFIG, '--out', catalog, '--json'], quiet)).toBe(0);
  const passed = readdirSync(join(catalog, 'blocks'))
    .map((f) => JSON.parse(readFileSync(join(catalog, 'blocks', f), 'utf8')) as BlockSpec)
    .filter((s) => s.validation?.status === 'passed')
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  expect(passed.length).toBeGreaterThan(200);
  expect(
    passed.filter((s) => !replayScript(s)).map((s) => s.id),
    'passed blocks with no replay script',
  ).toEqual([]);

  // ViT's logits are all zeros (its head is zero-initialised), which Σ|x| and the projection can't tell from a
  // block that computes nothing: its record has the sensitivity its replay checks.
  const vit = passed.find((s) => s.id === 'torchvision:torchvision.models.vision_transformer.VisionTransformer');
  expect(Number(vit?.validation?.sensitivity)).toBeGreaterThan(0);
  expect(replayScript(vit!)).toContain('the zero outputs move with the parameters as recorded');

  // The page's command, for all of them at once: one standalone module per block, as `extract <id>` writes it.
  const ids = passed.map((s) => s.id);
  expect(
    await runCli(['extract', ...ids, '--standalone', '--config', CONFIG, '--out', join(work, 'blocks')], quiet),
  ).toBe(0);
  const manifest = JSON.parse(readFileSync(join(work, 'blocks', 'manifest.json'), 'utf8')) as {
    blocks: { id: string; nativeLibraries?: string[] }[];
  };
  const linked = new Set(manifest.blocks.filter((b) => b.nativeLibraries?.length).map((b) => b.id));
  expect(
    COMPILED_OPS.filter((id) => !linked.has(id)),
    'blocks with compiled ops and no library linked',
  ).toEqual([]);

  const common = { projectionTolerance: PROJECTION_TOLERANCE, timeoutS: 60 };
  const replays = passed.map((s) => ({
    id: s.id,
    kind: 'replay',
    code: replayScript(s),
    outputs: s.validation!.outputs,
  }));
  const uses = passed.map((s) => {
    const u = usageOf(s, true);
    const r = s.validation!.recipe!;
    return {
      id: s.id,
      kind: 'use',
      code: [u.importLine, u.construct].filter(Boolean).join('\n'),
      seed: r.seed,
      inputs: r.inputs,
      outputs: s.validation!.outputs,
      ...(r.origin === 'part' ? { path: r.path } : {}),
    };
  });
  expect(
    uses.filter((u) => !u.code).map((u) => u.id),
    'passed blocks with no import line',
  ).toEqual([]);
  writeFileSync(join(work, 'replay.json'), JSON.stringify({ ...common, isolatedFrom: ['torchvision'], jobs: replays }));
  writeFileSync(join(work, 'use.json'), JSON.stringify({ ...common, jobs: uses }));
  const [replayed, used] = await Promise.all([
    runJobs(join(work, 'replay.json'), work),
    runJobs(join(work, 'use.json'), work),
  ]);

  const failures: string[] = [];
  for (const [jobs, run] of [
    [replays, replayed],
    [uses, used],
  ] as const) {
    const done = new Map(run.results.map((r) => [r.id, r]));
    for (const job of jobs) {
      const r = done.get(job.id);
      if (!r) failures.push(`${job.kind} ${job.id}: no result (the process ended: ${run.stderr})`);
      else if (r.error) failures.push(`${job.kind} ${job.id}: ${r.error}`);
    }
  }
  expect(failures).toEqual([]);
  // The "Use it" lines construct the block wherever validation built it from literals: those were fed and measured.
  expect(uses.filter((u) => u.code.includes('\nblock = ')).length).toBeGreaterThan(180);
}, 1_200_000);
