// The catalog workflow's plan step: fetches the sources once (`nnblocks sources --json`), pins every git source to
// the commit it resolved, and derives the `.nnblocks` cache key from the config and those commits.
// Every shard then builds the *pinned* config, so a branch that moves upstream mid-run cannot split the catalog
// across two commits. Usage: npx tsx .github/scripts/plan.ts --config C --shards N [--out content/corpus.pinned.json]
// Writes `cache-family`, `cache-config`, `cache-pins`, `config`, `shards` to $GITHUB_OUTPUT when set, and a JSON
// summary on stdout.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';

/** Bump to drop every cache (e.g. after an incompatible change to the `.nnblocks` layout). */
export const CACHE_VERSION = 'v1';

/**
 * Cache keys are `<configKey>-shard-K-of-N-<pinsHash>` (composed in the workflow, which knows K and N), so the
 * restore-keys can fall back from "this shard, older commits" to "this config" to "any nnblocks cache".
 */
export interface Plan {
  /** `nnblocks-v1-`: every cache of this layout version. */
  family: string;
  /** `nnblocks-v1-<config hash>`. */
  configKey: string;
  /** Hash of every source's pin (commit, or distribution version for installed packages). */
  pinsHash: string;
  /** The config with git refs replaced by commits (JSON text, as written to `--out`). */
  pinnedConfig: string;
  /** `[1, ..., N]` for the job matrix. */
  shards: number[];
  /** What each source was pinned to, sorted by id. */
  pins: { id: string; kind: string; pin: string }[];
  warnings: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface ConfigSource {
  id: string;
  kind: string;
  ref?: string;
}

export function planFromSources(configText: string, snapshots: SourceSnapshot[], shardCount: number): Plan {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 64)
    throw new Error(`plan: --shards must be an integer from 1 to 64, got ${shardCount}`);
  const config = JSON.parse(configText) as { sources: ConfigSource[] };
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  const pins: Plan['pins'] = [];
  const warnings: string[] = [];
  for (const src of config.sources) {
    const snap = byId.get(src.id);
    if (!snap || snap.status === 'failed') {
      warnings.push(`source ${src.id} could not be fetched; it stays unpinned (${src.ref ?? src.kind})`);
      pins.push({ id: src.id, kind: src.kind, pin: 'unavailable' });
      continue;
    }
    if (src.kind === 'git' && snap.commit) {
      src.ref = snap.commit;
      pins.push({ id: src.id, kind: src.kind, pin: snap.commit });
    } else if (src.kind === 'python') {
      // An installed distribution cannot be pinned in the config; its version goes into the key instead.
      pins.push({ id: src.id, kind: src.kind, pin: `${snap.distribution ?? src.id} ${snap.version ?? '?'}` });
    } else {
      pins.push({ id: src.id, kind: src.kind, pin: `${snap.commit ?? 'no-commit'}${snap.dirty ? '+dirty' : ''}` });
    }
  }
  pins.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const configHash = sha256(configText).slice(0, 16);
  const pinsHash = sha256(pins.map((p) => `${p.id}\t${p.kind}\t${p.pin}\n`).join('')).slice(0, 16);
  return {
    family: `nnblocks-${CACHE_VERSION}-`,
    configKey: `nnblocks-${CACHE_VERSION}-${configHash}`,
    pinsHash,
    pinnedConfig: JSON.stringify(config, null, 2) + '\n',
    shards: Array.from({ length: shardCount }, (_, i) => i + 1),
    pins,
    warnings,
  };
}

function arg(argv: string[], name: string, fallback?: string): string {
  const i = argv.indexOf(name);
  const v = i >= 0 ? argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`plan: missing ${name}`);
  return v;
}

function main(argv: string[]): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const configPath = arg(argv, '--config', 'content/corpus.json');
  const shards = Number(arg(argv, '--shards', '2'));
  // Beside the original: relative paths in a config resolve against the project root found from its folder.
  const out = arg(argv, '--out', join(dirname(configPath), 'corpus.pinned.json'));
  let stdout: string;
  try {
    stdout = execFileSync(
      process.execPath,
      [join(root, 'bin', 'nnblocks.mjs'), 'sources', '--config', configPath, '--json'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 1024 * 1024 },
    );
  } catch (err) {
    // `nnblocks sources` exits 1 when a source failed but still prints its JSON: plan with what it has.
    stdout = String((err as { stdout?: string }).stdout ?? '');
    if (!stdout.trim()) throw err;
  }
  const { snapshots } = JSON.parse(stdout) as { snapshots: SourceSnapshot[] };
  const plan = planFromSources(readFileSync(configPath, 'utf8'), snapshots, shards);
  writeFileSync(out, plan.pinnedConfig);
  for (const w of plan.warnings)
    process.stderr.write(`${process.env.GITHUB_ACTIONS ? '::warning::' : 'warning: '}${w}\n`);
  if (process.env.GITHUB_OUTPUT) {
    const lines = [
      `cache-family=${plan.family}`,
      `cache-config=${plan.configKey}`,
      `cache-pins=${plan.pinsHash}`,
      `config=${out}`,
      `shards=${JSON.stringify(plan.shards)}`,
    ];
    appendFileSync(process.env.GITHUB_OUTPUT, lines.join('\n') + '\n');
  }
  process.stdout.write(
    JSON.stringify(
      {
        family: plan.family,
        configKey: plan.configKey,
        pinsHash: plan.pinsHash,
        config: out,
        shards: plan.shards,
        pins: plan.pins,
      },
      null,
      2,
    ) + '\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
