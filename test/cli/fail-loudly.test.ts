// Silent success, made loud: `build` and `validate` exit 1 when nothing could be validated (no Python
// with torch, no bubblewrap) unless validation was turned off; a source whose ref does not exist upstream fails the
// build; the human output lists the blocks that did not pass with their reason, and warnings with their message.
// The real CLI on fixture repositories; the machine's lacks are made with NNBLOCKS_PYTHON and a PATH without bwrap.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ValidationRecord } from '../../pipeline/contract/validation.ts';
import { blockFailures } from '../../pipeline/catalog/failure-reason.ts';
import { printFailures } from '../../pipeline/cli/commands/shared.ts';
import type { CliIO } from '../../pipeline/cli/io.ts';
import { pathWithout, withEnv } from '../helpers/path.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';
import { cli } from '../helpers/cli.ts';

function capture(json = false): CliIO & { text: { out: string; err: string } } {
  const text = { out: '', err: '' };
  return { text, out: (t) => void (text.out += t), err: (t) => void (text.err += t), isTTY: false, ci: true, json };
}

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
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)
        def forward(self, x):
            raise RuntimeError("this block always fails")
  `,
};

/** A config with one source (a path to a fixture git repository unless given), cache beside it. */
function corpus(source: object = { id: 'tiny', kind: 'path', path: gitRepo(TINY).dir }): string {
  const dir = tempDir('nnb-cfg-');
  const config = join(dir, 'corpus.json');
  writeFileSync(config, JSON.stringify({ name: 't', cacheDir: join(dir, 'cache'), sources: [source] }));
  return config;
}

/**
 * The CLI in a Node process of its own whose PATH has no bwrap: bubblewrap's probe is cached for the process, and
 * the other tests here run a real sandbox.
 */
function cliWithoutBwrap(args: string[]): { code: number; out: string; err: string } {
  const script = join(tempDir('nnb-nobwrap-'), 'run.mts');
  const main = new URL('../../pipeline/cli/main.ts', import.meta.url).pathname;
  writeFileSync(
    script,
    `import { runCli } from ${JSON.stringify(main)};\n` + `process.exitCode = await runCli(${JSON.stringify(args)});\n`,
  );
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
    encoding: 'utf8',
    env: { ...process.env, PATH: pathWithout(['bwrap']) },
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('no bubblewrap', () => {
  it('build and validate exit 1 naming bubblewrap and the fix; --no-validate builds, exit 0', () => {
    const config = corpus();
    for (const cmd of [['build', '--out', tempDir('nnb-cat-')], ['validate']]) {
      const r = cliWithoutBwrap([...cmd, '--config', config]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('error: nothing could be validated: no sandbox: bubblewrap is not installed');
      expect(r.err).toMatch(/fix: apt-get install bubblewrap .*or pass --no-sandbox .*or pass --no-validate/);
    }
    const off = cliWithoutBwrap(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--no-validate']);
    expect(off.err).not.toContain('nothing could be validated');
    expect(off.code).toBe(0);
  });
});

describe('no Python that imports torch', () => {
  it('build exits 1 naming the interpreter and the fix, in --json too; --no-validate exits 0', async () => {
    const config = corpus();
    await withEnv('NNBLOCKS_PYTHON', '/nonexistent/python3', async () => {
      const r = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-')]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /error: nothing could be validated: no Python interpreter that imports torch; tried \/nonexistent/,
      );
      expect(r.err).toMatch(/fix: fix or remove NNBLOCKS_PYTHON.*or pass --no-validate/);
      const j = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--json']);
      expect(j.code).toBe(1);
      expect(j.err).toContain('error: nothing could be validated');
      const doc = JSON.parse(j.out) as { validated: number; diagnostics: { code: string; severity: string }[] };
      expect(doc.validated).toBe(0);
      expect(doc.diagnostics).toContainEqual(
        expect.objectContaining({ code: 'validation-unavailable', severity: 'error' }),
      );
      const off = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--no-validate']);
      expect(off.code).toBe(0);
    });
  });
});

describe('human output of a build', () => {
  let r: { code: number; out: string; err: string };
  beforeAll(async () => {
    const config = corpus({
      id: 'tiny',
      kind: 'path',
      path: gitRepo(TINY).dir,
      include: ['tiny/**/*.py', 'tiyn/**/*.py'],
    });
    r = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-')]);
  });

  it('lists the blocks that did not pass with their one-line reason', () => {
    expect(r.code).toBe(0);
    expect(r.out).toContain('did not pass: 1 failed, 0 not run automatically, 0 blocked\n');
    expect(r.out).toContain(
      '  forward-error  tiny:tiny.blocks.Broken: forward: RuntimeError: this block always fails\n',
    );
    expect(r.out).not.toContain('tiny:tiny.blocks.Proj:');
  });

  it('prints each warning with its message and hint, not only its code', () => {
    expect(r.err).toContain(
      '  warning include-matches-nothing [tiny]: include "tiyn/**/*.py" matches no Python file of the source (correct the glob',
    );
  });
});

describe('the list of blocks that did not pass', () => {
  it('shows the first 20, failed, not run, then blocked, by class, then how many more; upstream text made printable', () => {
    const record = (i: number): [string, ValidationRecord] => [
      `s:m.B${String(i).padStart(2, '0')}`,
      {
        status: i < 2 ? 'blocked' : i === 24 ? 'not-run' : 'failed',
        failureClass: i < 2 ? 'missing-dependency' : i < 4 ? 'needs-arguments' : i < 10 ? 'forward-error' : 'timeout',
        reason: {
          stage: i < 4 ? 'build' : 'forward',
          exceptionType: 'TypeError',
          message: i === 2 ? '\x1b[2Jcleared\n::error::x' : 'missing x',
          recipeTried: null,
        },
        stages: [],
        outputs: [],
        device: 'cpu',
        torchVersion: '2.14.1',
        fidelity: 'not-compared',
      },
    ];
    const io = capture();
    printFailures(io, blockFailures(Array.from({ length: 25 }, (_, i) => record(i))));
    const lines = io.text.out.split('\n').filter(Boolean);
    expect(lines).toHaveLength(22);
    expect(lines.slice(0, 3)).toEqual([
      'did not pass: 22 failed, 1 not run automatically, 2 blocked',
      '  forward-error    s:m.B04: forward: TypeError: missing x',
      '  forward-error    s:m.B05: forward: TypeError: missing x',
    ]);
    expect(lines.slice(7, 10)).toEqual([
      '  needs-arguments  s:m.B02: build: TypeError: \\x1b[2Jcleared\\n::error::x',
      '  needs-arguments  s:m.B03: build: TypeError: missing x',
      '  timeout          s:m.B10: forward: TypeError: missing x',
    ]);
    expect(lines[21]).toBe('  ... and 5 more (see --json)');
    // What the harness could not run is listed after the code's failures, and says so.
    const all = capture();
    printFailures(all, blockFailures(Array.from({ length: 25 }, (_, i) => record(i))), 30);
    const rows = all.text.out.split('\n').filter(Boolean);
    expect(rows.slice(-3)).toEqual([
      '  not run: timeout  s:m.B24: forward: TypeError: missing x',
      '  blocked           s:m.B00: build: TypeError: missing x',
      '  blocked           s:m.B01: build: TypeError: missing x',
    ]);
  });
});

describe('a ref that does not exist upstream', () => {
  it('fails its source and the build (exit 1), though an earlier fetch left a copy', async () => {
    const repo = gitRepo(TINY);
    const config = corpus({ id: 'tiny', kind: 'git', url: `file://${repo.dir}`, ref: 'main' });
    expect((await cli(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--no-validate'])).code).toBe(0);
    const cfg = JSON.parse(readFileSync(config, 'utf8')) as { sources: { ref: string }[] };
    cfg.sources[0].ref = 'mian';
    writeFileSync(config, JSON.stringify(cfg));
    const r = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--no-validate']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('0 blocks');
    expect(r.err).toMatch(/error source-ref-missing \[tiny\]: file:\/\/\S+ has no branch, tag or commit "mian"/);
    expect(r.err).toContain('error: source tiny failed');
  });
});
