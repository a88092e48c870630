// A virtual environment made by hand for tests of installed distributions: pyvenv.cfg next to a linked interpreter,
// system packages visible so torch imports, and a site-packages tree written inline (hostile metadata included).
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testPython } from './python.ts';
import { tempDir, writeTree, type Tree } from './tree.ts';

/** A venv whose site-packages holds `site(dir)`: a distribution installed the ordinary way, as far as Python knows. */
export function venvWith(site: (dir: string) => Tree): { python: string; siteDir: string } {
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

/** The metadata folder of distribution `name` 1.0: METADATA (plus `extra` header lines), top_level.txt, RECORD. */
export const distInfo = (name: string, topLevel: string, record: string[], extra: string[] = []): Tree => ({
  [`${name}-1.0.dist-info/METADATA`]: [
    'Metadata-Version: 2.1',
    `Name: ${name}`,
    'Version: 1.0',
    'License: MIT',
    ...extra,
    '',
  ].join('\n'),
  [`${name}-1.0.dist-info/top_level.txt`]: topLevel,
  [`${name}-1.0.dist-info/RECORD`]: record.map((f) => `${f},,\n`).join(''),
});
