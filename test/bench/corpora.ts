// Corpus configs the benchmarks use: the installed torchvision, alone or with torch/nn, in a fresh cache folder.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The config file, in `dir` (a new temp folder by default: a test passes its run's own, removed after the run). */
export function benchConfig(
  withTorchNn: boolean,
  wholeTorch = false,
  dir = mkdtempSync(join(tmpdir(), 'nnb-bench-')),
): string {
  const sources: object[] = [
    { id: 'torchvision', kind: 'python', distribution: 'torchvision', include: ['torchvision/**/*.py'], priority: 1 },
  ];
  if (withTorchNn)
    sources.push({
      id: 'torch',
      kind: 'python',
      distribution: 'torch',
      include: [wholeTorch ? 'torch/**/*.py' : 'torch/nn/**/*.py'],
      priority: 2,
    });
  const file = join(dir, 'corpus.json');
  writeFileSync(file, JSON.stringify({ name: 'bench', cacheDir: join(dir, 'cache'), sources }, null, 2));
  return file;
}
