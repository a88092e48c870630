// Resumability: a run killed with SIGKILL at a chosen point (NNBLOCKS_FAULT, pipeline/util/fault.ts, docs/testing.md),
// then run again, loses no finished work and corrupts nothing. Each kill is first checked to have landed where it
// was aimed — the fault's marker on stderr, the phases that had finished (their progress lines) and the state on
// disk — and then the re-run: SQLite integrity_check, the same index or catalog as an uninterrupted run, and
// validation records finished before the kill reused from the cache rather than computed again.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { lookupPython } from '../../pipeline/config/python.ts';
import { FAULT_MARKER } from '../../pipeline/util/fault.ts';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { skipBecause } from '../helpers/skip.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';
import { fixtureCorpus } from './fixture.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'nnblocks.mjs');
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

interface Faulted {
  pid: number;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Phases whose end line was printed before the process died, in order (`sources`, `parse`, `extract`, ...). */
  finished: string[];
}

/** Runs the CLI in a child with NNBLOCKS_FAULT=`point` and waits for it to end (killed by the fault, normally). */
function runFaulted(args: string[], point: string): Promise<Faulted> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, CI: '1', NNBLOCKS_FAULT: point },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      // Outside a TTY each phase prints one line when it ends: "parse: 60 files parsed in 0.1s".
      const finished = [...stderr.matchAll(/^(\w+): .* in [\d.]+m?\d*s$/gm)].map((m) => m[1]);
      resolve({ pid: child.pid!, signal, stderr, finished });
    });
  });
}

/** Asserts that the child died from the fault at `point`, after exactly the phases `finished`. */
function expectDiedAt(r: Faulted, point: string, finished: string[]): void {
  expect(r.stderr, 'the fault fired').toContain(`${FAULT_MARKER} ${point} `);
  expect(r.signal).toBe('SIGKILL');
  expect(r.finished).toEqual(finished);
}

/** Row counts and integrity of a cache's index, read without changing it. */
function inspect(cacheDir: string): { integrity: string; blobs: number; files: number; validations: number } {
  const db = new Database(join(cacheDir, 'index.sqlite'), { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      integrity: (db.pragma('integrity_check', { simple: true }) as string) ?? '',
      blobs: count('SELECT count(*) AS n FROM blobs'),
      files: count('SELECT count(*) AS n FROM files'),
      validations: count("SELECT count(*) AS n FROM kv WHERE ns = 'validate'"),
    };
  } finally {
    db.close();
  }
}

/** The validation cache as key → stored record text. */
function validationCache(cacheDir: string): Map<string, string> {
  const db = new Database(join(cacheDir, 'index.sqlite'), { readonly: true });
  try {
    const rows = db.prepare("SELECT key, value FROM kv WHERE ns = 'validate'").all() as {
      key: string;
      value: string;
    }[];
    return new Map(rows.map((r) => [r.key, r.value]));
  } finally {
    db.close();
  }
}

const FILES = 60;

/** A folder source of FILES small, distinct modules (inline parsing: the `parse` count is exact per file). */
function indexCorpus(): { config: string; cache: string } {
  const tree: Record<string, string> = {};
  for (let i = 0; i < FILES; i++)
    tree[`pkg/m${i}.py`] =
      `import torch.nn as nn\n\nclass Block${i}(nn.Module):\n    def forward(self, x):\n        return x * ${i}\n`;
  const root = writeTree(tree);
  const dir = tempDir('nnb-cfg-');
  const config = join(dir, 'corpus.json');
  const cache = join(dir, 'cache');
  writeFileSync(
    config,
    JSON.stringify({ name: 'resume', cacheDir: cache, sources: [{ id: 'pkg', kind: 'path', path: root }] }),
  );
  return { config, cache };
}

async function index(config: string): Promise<{ files: number; parsed: number; reused: number }> {
  const out: string[] = [];
  const code = await runCli(['index', '--config', config, '--json'], () => ({ ...quiet(), out: (t) => out.push(t) }));
  expect(code).toBe(0);
  return JSON.parse(out.join('')) as { files: number; parsed: number; reused: number };
}

describe('an index run killed at a fault point, then run again', () => {
  it('sync:1 — killed holding the source lock: the re-run takes the dead holder`s lock over', async () => {
    const { config, cache } = indexCorpus();
    const r = await runFaulted(['index', '--config', config], 'sync:1');
    expectDiedAt(r, 'sync:1', []);
    // Died inside the source's lock, after recording its state: the lock names the dead process.
    const lock = join(cache, 'sources', 'pkg', '.lock');
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(r.pid);
    expect(existsSync(join(cache, 'sources', 'pkg', 'state.json'))).toBe(true);
    expect(inspect(cache)).toEqual({ integrity: 'ok', blobs: 0, files: 0, validations: 0 });

    expect(await index(config)).toMatchObject({ files: FILES, parsed: FILES, reused: 0 });
    expect(existsSync(lock)).toBe(false);
    expect(inspect(cache)).toMatchObject({ integrity: 'ok', blobs: FILES, files: FILES });
  });

  it('parse:40 — killed mid-parse, before anything is stored: the re-run parses every file', async () => {
    const { config, cache } = indexCorpus();
    const r = await runFaulted(['index', '--config', config], 'parse:40');
    expectDiedAt(r, 'parse:40', ['sources']);
    expect(inspect(cache)).toEqual({ integrity: 'ok', blobs: 0, files: 0, validations: 0 });

    expect(await index(config)).toMatchObject({ files: FILES, parsed: FILES, reused: 0 });
    expect(inspect(cache)).toMatchObject({ integrity: 'ok', blobs: FILES, files: FILES });
  });

  it('commit:40 — killed inside the facts transaction: none of its rows survive, and the re-run stores all', async () => {
    const { config, cache } = indexCorpus();
    const r = await runFaulted(['index', '--config', config], 'commit:40');
    // Parsing finished; 40 rows were inserted but never committed, so SQLite rolls them back on the next open.
    expectDiedAt(r, 'commit:40', ['sources', 'parse']);
    expect(inspect(cache)).toEqual({ integrity: 'ok', blobs: 0, files: 0, validations: 0 });

    expect(await index(config)).toMatchObject({ files: FILES, parsed: FILES, reused: 0 });
    expect(inspect(cache)).toMatchObject({ integrity: 'ok', blobs: FILES, files: FILES });
    // The stored state is complete: a third run parses nothing.
    expect(await index(config)).toMatchObject({ files: FILES, parsed: 0, reused: FILES });
  });
});

// Validation needs torch and a working bubblewrap (npm test's setup installs both on Debian).
const py = lookupPython();
const bwrap = bwrapAvailable();
const noValidation = !py.ok
  ? 'no Python that imports torch'
  : !bwrap.ok
    ? `bubblewrap does not work here (${bwrap.error})`
    : null;

describe('a build killed at fault points, then run again', () => {
  it('validate:2, then write:3: the final catalog equals an uninterrupted build, cached records reused', async (ctx) => {
    if (noValidation) skipBecause(ctx, `validation cannot run: ${noValidation}`);
    const { config, root } = fixtureCorpus();
    const reference = tempDir('nnb-ref-');
    expect(await runCli(['build', '--config', config, '--out', reference, '--json'], quiet)).toBe(0);
    const blocks = readdirSync(join(reference, 'blocks')).length;
    const validated = readdirSync(join(reference, 'blocks')).filter(
      (f) => (JSON.parse(readFileSync(join(reference, 'blocks', f), 'utf8')) as BlockSpec).validation,
    ).length;

    // The same corpus in a fresh cache.
    const { config: config2 } = fixtureCorpus(root);
    const cache = join(config2, '..', 'cache');
    const out = tempDir('nnb-out-');

    // 1. Killed right after the second validation record was cached: extraction done, validation not.
    const v = await runFaulted(['build', '--config', config2, '--out', out], 'validate:2');
    expectDiedAt(v, 'validate:2', ['sources', 'parse', 'extract']);
    expect(inspect(cache)).toMatchObject({ integrity: 'ok', files: 3, validations: 2 });
    const cachedBeforeKill = validationCache(cache);
    expect(readdirSync(out)).toEqual([]);

    // 2. Killed in the catalog write, between the third block file's temporary copy and its rename.
    const w = await runFaulted(['build', '--config', config2, '--out', out], 'write:3');
    expectDiedAt(w, 'write:3', ['sources', 'parse', 'extract', 'validate']);
    expect(readdirSync(join(out, 'blocks')).filter((f) => f.endsWith('.json.tmp'))).toHaveLength(1);
    expect(readdirSync(join(out, 'blocks')).filter((f) => f.endsWith('.json'))).toHaveLength(2);
    expect(existsSync(join(out, 'stats.json'))).toBe(false);
    // Every block that runs is now validated; the two from before the first kill were reused, not run again.
    const cachedAfter = validationCache(cache);
    expect(cachedAfter.size).toBe(validated);
    for (const [key, record] of cachedBeforeKill) expect(cachedAfter.get(key)).toBe(record);

    // 3. Uninterrupted: completes, the index is intact and the catalog is the reference's.
    expect(await runCli(['build', '--config', config2, '--out', out, '--json'], quiet)).toBe(0);
    expect(inspect(cache).integrity).toBe('ok');
    expect(validationCache(cache)).toEqual(cachedAfter);
    expect(readdirSync(join(out, 'blocks'))).toHaveLength(blocks);
    // The records cached before the first kill are the ones published (their stage timings are measurements).
    const published = readdirSync(join(out, 'blocks')).map(
      (f) => JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec,
    );
    for (const record of cachedBeforeKill.values()) {
      const rec = JSON.parse(record) as { id: string; stages: { ms: number }[] };
      const spec = published.find((s) => s.id === rec.id)!;
      expect(spec.validation!.stages.map((s) => s.ms)).toEqual(rec.stages.map((s) => Math.round(s.ms)));
    }
    // Stage timings are measurements (recorded once, then cached): everything else must match byte for byte.
    const strip = (files: Map<string, string>) => [...files].map(([k, t]) => [k, t.replace(/"ms": \d+/g, '"ms": 0')]);
    expect(strip(catalogFiles(out))).toEqual(strip(catalogFiles(reference)));

    // 4. Killed while rewriting a complete catalog: build-info.json, the mark of a whole catalog, is gone first,
    // so the next build does not diff against half a catalog; its change feed starts a new baseline instead.
    const r = await runFaulted(['build', '--config', config2, '--out', out], 'write:2');
    expectDiedAt(r, 'write:2', ['sources', 'parse', 'extract', 'validate']);
    expect(existsSync(join(out, 'build-info.json'))).toBe(false);
    expect(await runCli(['build', '--config', config2, '--out', out, '--json'], quiet)).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'changes.json'), 'utf8')) as { previous: unknown }).previous).toBeNull();
    // Six builds, four of them validating in fresh sandboxes (each worker imports torch 2.x: seconds): 20 s on a quiet
    // machine, minutes on a loaded one.
  }, 600_000);
});
