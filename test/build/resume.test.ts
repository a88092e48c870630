// Resumability: a build or index killed with SIGKILL at any stage, then run again, loses no finished work and
// corrupts nothing — the final catalog equals an uninterrupted build's, and the SQLite index passes integrity_check.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import { benchConfig } from '../bench/corpora.ts';
import { tempDir } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';
import { fixtureCorpus } from './fixture.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'nnblocks.mjs');
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

/** Runs the CLI in a child and SIGKILLs it `delayMs` after `marker` shows on stderr; resolves with what it printed. */
function killAfter(args: string[], marker: string, delayMs: number): Promise<{ killed: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let armed = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!armed && stderr.includes(marker)) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.on('exit', (_code, signal) => resolve({ killed: signal === 'SIGKILL', stderr }));
  });
}

function integrity(cacheDir: string): string {
  const db = new Database(join(cacheDir, 'index.sqlite'), { readonly: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? '';
  } finally {
    db.close();
  }
}

describe('killing the pipeline and running it again', () => {
  it('index killed mid-parse: the re-run completes and the database is intact', async () => {
    const config = benchConfig(false);
    const cache = join(config, '..', 'cache');
    const r = await killAfter(['index', '--config', config], 'sources:', 400);
    expect(r.killed).toBe(true);
    const out: string[] = [];
    expect(
      await runCli(['index', '--config', config, '--json'], () => ({ ...quiet(), out: (t: string) => out.push(t) })),
    ).toBe(0);
    const summary = JSON.parse(out.join(''));
    expect(summary.files).toBe(summary.parsed + summary.reused);
    expect(summary.blocks).toBeGreaterThan(200);
    expect(integrity(cache)).toBe('ok');
  });

  it('build killed during validation and during the catalog write: the final catalog equals an uninterrupted build', async () => {
    const { config, root } = fixtureCorpus();
    const reference = tempDir('nnb-ref-');
    expect(await runCli(['build', '--config', config, '--out', reference, '--json'], quiet)).toBe(0);

    // The same corpus in a fresh cache: kill while validating, then while finishing, then let it complete.
    const { config: config2 } = fixtureCorpus(root);
    const out = tempDir('nnb-out-');
    const first = await killAfter(['build', '--config', config2, '--out', out], 'extract:', 1500);
    expect(first.killed).toBe(true);
    await killAfter(['build', '--config', config2, '--out', out], 'validate:', 0);
    expect(await runCli(['build', '--config', config2, '--out', out, '--json'], quiet)).toBe(0);
    expect(integrity(join(config2, '..', 'cache'))).toBe('ok');
    // Stage timings are measurements (recorded once, then cached): everything else must match byte for byte.
    const strip = (files: Map<string, string>) => [...files].map(([k, v]) => [k, v.replace(/"ms": \d+/g, '"ms": 0')]);
    expect(strip(catalogFiles(out))).toEqual(strip(catalogFiles(reference)));
  });
});
