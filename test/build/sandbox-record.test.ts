// How a build ran upstream code, recorded and said: the sandbox report the real runner measured (as `validate --json`
// prints it) reaches build-info.json, unsharded and merged from shards (the same record either way, shards that
// disagree refused), and says upstream code ran as nobody with no capability; `--no-sandbox` warns on stderr on every
// build and validate run, never in the --json document on stdout.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BuildInfo, SandboxReport } from '../../pipeline/contract/build-info.ts';
import type { PartialBuild } from '../../pipeline/run/partial.ts';
import { sandboxHostUid } from '../../pipeline/sandbox/bwrap.ts';
import { seccompSupported } from '../../pipeline/sandbox/seccomp.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';
import { cli } from '../helpers/cli.ts';

/** A one-block corpus: enough for a build to validate something, small enough to run in seconds. */
function corpus(): string {
  const { dir } = gitRepo({
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
  });
  const cfgDir = tempDir('nnb-cfg-');
  const config = join(cfgDir, 'corpus.json');
  writeFileSync(
    config,
    JSON.stringify({ name: 't', cacheDir: join(cfgDir, 'cache'), sources: [{ id: 'tiny', kind: 'path', path: dir }] }),
  );
  return config;
}

const readInfo = (dir: string) => JSON.parse(readFileSync(join(dir, 'build-info.json'), 'utf8')) as BuildInfo;

describe('build-info.json sandbox record', () => {
  let config: string;
  let full: string;
  let parts: string[];
  let report: SandboxReport;

  beforeAll(async () => {
    config = corpus();
    const validated = await cli(['validate', '--config', config, '--json']);
    expect(validated.code, validated.err).toBe(0);
    report = (JSON.parse(validated.out) as { sandbox: SandboxReport }).sandbox;
    full = tempDir('nnb-cat-');
    expect((await cli(['build', '--config', config, '--out', full, '--json'])).code).toBe(0);
    parts = [tempDir('nnb-part-'), tempDir('nnb-part-')];
    for (const [k, part] of parts.entries())
      expect((await cli(['build', '--config', config, '--shard', `${k + 1}/2`, '--out', part, '--json'])).code).toBe(0);
  });

  it('carries the report the runner measured inside the sandbox, schema-checked', () => {
    expect(checkCatalog(full).errors).toEqual([]);
    expect(readInfo(full).sandbox).toEqual(report);
    // What the runner saw: nobody, every capability dropped, no way to regain one (README: "Upstream code is treated
    // as hostile"); bubblewrap is started as nobody on the host too when the tests run as root.
    expect(report).toMatchObject({
      enabled: true,
      uid: 65534,
      gid: 65534,
      hostUid: sandboxHostUid(),
      capEff: '0000000000000000',
      noNewPrivs: true,
      seccomp: seccompSupported(),
    });
    expect(report.tmpBytes).toBeGreaterThan(0);
  });

  it('is the same record after a sharded build and merge, the catalog byte-identical', async () => {
    const merged = tempDir('nnb-merged-');
    expect((await cli(['merge', ...parts, '--out', merged, '--json'])).code).toBe(0);
    expect(readInfo(merged).sandbox).toEqual(report);
    expect(catalogFiles(merged)).toEqual(catalogFiles(full));
  });

  it('takes the record of the shards that ran a block, and refuses shards that ran under different sandboxes', async () => {
    const edit = (part: string, sandbox: SandboxReport | null) => {
      const file = join(part, 'partial.json');
      const p = JSON.parse(readFileSync(file, 'utf8')) as PartialBuild;
      writeFileSync(file, JSON.stringify({ ...p, sandbox }));
    };
    edit(parts[0], null); // this shard validated nothing
    const merged = tempDir('nnb-merged-');
    expect((await cli(['merge', ...parts, '--out', merged, '--json'])).code).toBe(0);
    expect(readInfo(merged).sandbox).toEqual(report);

    const tmpBytes = report.tmpBytes === null ? 1 : null;
    edit(parts[0], { ...report, enabled: !report.enabled, uid: 0, hostUid: 0, seccomp: !report.seccomp, tmpBytes });
    const r = await cli(['merge', ...parts, '--out', tempDir('nnb-merged-'), '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('shards 1 and 2 ran upstream code under different sandboxes');
    expect(r.err).toContain('enabled, uid, hostUid, seccomp, tmpBytes differ');
  });
});

describe('--no-sandbox', () => {
  let config: string;
  beforeAll(() => {
    config = corpus();
  });
  const warning = /warning: --no-sandbox: upstream code runs unconfined as the current user \(.*uid \d+\)/;

  it('warns on stderr on every validate run, and keeps it out of the --json document', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli(['validate', '--config', config, '--no-sandbox', '--only', 'NoSuchBlock', ...json]);
      expect(r.code).toBe(0);
      expect(r.err).toMatch(warning);
      expect(r.out).not.toContain('--no-sandbox');
      if (json.length) expect(() => JSON.parse(r.out)).not.toThrow();
    }
    expect((await cli(['validate', '--config', config, '--only', 'NoSuchBlock', '--json'])).err).not.toMatch(warning);
  });

  it('warns on stderr on every build that validates, and keeps it out of the --json document', async () => {
    const r = await cli(['build', '--config', config, '--no-sandbox', '--out', tempDir('nnb-cat-'), '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(warning);
    expect(r.out).not.toContain('--no-sandbox');
    expect(() => JSON.parse(r.out)).not.toThrow();
    // Without validation no upstream code runs, so there is nothing to warn about.
    const quiet = await cli([
      'build',
      '--config',
      config,
      '--no-sandbox',
      '--no-validate',
      '--out',
      tempDir(),
      '--json',
    ]);
    expect(quiet.err).not.toMatch(warning);
  });
});
