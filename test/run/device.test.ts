// The device validation asks for, decided once (run/device.ts): `--device` over config `validate.device` over `auto`.
// A value the runner does not know is refused at the command line, exit 2, naming the ones it knows; the config
// schema lists the same ones. `build`, `validate` and `dedup --validated` ask alike, so they key their cached records
// alike. The real CLI on a one-block fixture corpus, validated in the real sandbox.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEVICES, requestedDevice } from '../../pipeline/run/device.ts';
import { hasGpuDevices } from '../../pipeline/validate/sandbox.ts';
import { cli } from '../helpers/cli.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const TINY = {
  'tiny/__init__.py': '',
  'tiny/blocks.py': py`
    import torch.nn as nn
    class Proj(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
        def forward(self, x):
            return self.proj(x)
  `,
};

/** A one-block corpus whose config asks for `device` (none: the key left out), its cache beside it. */
function corpus(device?: string): string {
  const dir = tempDir('nnb-cfg-');
  const config = join(dir, 'corpus.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 't',
      cacheDir: join(dir, 'cache'),
      sources: [{ id: 'tiny', kind: 'path', path: gitRepo(TINY).dir }],
      ...(device ? { validate: { device } } : {}),
    }),
  );
  return config;
}

interface ValidateJson {
  sandbox: { device: string } | null;
  records: { id: string; status: string; device: string; cached: boolean; failureDetail: string | null }[];
}

describe('requestedDevice', () => {
  it.each([
    ['the flag over the config', { validate: { device: 'cuda' as const } }, 'cpu' as const, 'cpu'],
    ['the config without a flag', { validate: { device: 'cpu' as const } }, undefined, 'cpu'],
    ['auto when neither says', {}, undefined, 'auto'],
    ['auto when the config has a validate block without a device', { validate: {} }, undefined, 'auto'],
  ])('%s', (_, config, flag, want) => {
    expect(requestedDevice(config, flag)).toBe(want);
  });

  it('knows the devices runner.py knows, and the config schema lists the same', () => {
    expect([...DEVICES]).toEqual(['auto', 'cpu', 'cuda']);
    const schema = JSON.parse(readFileSync(new URL('../../content/corpus.schema.json', import.meta.url), 'utf8')) as {
      $defs: { validate: { properties: { device: { enum: string[] } } } };
    };
    expect(schema.$defs.validate.properties.device.enum).toEqual([...DEVICES]);
  });
});

describe('--device on the command line', () => {
  // `gpu` used to be taken and run as `auto` (runner.py only tells `cpu` and `cuda` apart).
  it.each([['validate'], ['build']])('%s --device gpu is a usage error naming the devices', async (cmd) => {
    const r = await cli([cmd, '--config', corpus(), '--device', 'gpu']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("argument 'gpu' is invalid. Allowed choices are auto, cpu, cuda.");
    expect(r.out).toBe('');
    const j = await cli([cmd, '--config', corpus(), '--device', 'gpu', '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out)).toMatchObject({ error: { stage: 'usage', exitCode: 2 } });
  });

  it('says the default is the config value', async () => {
    for (const cmd of ['validate', 'build']) {
      const help = (await cli([cmd, '--help'])).out.replace(/\s+/g, ' ');
      expect(help).toContain(
        `--device <device> where blocks run (default: the config's validate.device, else auto) (choices: "auto", "cpu", "cuda")`,
      );
    }
  });
});

describe('the config device applies unless --device overrides it', () => {
  // A machine without a GPU can only show `cuda` honoured by its failing: the runner refuses it, every block skipped.
  it('validate without --device runs on the config device; --device cpu overrides it', async () => {
    const config = corpus('cuda');
    const asked = await cli(['validate', '--config', config, '--json']);
    const run = JSON.parse(asked.out) as ValidateJson;
    if (hasGpuDevices()) {
      expect(asked.code).toBe(0);
      expect(run.sandbox?.device).toBe('cuda');
    } else {
      expect(asked.code).toBe(1);
      expect(run.records).toHaveLength(1);
      expect(run.records[0]).toMatchObject({ status: 'skipped' });
      expect(run.records[0].failureDetail).toContain('device cuda requested');
    }
    const overridden = await cli(['validate', '--config', config, '--device', 'cpu', '--json']);
    expect(overridden.code).toBe(0);
    const cpu = JSON.parse(overridden.out) as ValidateJson;
    expect(cpu.sandbox?.device).toBe('cpu');
    expect(cpu.records.map((r) => [r.status, r.device])).toEqual([['passed', 'cpu']]);
  });

  // On a machine with a GPU, `validate` used to ask for `auto` (so CUDA) where `dedup --validated` asked for the
  // config's `cpu`: two devices, two cache keys, every block validated twice.
  it('dedup --validated and validate find each other’s records: one device asked, one cache key', async () => {
    const config = corpus('cpu');
    expect((await cli(['dedup', '--validated', '--config', config, '--json'])).code).toBe(0);
    const r = await cli(['validate', '--config', config, '--json']);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.out) as ValidateJson;
    expect(run.sandbox?.device).toBe('cpu');
    expect(run.records.map((x) => [x.status, x.device, x.cached])).toEqual([['passed', 'cpu', true]]);
  });
});
