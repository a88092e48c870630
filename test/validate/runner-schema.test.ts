// The Python side of the runner record: runner.py, driven over its own protocol (hello, job, seal) with no
// TypeScript check in between, writes records that hold to the published schemas/runner/record.schema.json — the
// file generated from the one definition the TypeScript side checks with (pipeline/contract/runner-record.ts).
// One block per outcome the record's shape depends on: passed, failed to build, failed forward, a missing import.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerArgs } from '../../pipeline/validate/sandbox.ts';
import { testPython } from '../helpers/python.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

const RUNNER = fileURLToPath(new URL('../../pipeline/validate/python/runner.py', import.meta.url));
const SCHEMA = JSON.parse(readFileSync('schemas/runner/record.schema.json', 'utf8')) as object;

const BLOCKS = {
  passes: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, channels: int = 4):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.norm = nn.BatchNorm2d(channels)
        def forward(self, x):
            return self.norm(self.conv(x)).relu()
  `,
  needs_arguments: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, backbone):
            super().__init__()
            # Nothing inference makes is a module: a namespace of the attributes read is not one either.
            if not isinstance(backbone, nn.Module):
                raise TypeError("backbone must be a module")
            self.width = backbone.out_channels
        def forward(self, x):
            return x
  `,
  forward_error: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
        def forward(self, x):
            raise ValueError("no forward today")
  `,
  missing_dependency: py`
    import nnblocks_not_installed_anywhere
    import torch.nn as nn
    class Block(nn.Module):
        def forward(self, x):
            return x
  `,
};

/** One runner.py process outside any sandbox, spoken to as worker.ts speaks to it; `record` runs one job. */
function startRunner(workRoot: string) {
  const proc = spawn(testPython(), runnerArgs(RUNNER), {
    stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
    // What worker.ts gives a worker outside a sandbox: nothing of ours, one thread.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
  });
  const stdin = proc.stdin as Writable;
  const results = proc.stdio[3] as Readable;
  const nonce = 'schema-test';
  let buffer = '';
  const waiting: ((msg: Record<string, unknown>) => void)[] = [];
  results.setEncoding('utf8');
  results.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      waiting.shift()?.(msg);
    }
  });
  const next = () => new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve));
  const send = (obj: object) => stdin.write(JSON.stringify(obj) + '\n');
  send({ nonce, device: 'cpu', workRoot, sandboxed: false, nativeLibraries: [], preload: [] });
  const ready = next();
  return {
    ready,
    async record(importRoot: string, module: string): Promise<unknown> {
      const started = next();
      send({
        id: module,
        importRoot,
        module,
        className: 'Block',
        blocked: [],
        overrides: null,
        usage: [],
        usageInputs: [],
        original: null,
        seed: 0,
        timeoutMs: 30_000,
        memoryBytes: 4 * 2 ** 30,
        corpus: { packages: [], native: [] },
      });
      expect((await started).type).toBe('started');
      const result = next();
      send({ token: `token-${module}` });
      const msg = await result;
      expect(msg).toMatchObject({ type: 'result', id: module, token: `token-${module}` });
      return msg.record;
    },
    close: () => {
      stdin.end();
      proc.kill('SIGKILL');
    },
  };
}

describe('runner.py records against schemas/runner/record.schema.json', () => {
  const root = writeTree(Object.fromEntries(Object.entries(BLOCKS).map(([name, code]) => [`${name}.py`, code])));
  let runner: ReturnType<typeof startRunner>;
  beforeAll(async () => {
    runner = startRunner(tempDir('nnb-runner-work-'));
    expect((await runner.ready).type).toBe('ready');
  }, 120_000);
  afterAll(() => runner?.close());

  const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(
    SCHEMA,
  );

  it.each([
    ['passes', 'passed', null],
    ['needs_arguments', 'failed', 'needs-arguments'],
    ['forward_error', 'failed', 'forward-error'],
    ['missing_dependency', 'failed', 'missing-dependency'],
  ])(
    '%s: a record the schema accepts (%s, %s)',
    async (module, status, failureClass) => {
      const record = await runner.record(root, module);
      expect(record).toMatchObject({ status, failureClass });
      expect(validate(record) ? [] : validate.errors).toEqual([]);
    },
    120_000,
  );
});
