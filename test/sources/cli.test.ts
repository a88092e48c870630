// `nnblocks sources` and `nnblocks doctor` driven through runCli with captured output, as a user would run them;
// doctor on a PATH without some tools.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DoctorCheck } from '../../pipeline/run/doctor.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import { pathWithout, withEnv } from '../helpers/path.ts';
import { tempDir } from '../helpers/tree.ts';
import { cli } from '../helpers/cli.ts';

describe('nnblocks sources', () => {
  // The default config's torchvision lives in the managed environment (pip's 0.29.1); the Debian config's in
  // /usr/lib/python3/dist-packages (0.14.1): both are located the same way.
  for (const [config, version] of [
    ['content/corpus.json', '0.29.1'],
    ['content/corpus.debian.json', '0.14.1'],
  ]) {
    it(`--json reports torchvision ${version} of ${config} with its repository and tag`, async () => {
      const { code, out } = await cli(['sources', '--config', config, '--json']);
      expect(code).toBe(0);
      const result = JSON.parse(out) as { snapshots: SourceSnapshot[]; diagnostics: unknown[] };
      expect(result.diagnostics).toEqual([]);
      const tv = result.snapshots[0];
      expect(tv).toMatchObject({
        id: 'torchvision',
        kind: 'python',
        distribution: 'torchvision',
        repository: 'https://github.com/pytorch/vision',
        tag: `v${version}`,
      });
      expect(tv.version!.startsWith(version.replace(/\.\d+$/, ''))).toBe(true);
      expect(['fetched', 'unchanged', 'updated']).toContain(tv.status);
    });
  }

  it('prints a table with id, kind, ref, commit, files and status', async () => {
    const { code, out } = await cli(['sources', '--config', 'content/corpus.json']);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toMatch(/^id\s+kind\s+ref\s+commit\s+files\s+discover\s+skipped\s+license\s+status$/);
    expect(out).toMatch(
      /torchvision\s+python\s+v0\.29\.1\s+torchvision 0\.29\.\S+\s+\d+\s+\d+\s+0\s+BSD-3-Clause\s+(fetched|unchanged|updated)/,
    );
  });

  it('a bad config exits 2 naming the field path and the fix', async () => {
    const file = join(tempDir('nnb-cli-'), 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'x',
        sources: [{ id: 'a', kind: 'git', url: 'https://h.org/r.git', ref: 'main', priority: 0 }],
      }),
    );
    const { code, err } = await cli(['sources', '--config', file]);
    expect(code).toBe(2);
    expect(err).toContain('sources[0].priority: must be one of 1, 2 (got 0)');
    expect(err).toContain('fix: use 1 (primary) or 2 (secondary)');
  });

  it('a failed source sets exit code 1 and lists its diagnostic', async () => {
    const dir = tempDir('nnb-cli-');
    const file = join(dir, 'corpus.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'x', sources: [{ id: 'gone', kind: 'git', url: `file://${dir}/missing`, ref: 'main' }] }),
    );
    const { code, err } = await cli(['sources', '--config', file]);
    expect(code).toBe(1);
    expect(err).toMatch(/error source-unreachable \[gone\]: cannot fetch/);
  });
});

describe('nnblocks doctor', () => {
  it('--json lists each tool, found or missing with the fixing command', async () => {
    const { out } = await cli(['doctor', '--json']);
    const result = JSON.parse(out) as { ok: boolean; checks: { name: string; found: boolean; fix?: string }[] };
    // The default: the managed environment (made by `npm test`'s setup here).
    expect(result.checks.map((c) => c.name)).toEqual([
      'node',
      'git',
      'validation environment',
      'bubblewrap',
      'chromium',
      'shellcheck',
    ]);
    expect(result.checks[2].found).toBe(true);
    // Whatever this machine lacks, each missing tool comes with a command to run.
    for (const c of result.checks) expect(c.found || Boolean(c.fix)).toBe(true);
    expect(result.checks.find((c) => c.name === 'node')!.found).toBe(true);
    expect(result.checks.find((c) => c.name === 'git')!.found).toBe(true);
  });

  it('fails only for what the catalog needs: chromium and shellcheck only the tests need (--for test)', async () => {
    // A machine without the tests' tools: the catalog builds there, so doctor passes; `--for test` does not.
    await withEnv('PATH', pathWithout(['chromium', 'chromium-browser', 'shellcheck']), async () => {
      const r = await cli(['doctor', '--json']);
      expect(r.code).toBe(0);
      const result = JSON.parse(r.out) as { ok: boolean; for: string; checks: DoctorCheck[] };
      expect(result).toMatchObject({ ok: true, for: 'catalog' });
      const byName = new Map(result.checks.map((c) => [c.name, c]));
      expect(byName.get('chromium')).toMatchObject({
        group: 'test',
        found: false,
        fix: expect.stringContaining('chromium'),
      });
      expect(byName.get('shellcheck')).toMatchObject({ group: 'test', found: false });
      expect(byName.get('bubblewrap')).toMatchObject({ group: 'catalog', found: true });

      const human = await cli(['doctor']);
      expect(human.code).toBe(0);
      expect(human.out).toMatch(/needed to build the catalog:\n[\s\S]*needed only by the test suite \(npm test\):\n/);
      expect(human.out).toContain('(chromium, shellcheck missing: only the tests need them)');

      const tests = await cli(['doctor', '--for', 'test']);
      expect(tests.code).toBe(1);
      expect(tests.out).toContain('missing: chromium, shellcheck');
    });
    // A tool the catalog needs fails it whatever --for says.
    await withEnv('PATH', pathWithout(['git']), async () => {
      expect((await cli(['doctor'])).code).toBe(1);
    });
  });

  it('checks the interpreter a config names instead (Debian torch 1.13)', async () => {
    const { out } = await cli(['doctor', '--json', '--config', 'content/corpus.debian.json']);
    const checks = (JSON.parse(out) as { checks: { name: string; found: boolean; detail: string }[] }).checks;
    expect(checks[2]).toMatchObject({ name: 'python + torch', found: true });
    expect(checks[2].detail).toMatch(/torch 1\.13/);
  });
});
