// License files in hostile trees: a LICENSE symlinked to /proc/self/environ would publish our environment, one to
// /proc/self/pagemap would be read until memory runs out. Each runs `nnblocks sources` in a child process: the
// canary must be in the environment the process was started with, and a runaway read must hit the child's memory
// limit, not the test runner's.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const MIT = 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy...\n';

/** A path source's folder and a config for it, in a fresh cache. */
function corpus(tree: Record<string, string>) {
  const root = writeTree({ 'pkg/__init__.py': '', 'pkg/blocks.py': 'A = 1\n', ...tree });
  const dir = tempDir('nnb-proj-');
  const cacheDir = join(dir, 'cache');
  const config = join(dir, 'corpus.json');
  writeTree(
    { 'corpus.json': JSON.stringify({ name: 't', cacheDir, sources: [{ id: 'fx', kind: 'path', path: root }] }) },
    dir,
  );
  return { root, config, cacheDir };
}

/** `nnblocks sources --json` in a child process with `env` added and its data segment capped at 1 GiB. */
function sourcesCli(config: string, env: Record<string, string> = {}) {
  const r = spawnSync(
    'bash',
    [
      '-c',
      'ulimit -d 1048576; exec "$@"',
      'nnblocks',
      process.execPath,
      'bin/nnblocks.mjs',
      'sources',
      '--config',
      config,
      '--json',
    ],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 },
  );
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

/** Every file under `dir`, as text (binary files too: a secret would show as its bytes). */
function allFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'latin1'));
  return out;
}

describe('hostile license files', () => {
  it('a LICENSE symlinked to /proc/self/environ is not read: no canary anywhere, license unknown', () => {
    const secret = `nnbCanary${Math.random().toString(36).slice(2)}`;
    // Shaped so that reading it as a license would publish it (an SPDX tag is taken as the license id).
    const canary = `SPDX-License-Identifier: ${secret}`;
    const { root, config, cacheDir } = corpus({});
    symlinkSync('/proc/self/environ', join(root, 'LICENSE'));
    const r = sourcesCli(config, { NNBLOCKS_CANARY: canary });
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain(secret);
    expect(r.err).not.toContain(secret);
    for (const [file, text] of allFiles(cacheDir)) expect(text.includes(secret), file).toBe(false);
    const s = (JSON.parse(r.out) as { snapshots: SourceSnapshot[] }).snapshots[0];
    expect(s.status).toBe('fetched');
    expect(s.license.spdx).toBeNull();
    expect(s.diagnostics).toEqual([
      expect.objectContaining({ code: 'license-file-refused', severity: 'warning', source: 'fx', path: 'LICENSE' }),
    ]);
  });

  it('a LICENSE symlinked to /proc/self/pagemap is not read: the run finishes within a 1 GiB data limit', () => {
    const { root, config } = corpus({});
    symlinkSync('/proc/self/pagemap', join(root, 'LICENSE'));
    const r = sourcesCli(config);
    expect({ code: r.code, signal: r.signal }, r.err.slice(-2000)).toEqual({ code: 0, signal: null });
    const s = (JSON.parse(r.out) as { snapshots: SourceSnapshot[] }).snapshots[0];
    expect(s.license.spdx).toBeNull();
    expect(s.diagnostics).toEqual([expect.objectContaining({ code: 'license-file-refused', path: 'LICENSE' })]);
  });

  it('a 4 GiB regular LICENSE is read only for its first 256 kB', async () => {
    const root = writeTree({ 'pkg/__init__.py': '' });
    // Sparse: no disk space used. The text at its start still identifies the license.
    const fd = openSync(join(root, 'LICENSE'), 'w');
    writeSync(fd, MIT);
    writeSync(fd, '\n', 4 * 1024 ** 3 - 1);
    closeSync(fd);
    expect(statSync(join(root, 'LICENSE')).size).toBe(4 * 1024 ** 3);
    const c = resolveConfig(
      { name: 't', cacheDir: tempDir('nnb-cache-'), sources: [{ id: 'fx', kind: 'path', path: root }] },
      join(tempDir('nnb-proj-'), 'corpus.json'),
    );
    const { snapshots, diagnostics } = await fetchSources(c, quietContext()).finally(() =>
      rmSync(join(root, 'LICENSE')),
    );
    expect(diagnostics).toEqual([]);
    expect(snapshots[0].license).toEqual({ spdx: 'MIT', method: 'LICENSE file (MIT text)', file: 'LICENSE' });
  });
});
