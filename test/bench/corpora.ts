// Corpus configs the benchmarks use: the installed torchvision, alone or with torch/nn, in a fresh cache folder.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function benchConfig(withTorchNn: boolean, wholeTorch = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-'));
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
