// python sources whose installed metadata is hostile: locating a distribution's packages must never import them
// (a dotted top_level.txt entry made `find_spec` run the parent package's __init__.py on the host).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { testPython } from '../helpers/python.ts';
import { py, tempDir, writeTree, type Tree } from '../helpers/tree.ts';

const ctx = quietContext();

/**
 * A virtual environment made by hand (pyvenv.cfg next to a linked interpreter, system packages visible so torch
 * imports) with `site` written into its site-packages: a hostile distribution installed the ordinary way.
 */
function venvWith(site: (dir: string) => Tree): { python: string; siteDir: string } {
  const venv = tempDir('nnb-venv-');
  const base = testPython();
  const ver = execFileSync(base, ['-c', 'import sys; print("python%d.%d" % sys.version_info[:2])'], {
    encoding: 'utf8',
  }).trim();
  const home = execFileSync(base, ['-c', 'import os, sys; print(os.path.dirname(os.path.realpath(sys.executable)))'], {
    encoding: 'utf8',
  }).trim();
  mkdirSync(join(venv, 'bin'));
  symlinkSync(execFileSync('readlink', ['-f', base], { encoding: 'utf8' }).trim(), join(venv, 'bin', 'python3'));
  writeFileSync(join(venv, 'pyvenv.cfg'), `home = ${home}\ninclude-system-site-packages = true\n`);
  const siteDir = join(venv, 'lib', ver, 'site-packages');
  mkdirSync(siteDir, { recursive: true });
  writeTree(site(siteDir), siteDir);
  return { python: join(venv, 'bin', 'python3'), siteDir };
}

function config(python: string, distribution: string, include = ['**/*.py']) {
  return resolveConfig(
    {
      name: 't',
      python,
      cacheDir: tempDir('nnb-cache-'),
      sources: [{ id: 'h', kind: 'python', distribution, include }],
    },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
}

const distInfo = (name: string, topLevel: string, record: string[]): Tree => ({
  [`${name}-1.0.dist-info/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: 1.0\nLicense: MIT\n`,
  [`${name}-1.0.dist-info/top_level.txt`]: topLevel,
  [`${name}-1.0.dist-info/RECORD`]: record.map((f) => `${f},,\n`).join(''),
});

describe('hostile installed distributions', () => {
  it('a dotted top_level.txt entry is located on disk: the parent package is never imported', async () => {
    const marker = join(tempDir('nnb-mark-'), 'imported');
    const { python } = venvWith(() => ({
      ...distInfo('hostile', 'evilpkg.sub\n', [
        'evilpkg/__init__.py',
        'evilpkg/sub/__init__.py',
        'evilpkg/sub/blocks.py',
      ]),
      // Runs if anything imports evilpkg — find_spec("evilpkg.sub") does.
      'evilpkg/__init__.py': `open(${JSON.stringify(marker)}, "w").write("ran on the host")\n`,
      'evilpkg/sub/__init__.py': `open(${JSON.stringify(marker)}, "w").write("ran on the host")\n`,
      'evilpkg/sub/blocks.py': py`
        import torch.nn as nn
        class Block(nn.Module):
            def forward(self, x):
                return x
      `,
    }));
    const { snapshots, diagnostics } = await fetchSources(config(python, 'hostile'), ctx);
    expect(existsSync(marker)).toBe(false);
    expect(diagnostics).toEqual([]);
    expect(snapshots[0]).toMatchObject({ status: 'fetched', distribution: 'hostile', version: '1.0' });
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['evilpkg/sub/__init__.py', 'evilpkg/sub/blocks.py']);
  });

  it('a top_level.txt entry that is a path out of site-packages is refused with a diagnostic', async () => {
    const outside = writeTree({ 'stolen/__init__.py': 'SECRET = 1\n' });
    const { python, siteDir } = venvWith(() => ({
      ...distInfo('wanders', 'okpkg\n../../../../../..' + outside + '/stolen\n', ['okpkg/__init__.py']),
      'okpkg/__init__.py': 'A = 1\n',
    }));
    expect(existsSync(join(siteDir, 'okpkg'))).toBe(true);
    const { snapshots, diagnostics } = await fetchSources(config(python, 'wanders'), ctx);
    expect(snapshots[0].status).toBe('fetched');
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['okpkg/__init__.py']);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'top-level-refused', severity: 'warning' })]);
  });
});
