// Incremental validation and refusals: cached records on re-runs, no-sandbox and no-CUDA skips, --no-sandbox runs.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasGpuDevices, NO_SANDBOX_DETAIL } from '../../pipeline/validate/sandbox.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidateCache } from '../../pipeline/validate/types.ts';
import { py, tempDir } from '../helpers/tree.ts';
import { baseOptions, fixtureItems } from './helpers.ts';

const BLOCKS = {
  a: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 3)
        def forward(self, x):
            return self.fc(x)
  `,
  b: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, channels: int):
            super().__init__()
            self.conv = nn.Conv1d(channels, channels, 3)
        def forward(self, x):
            return self.conv(x)
  `,
};

/** An in-memory cache with the interface the SQLite index backs in a real run; counts writes. */
function memoryCache(): ValidateCache & { puts: number } {
  const map = new Map<string, string>();
  return {
    puts: 0,
    get: (k) => map.get(k),
    put(k, v) {
      this.puts += 1;
      map.set(k, v);
    },
  };
}

describe('incremental validation', () => {
  it('returns cached records on a re-run and re-validates only what changed', async () => {
    const { items } = fixtureItems(BLOCKS);
    const cache = memoryCache();
    const first = await validateBlocks(items, baseOptions({ cache }));
    expect(first.map((r) => [r.status, r.cached])).toEqual([
      ['passed', false],
      ['passed', false],
    ]);
    expect(cache.puts).toBe(2);

    const second = await validateBlocks(items, baseOptions({ cache }));
    expect(second.map((r) => r.cached)).toEqual([true, true]);
    // The cached record is the same record, down to the checksums.
    expect(second.map((r) => ({ ...r, cached: false }))).toEqual(first);

    const changed = [{ ...items[0], moduleHash: 'edited' }, items[1]];
    const third = await validateBlocks(changed, baseOptions({ cache }));
    expect(third.map((r) => r.cached)).toEqual([false, true]);
    expect(cache.puts).toBe(3);
  });
});

describe('refusals and --no-sandbox', () => {
  it('runs blocks without bubblewrap only when sandbox is false', async () => {
    const { items } = fixtureItems({ a: BLOCKS.a });
    const [rec] = await validateBlocks(items, baseOptions({ sandbox: false }));
    expect(rec.status).toBe('passed');
  });

  it('skips every block, with the install command, when bubblewrap is missing', () => {
    // A separate Node process whose PATH has no bwrap; the real stage, no mocks.
    const { items } = fixtureItems({ a: BLOCKS.a });
    const script = join(tempDir('nnb-nobwrap-'), 'run.mts');
    const stage = new URL('../../pipeline/validate/validate.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { validateBlocks } from ${JSON.stringify(stage)};\n` +
        `const recs = await validateBlocks(${JSON.stringify(items)}, ${JSON.stringify(baseOptions())});\n` +
        `process.stdout.write(JSON.stringify(recs));\n`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      env: { ...process.env, PATH: '/nonexistent' },
    });
    const [rec] = JSON.parse(out);
    expect(rec).toMatchObject({ status: 'skipped', failureClass: null, failureDetail: NO_SANDBOX_DETAIL, stages: [] });
  });

  it('skips every block, saying why, when the sandbox keeps root or capabilities', () => {
    // A bubblewrap on PATH that turns the privilege drop around (uid 0, every capability): the real stage must
    // notice from inside (the worker's /proc/self/status) and run nothing.
    const bin = tempDir('nnb-badbwrap-');
    writeFileSync(
      join(bin, 'bwrap'),
      [
        '#!/bin/sh',
        'for a in "$@"; do',
        '  shift',
        '  case "$a" in',
        '    65534) set -- "$@" 0 ;;',
        '    --cap-drop) set -- "$@" --cap-add ;;',
        '    *) set -- "$@" "$a" ;;',
        '  esac',
        'done',
        'exec /usr/bin/bwrap "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const { items } = fixtureItems({ a: BLOCKS.a });
    const script = join(tempDir('nnb-badbwrap-run-'), 'run.mts');
    const stage = new URL('../../pipeline/validate/validate.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { validateRun } from ${JSON.stringify(stage)};\n` +
        `const run = await validateRun(${JSON.stringify(items)}, ${JSON.stringify(baseOptions())});\n` +
        `process.stdout.write(JSON.stringify(run));\n`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const run = JSON.parse(out);
    expect(run.records[0]).toMatchObject({ status: 'skipped', stages: [] });
    expect(run.records[0].failureDetail).toContain('did not drop privileges');
    expect(run.sandbox.capEff).not.toBe('0000000000000000');
  });

  it.skipIf(hasGpuDevices())('skips every block when CUDA is forced but absent', async () => {
    const { items } = fixtureItems({ a: BLOCKS.a });
    const [rec] = await validateBlocks(items, baseOptions({ device: 'cuda' }));
    expect(rec.status).toBe('skipped');
    expect(rec.failureDetail).toContain('cuda');
  });
});
