// nnblocks as an installable package: `npm pack` of a copy of the files package.json lists (its prepack builds the
// CLI bundle into the tarball), the tarball installed globally into a temporary prefix, and the installed
// `nnblocks` run from another folder: help, version, and `blocks` on a fixture (SQLite, tree-sitter, the schemas and
// data files beside the sources). And `npm install -g <checkout>`, which links the folder. Dependencies come from
// the local npm cache where it has them (--prefer-offline), the registry otherwise; install scripts are skipped
// (tree-sitter ships prebuilt addons; better-sqlite3's, which npm would compile, is copied from this checkout).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; files: string[] };

function run(cmd: string, args: string[], cwd: string, timeout = 120_000) {
  const res = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, CI: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** The package's own files (package.json `files`, minus the bundle, which prepack builds) in a new folder. */
function packageCopy(): string {
  const dir = tempDir('nnb-pkg-');
  for (const p of [...pkg.files, 'package.json', 'README.md']) {
    if (p.startsWith('build/') || !existsSync(join(ROOT, p))) continue;
    cpSync(join(ROOT, p), join(dir, p), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  }
  // prepack's esbuild, and what a linked install runs with.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** A corpus of one block, in a folder of its own. */
function fixture(): string {
  return writeTree({
    'corpus.json': JSON.stringify({ name: 'gate', sources: [{ id: 'tiny', kind: 'path', path: 'src' }] }),
    'src/tiny/gate.py': py`
      import torch.nn as nn
      class Gate(nn.Module):
          def __init__(self, dim=8):
              super().__init__()
              self.fc = nn.Linear(dim, dim)
          def forward(self, x):
              return self.fc(x).sigmoid() * x
    `,
  });
}

/** The checks an installed `nnblocks` passes, run from a folder outside the package. */
function expectWorks(bin: string): void {
  const cwd = fixture();
  const help = run(bin, ['--help'], cwd);
  expect(help.code, help.err).toBe(0);
  expect(help.out).toContain('Usage: nnblocks [options] [command]');
  if (help.out.includes('--version')) {
    const version = run(bin, ['--version'], cwd);
    expect(version.code, version.err).toBe(0);
    expect(version.out.trim()).toBe(pkg.version);
  }
  const blocks = run(bin, ['blocks', '--config', 'corpus.json', '--json'], cwd);
  expect(blocks.code, blocks.err).toBe(0);
  expect((JSON.parse(blocks.out) as { blocks: { id: string }[] }).blocks.map((b) => b.id)).toEqual([
    'tiny:tiny.gate.Gate',
  ]);
}

describe('the nnblocks package', () => {
  it('packs with its bundle, installs from the tarball and runs from any folder', { timeout: 240_000 }, () => {
    const copy = packageCopy();
    const dest = tempDir('nnb-tgz-');
    const packed = run('npm', ['pack', '--json', '--pack-destination', dest], copy);
    expect(packed.code, packed.err).toBe(0);
    const [info] = JSON.parse(packed.out) as { filename: string; files: { path: string }[] }[];
    const files = info.files.map((f) => f.path);
    expect(files).toContain('build/cli/current.json');
    const stamp = JSON.parse(readFileSync(join(copy, 'build', 'cli', 'current.json'), 'utf8')) as { key: string };
    // One bundle, the current one; the sources beside it (the Python runner, data files); nothing of the tests.
    expect(
      new Set(
        files.filter((f) => f.startsWith('build/cli/') && f !== 'build/cli/current.json').map((f) => f.split('/')[2]),
      ),
    ).toEqual(new Set([stamp.key]));
    expect(files).toContain('pipeline/validate/python/nnblocks_runner/__init__.py');
    expect(files).toContain('pipeline/index/schema.sql');
    expect(files.filter((f) => /^(test|docs|node_modules)\//.test(f) || f.includes('__pycache__'))).toEqual([]);

    const prefix = tempDir('nnb-prefix-');
    const installed = run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        join(dest, info.filename),
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
      ],
      copy,
      180_000,
    );
    expect(installed.code, installed.err).toBe(0);
    const home = join(prefix, 'lib', 'node_modules', 'nnblocks');
    const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    mkdirSync(dirname(join(home, addon)), { recursive: true });
    copyFileSync(join(ROOT, addon), join(home, addon));

    expectWorks(join(prefix, 'bin', 'nnblocks'));
    // The bundle it ran is the one packed: the stamp matched the installed sources (their hashes; npm gives every
    // file a new mtime), so nothing was rebuilt.
    expect(JSON.parse(readFileSync(join(home, 'build', 'cli', 'current.json'), 'utf8')).key).toBe(stamp.key);
  });

  it('`npm install -g <checkout>` links the folder: the checkout’s dependencies, its bundle built on the first run', () => {
    const copy = packageCopy();
    const prefix = tempDir('nnb-prefix-');
    const linked = run('npm', ['install', '--global', '--prefix', prefix, copy, '--offline', '--no-audit'], tempDir());
    expect(linked.code, linked.err).toBe(0);
    expectWorks(join(prefix, 'bin', 'nnblocks'));
  });
});
