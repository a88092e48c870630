// `nnblocks merge` and the end of every build: de-duplication across all blocks of all partials, the summaries,
// the catalog files (schema-checked) and the change feed against the catalog they replace. Merging the N partials
// of a sharded build gives a catalog byte-identical to an unsharded build (test/build/build.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dedupRecord } from '../catalog/block-spec.ts';
import type { BuildInfo, EnvironmentReport, SandboxReport } from '../contract/build-info.ts';
import { CATALOG_FORMAT_VERSION } from '../contract/vocabulary.ts';
import { blockFailures, neutralText, type BlockFailure } from '../catalog/failure-reason.ts';
import { methodsFile, propagateMethods } from '../catalog/methods.ts';
import type { SourceBuildCounts } from '../catalog/figures.ts';
import { localSourceDiagnostics } from '../catalog/provenance.ts';
import { stableStringify } from '../catalog/stable-json.ts';
import { clustersFile, sourcesFile, statsFile } from '../catalog/summary.ts';
import { BUILD_INFO, writeCatalog } from '../catalog/write-catalog.ts';
import type { DedupCaches } from '../dedup/cache.ts';
import { dedupParallel } from '../dedup/parallel.ts';
import { loadConfig } from '../config/load.ts';
import { defaultCatalogDir } from '../config/outputs.ts';
import { NnblocksError, type Diagnostic } from '../contract/diagnostics.ts';
import { diffCatalogs } from '../feed/diff.ts';
import { PREVIOUS_BUILD, writeFeedFiles } from '../feed/feed.ts';
import { readCurrentCatalog } from '../feed/read-snapshot.ts';
import type { CatalogSnapshot } from '../feed/types.ts';
import { writableDir } from '../util/output-dir.ts';
import { packageVersion } from '../util/package-version.ts';
import type { PartialBuild } from './partial.ts';

export type { BlockFailure } from '../catalog/failure-reason.ts';

export interface BuildSummary {
  catalogDir: string;
  blocks: number;
  validated: number;
  passed: number;
  unique: { exact: number; lexical: number; structural: number } | null;
  timings: Record<string, number>;
  errors: string[];
  diagnostics: Diagnostic[];
  /** Sources that failed (no copy, a ref missing upstream): their blocks are not in the catalog. */
  failedSources: string[];
  /** Blocks that failed or are blocked, each with its one-line reason (failed first, by class, then id). */
  failures: BlockFailure[];
}

/**
 * `nnblocks merge`: the partials of a sharded build (folders `build --shard K/N --out` wrote, or their partial.json
 * files) finished into one catalog in `out`, checked writable before anything is read.
 */
/** `out` absent: the catalog folder `nnblocks build` writes for the config at `configPath`. */
export async function mergePartials(
  parts: string[],
  out: string | undefined,
  configPath: string,
): Promise<BuildSummary> {
  const outDir = writableDir(out ?? defaultCatalogDir(loadConfig(configPath)), '--out', 'merge');
  return finishCatalog(readPartials(parts.map((p) => resolve(p))), outDir);
}

/**
 * De-duplicates across all partials' blocks and writes the catalog files. Fingerprints are computed in worker
 * threads for large corpora (same result as in-thread: a test checks it); small ones stay in-thread. With `caches`
 * (a build's, in its index), fingerprints and the last result are kept between runs (pipeline/dedup/cache.ts).
 */
export async function finishCatalog(
  partials: PartialBuild[],
  outDir: string,
  startedAt = performance.now(),
  caches?: DedupCaches,
): Promise<BuildSummary> {
  if (partials.length === 0)
    throw new NnblocksError(
      'no partial builds to merge',
      'merge',
      'pass the folders written by `nnblocks build --shard K/N`',
    );
  const n = partials[0].shard.n;
  const seen = new Set(partials.map((x) => x.shard.k));
  if (partials.some((x) => x.shard.n !== n) || seen.size !== n || partials.length !== n) {
    throw new NnblocksError(
      `the partials do not make up one complete sharded build (have ${[...seen].sort().join(', ')} of ${n})`,
      'merge',
      'merge exactly one partial per shard 1..N of the same N',
    );
  }
  const sandbox = mergedSandbox(partials);
  const environment = publishedEnvironment(partials.find((x) => x.environment)?.environment ?? null);
  const snapshots = partials[0].snapshots;
  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const specs = partials.flatMap((x) => x.specs).sort(byId);
  const items = partials.flatMap((x) => x.dedupItems).sort(byId);
  let t = performance.now();
  const d = await dedupParallel(items, partials[0].dedupParams, { caches });
  const dedupMs = performance.now() - t;
  const perBlock = new Map(d.blocks.map((b) => [b.id, b]));
  for (const s of specs) {
    const r = perBlock.get(s.id);
    if (r) s.dedup = dedupRecord(r);
  }
  const timings: Record<string, number> = {};
  for (const x of partials) for (const [k, v] of Object.entries(x.timings)) timings[k] = Math.max(timings[k] ?? 0, v);
  timings.dedup = dedupMs;
  t = performance.now();
  // Duplicates of a method's implementation are implementations too (docs/taxonomy.md, "Dedup clusters").
  propagateMethods(specs);
  const buildInfo: BuildInfo = {
    formatVersion: CATALOG_FORMAT_VERSION,
    builtAt: new Date().toISOString(),
    nnblocksVersion: packageVersion(),
    config: partials[0].config,
    ...(partials[0].corpusName ? { corpusName: partials[0].corpusName } : {}),
    durationMs: Math.round(performance.now() - startedAt),
    stages: Object.entries(timings).map(([stage, ms]) => ({ stage, ms: Math.round(ms) })),
    tools: partials[0].tools,
    ...(sandbox ? { sandbox } : {}),
    ...(environment ? { environment } : {}),
  };
  const { previous, notes } = replacedCatalog(
    outDir,
    buildInfo.config,
    snapshots.map((x) => x.id),
  );
  const { errors } = writeCatalog(outDir, {
    blocks: specs,
    sources: sourcesFile(specs, snapshots),
    clusters: clustersFile(d),
    stats: statsFile(specs, snapshots, sourceCounts(partials)),
    methods: methodsFile(specs),
    buildInfo,
  });
  if (errors.length === 0)
    errors.push(
      ...writeFeedFiles(diffCatalogs(previous, readCurrentCatalog(outDir), notes), outDir, partials[0].siteUrl).errors,
    );
  timings.write = performance.now() - t;
  const report = d.report[0];
  return {
    catalogDir: outDir,
    blocks: specs.length,
    validated: specs.filter((s) => s.validation).length,
    passed: specs.filter((s) => s.validation?.status === 'passed').length,
    unique: report
      ? {
          exact: report.recordsIn - report.removedExact,
          lexical: report.recordsIn - report.removedExact - report.removedLexical,
          structural: report.uniqueOut,
        }
      : null,
    timings,
    errors,
    // Said once per catalog (a sharded build's partials all know the same sources).
    diagnostics: [...localSourceDiagnostics(snapshots), ...d.diagnostics],
    failedSources: snapshots.filter((x) => x.status === 'failed').map((x) => x.id),
    failures: blockFailures(specs.flatMap((x) => (x.validation ? [[x.id, x.validation] as const] : []))),
  };
}

/**
 * The catalog this build replaces, which the change feed compares against: only the same corpus's. Another
 * corpus's catalog in the folder (built from another config: build-info.json `config`, relative to the project root;
 * or sharing no source with this build) is not this one's past: the feed starts a new baseline and says why, rather
 * than announce every block removed.
 */
function replacedCatalog(
  outDir: string,
  config: string | undefined,
  sourceIds: string[],
): { previous: CatalogSnapshot | null; notes: Diagnostic[] } {
  if (!existsSync(join(outDir, BUILD_INFO))) return { previous: null, notes: [] };
  let previous: CatalogSnapshot;
  let before: unknown;
  try {
    before = (JSON.parse(readFileSync(join(outDir, BUILD_INFO), 'utf8')) as Partial<BuildInfo>).config;
    previous = { ...readCurrentCatalog(outDir), origin: PREVIOUS_BUILD };
  } catch {
    return { previous: null, notes: [] }; // an unreadable earlier catalog only means the feed starts a new baseline
  }
  const ours = new Set(sourceIds);
  const why =
    typeof before === 'string' && config !== undefined && before !== config
      ? `was built from ${before}, this one from ${config}`
      : previous.sources.length > 0 && !previous.sources.some((s) => ours.has(s.id))
        ? `shares no source with this one (it has ${previous.sources.map((s) => s.id).join(', ')})`
        : null;
  if (!why) return { previous, notes: [] };
  const note: Diagnostic = {
    code: 'previous-other-corpus',
    severity: 'warning',
    stage: 'feed',
    message: `the catalog this build replaced ${why}: another corpus, so the feed starts a new baseline`,
    hint: 'give each config its own catalog folder (--out), or compare with `nnblocks changes --previous`',
  };
  return { previous: null, notes: [note] };
}

/**
 * The build's sandbox record: the one every shard that ran a block reported. Shards that ran under different
 * sandboxes (one with --no-sandbox, another as another user) make no single honest record, so the merge refuses them
 * rather than publish whichever came first. Partials written before the record existed count as having none.
 */
function mergedSandbox(partials: PartialBuild[]): SandboxReport | undefined {
  const reports = [...partials]
    .sort((a, b) => a.shard.k - b.shard.k)
    .flatMap((x) => (x.sandbox ? [{ k: x.shard.k, report: x.sandbox }] : []));
  if (reports.length === 0) return undefined;
  const first = reports[0];
  for (const other of reports.slice(1)) {
    if (stableStringify(other.report) === stableStringify(first.report)) continue;
    const keys = (Object.keys(first.report) as (keyof SandboxReport)[]).filter(
      (key) => other.report[key] !== first.report[key],
    );
    throw new NnblocksError(
      `shards ${first.k} and ${other.k} ran upstream code under different sandboxes (${keys.join(', ') || 'fields'} differ)`,
      'merge',
      'build every shard with the same --no-sandbox and --device settings, as the same kind of user',
    );
  }
  return first.report;
}

/** The shards' per-source counts added up; undefined when a partial predates them (the figures leave them out). */
function sourceCounts(partials: PartialBuild[]): SourceBuildCounts[] | undefined {
  if (partials.some((x) => !x.sourceCounts)) return undefined;
  const sum = new Map<string, SourceBuildCounts>();
  for (const c of partials.flatMap((x) => x.sourceCounts!)) {
    const s = sum.get(c.sourceId) ?? { sourceId: c.sourceId, abstract: 0, extracted: 0 };
    sum.set(c.sourceId, {
      sourceId: c.sourceId,
      abstract: s.abstract + c.abstract,
      extracted: s.extracted + c.extracted,
    });
  }
  return [...sum.values()];
}

export const PARTIAL_FILE = 'partial.json';

export function readPartials(dirs: string[]): PartialBuild[] {
  return dirs.map((d) => {
    const file = existsSync(join(d, PARTIAL_FILE)) ? join(d, PARTIAL_FILE) : d;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as PartialBuild;
    } catch (err) {
      throw new NnblocksError(
        `cannot read partial build ${file}: ${(err as Error).message}`,
        'merge',
        'pass folders written by `nnblocks build --shard K/N --out DIR`',
      );
    }
  });
}

/** The environment as published: pip's reasons in neutral form (no path of this machine), capped. */
function publishedEnvironment(env: EnvironmentReport | null): EnvironmentReport | null {
  if (!env) return null;
  return { ...env, missing: env.missing.map((m) => ({ ...m, reason: neutralText(m.reason).slice(0, 500) })) };
}
