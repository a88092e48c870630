// Index figures: cold index throughput (torchvision + torch/nn), warm re-run time and reuse, and discovery
// precision/recall against the real Python's view of torchvision.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { quietContext } from '../../pipeline/contract/context.ts';
import { loadConfig } from '../../pipeline/config/load.ts';
import { discoverBlocks } from '../../pipeline/discover/discover.ts';
import { indexSources } from '../../pipeline/index/index.ts';
import { Store } from '../../pipeline/index/store.ts';
import { Program } from '../../pipeline/resolve/program.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { testPython } from '../helpers/python.ts';
import { benchConfig } from './corpora.ts';
import { round, type Figure } from './harness.ts';

export async function run(): Promise<Figure[]> {
  const config = loadConfig(benchConfig(true));
  const { snapshots } = await fetchSources(config, quietContext());
  const store = Store.open(config.cacheDir);
  const cold = await indexSources(snapshots, store, quietContext());
  const warm = await indexSources(snapshots, store, quietContext());
  store.close();
  const cores = availableParallelism();
  // At scale the workers' fixed start-up (~0.7 s: tsx + tree-sitter load) is amortized: all of torch, 15 MB.
  const big = loadConfig(benchConfig(true, true));
  const bigSnaps = (await fetchSources(big, quietContext())).snapshots;
  const bigStore = Store.open(big.cacheDir);
  const bigCold = await indexSources(bigSnaps, bigStore, quietContext());
  bigStore.close();
  const mb = cold.stats.bytes / 1e6;
  // Per core actually used: a corpus this small is parsed on one thread (workers cost more to start than they save).
  const perCore = cold.stats.mbPerSec / Math.max(1, cold.stats.threads);

  // Discovery against ground truth: the real Python imports torchvision and lists nn.Module subclasses with a forward.
  const truth = JSON.parse(
    execFileSync(testPython(), ['test/discover/ground-truth.py', 'torchvision'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }),
  ) as { blocks: string[] };
  const program = new Program(warm.modules, snapshots);
  const found = new Set(
    discoverBlocks(program)
      .blocks.filter((b) => b.sourceId === 'torchvision')
      .map((b) => `${b.module}.${b.qualname}`),
  );
  const expected = new Set(truth.blocks);
  const tp = [...found].filter((x) => expected.has(x)).length;
  const precision = found.size ? tp / found.size : 0;
  const recall = expected.size ? tp / expected.size : 0;
  return [
    {
      issue: 3,
      figure: `cold index, torchvision + torch/nn (${cold.stats.files} files, ${round(mb)} MB)`,
      value: round(cold.stats.ms / 1000),
      unit: 's',
    },
    {
      issue: 3,
      figure: `cold index throughput per core (${cold.stats.threads} of ${cores} cores used, ${round(cold.stats.mbPerSec)} MB/s total)`,
      value: round(perCore),
      unit: 'MB/s',
      target: '>= 5 MB/s per core',
      ok: perCore >= 5,
    },
    {
      issue: 3,
      figure: `cold index at scale, torchvision + all of torch (${bigCold.stats.files} files, ${round(bigCold.stats.bytes / 1e6)} MB)`,
      value: round(bigCold.stats.mbPerSec / bigCold.stats.threads),
      unit: 'MB/s per core',
      target: '>= 5 MB/s per core',
      ok: bigCold.stats.mbPerSec / bigCold.stats.threads >= 5,
      detail: { seconds: round(bigCold.stats.ms / 1000) },
    },
    {
      issue: 3,
      figure: 'warm re-run of the index step (nothing changed)',
      value: round(warm.stats.ms / 1000, 3),
      unit: 's',
      target: '<= 1 s',
      ok: warm.stats.ms <= 1000,
    },
    {
      issue: 3,
      figure: 'parses reused on the warm re-run',
      value: round((100 * warm.stats.reused) / warm.stats.files, 1),
      unit: '%',
      target: '100%',
      ok: warm.stats.parsed === 0,
    },
    {
      issue: 3,
      figure: `discovery precision (torchvision, ${found.size} found / ${expected.size} true)`,
      value: round(100 * precision, 1),
      unit: '%',
      target: '100%',
      ok: precision === 1,
      detail: { falsePositives: [...found].filter((x) => !expected.has(x)) },
    },
    {
      issue: 3,
      figure: 'discovery recall (torchvision)',
      value: round(100 * recall, 1),
      unit: '%',
      target: '>= 98%',
      ok: recall >= 0.98,
      detail: { misses: [...expected].filter((x) => !found.has(x)) },
    },
  ];
}
