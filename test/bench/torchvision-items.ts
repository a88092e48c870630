// The default corpus's torchvision blocks as validate items, assembled by this checkout, with the options a run of
// them takes (the default config's environment and limits, sandbox on, no cache): what the hardening and parallel
// benchmarks validate.
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runExtraction } from '../../pipeline/run/extract-step.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';
import { selectBlocks } from '../../pipeline/run/select.ts';
import { validateItems } from '../../pipeline/run/validate-step.ts';
import { corpusPackages } from '../../pipeline/validate/blocked-packages.ts';
import { corpusExtensions } from '../../pipeline/validate/extensions.ts';
import { nativeLibraries } from '../../pipeline/validate/native-libraries.ts';
import type { ValidateItem, ValidateOptions } from '../../pipeline/validate/types.ts';
import { DEFAULT_TIMEOUT_MS } from '../../pipeline/validate/validate.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONFIG = join(REPO, 'content', 'corpus.json');

/**
 * The options every tree of the hardening bench accepts: ValidateItem is the same at 5101907 and now; of
 * ValidateOptions, `runBudgetMs` is new (left out: its 90-minute default never ends a run here) and `timeoutMs` was
 * the per-block wall clock and is now the block's whole budget (the same number is passed to both).
 */
export type SharedOptions = Omit<ValidateOptions, 'runBudgetMs'>;

/** The default corpus's torchvision items, assembled by this checkout, and the options every run shares. */
export async function torchvisionItems(): Promise<{ items: ValidateItem[]; options: SharedOptions }> {
  const run = openRun(CONFIG);
  try {
    const p = await prepare(run);
    const env = await p.environment();
    if (!env.ok) throw new Error(`no validation environment: ${env.diagnostics.map((d) => d.message).join('; ')}`);
    const blocks = selectBlocks(p.discovered.blocks, { shard: { k: 1, n: 1 } });
    const extracted = runExtraction(run, p, blocks, {
      outDir: join(run.config.cacheDir, 'extracted'),
      versionsFrom: env.environment.host,
    });
    const items = validateItems(run, p, extracted).filter((i) => i.id.startsWith('torchvision:'));
    const v = run.config.validate ?? {};
    const blocked = corpusPackages(p.index.modules);
    return {
      items,
      options: {
        python: env.environment.python,
        pythonRoots: env.environment.roots,
        runtimeRoots: env.environment.runtime,
        sites: env.environment.sites,
        environmentKey: env.environment.key,
        device: 'cpu',
        sandbox: true,
        timeoutMs: v.blockBudgetMs ?? v.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        memoryBytes: v.memoryBytes,
        tmpBytes: v.tmpBytes,
        workers: Number(process.env.NNBLOCKS_BENCH_WORKERS) || v.workers || availableParallelism(),
        corpusPackages: blocked,
        nativeModules: corpusExtensions(p.snapshots),
        nativeLibraries: nativeLibraries(p.snapshots, p.index.modules),
      },
    };
  } finally {
    run.store.close();
  }
}

/** `n` items evenly spread over the list (all when n is not below its length). */
export function spread<T>(list: T[], n: number): T[] {
  if (!(n > 0) || n >= list.length) return list;
  return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
}
