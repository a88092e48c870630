// A warm run starts no worker: the first worker's hello is remembered, and when every record is cached under it,
// nothing imports torch (so a warm build of unchanged blocks takes about a second, not torch's start-up per worker). The interpreter is a real one
// behind a wrapper that logs each start, without a sandbox (the wrapper's folder is not shown in one).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ValidateCache } from '../../pipeline/validate/types.ts';
import { validateRun } from '../../pipeline/validate/validate.ts';
import { testPython } from '../helpers/python.ts';
import { py, tempDir } from '../helpers/tree.ts';
import { baseOptions, fixtureItems } from './helpers.ts';

function mapCache(): ValidateCache {
  const map = new Map<string, string>();
  return { get: (k) => map.get(k), put: (k, v) => void map.set(k, v) };
}

const HONEST = py`
  import torch.nn as nn
  class Block(nn.Module):
      def __init__(self):
          super().__init__()
          self.fc = nn.Linear(4, 2)
      def forward(self, x):
          return self.fc(x)
`;

describe('the remembered worker', () => {
  it('starts no worker when every record is cached, and publishes the same sandbox report', async () => {
    const dir = tempDir('nnb-remembered-');
    const log = join(dir, 'starts.log');
    const python = join(dir, 'python');
    writeFileSync(python, `#!/bin/sh\necho start >> '${log}'\nexec '${testPython()}' "$@"\n`);
    chmodSync(python, 0o755);
    const { items } = fixtureItems({ a: HONEST, b: HONEST });
    const cache = mapCache();
    const workerFacts = mapCache();
    const opts = baseOptions({ python, sandbox: false, workers: 1, cache, workerFacts });
    const first = await validateRun(items, opts);
    const starts = readFileSync(log, 'utf8');
    expect(first.records.map((r) => r.status)).toEqual(['passed', 'passed']);

    const warm = await validateRun(items, opts);
    expect(readFileSync(log, 'utf8')).toBe(starts);
    expect(warm.records.every((r) => r.cached)).toBe(true);
    expect(warm.sandbox).toEqual(first.sandbox);

    // One record not cached: a worker starts, as before.
    const { items: more } = fixtureItems({ a: HONEST, c: HONEST.replace('nn.Linear(4, 2)', 'nn.Linear(4, 3)') });
    const mixed = await validateRun(more, opts);
    expect(readFileSync(log, 'utf8').length).toBeGreaterThan(starts.length);
    expect(mixed.records.map((r) => r.status)).toEqual(['passed', 'passed']);
  }, 240_000);
});
