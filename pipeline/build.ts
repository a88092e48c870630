// `nnblocks build`: every stage in order — sources, index, discover, extract (locally), validate, spec — into a
// partial result, then de-duplication across all blocks and the catalog files. A sharded build (`--shard K/N`)
// writes only its partial; `nnblocks merge` finishes the partials into a catalog byte-identical to an unsharded one.
// Stages that can't run here (no sandbox, no torch) leave their fields absent and say why; nothing is faked.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { extractBlocks } from './assemble/extract.ts';
import { attachRequirementVersions } from './assemble/requirements.ts';
import { lookupPython } from './config/python.ts';
import { dedupParallel } from './dedup/parallel.ts';
import type { DedupItem, DedupParams } from './dedup/types.ts';
import type { Diagnostic } from './diagnostics.ts';
import { NnblocksError } from './diagnostics.ts';
import { classAt } from './discover/discover.ts';
import { sha256 } from './index/hash.ts';
import type { ClassFact } from './parse/facts.ts';
import { prepare, sourceLabels, type RunContext } from './pipeline.ts';
import type { SourceSnapshot } from './sources/types.ts';
import type { BlockSpec, BuildInfo } from './spec/catalog-types.ts';
import { blockSpec, dedupRecord, slugsFor, staticLayers } from './spec/block-spec.ts';
import { clustersFile, sourcesFile, statsFile } from './spec/summary.ts';
import { writeCatalog } from './spec/write-catalog.ts';
import { diffCatalogs } from './feed/diff.ts';
import { writeFeedFiles } from './feed/feed.ts';
import { readCurrentCatalog } from './feed/read-snapshot.ts';
import type { CatalogSnapshot } from './feed/types.ts';
import { runValidation } from './validate-step.ts';

export interface BuildOptions {
  outDir: string;
  /** Skip validation entirely (fields absent). */
  noValidate?: boolean;
  /** Allow running upstream code without bubblewrap. */
  noSandbox?: boolean;
  device?: 'auto' | 'cpu' | 'cuda';
  /** Process only shard K of N (1-based): a deterministic 1/N of the blocks; writes a partial, merged later. */
  shard?: { k: number; n: number };
}

/** What one shard hands to the merge: finished specs (no dedup yet) and the inputs de-duplication needs. */
export interface PartialBuild {
  formatVersion: 1;
  shard: { k: number; n: number };
  snapshots: SourceSnapshot[];
  specs: BlockSpec[];
  /** The blocks' own code for de-duplication: a build intermediate on the builder's machine, never published. */
  dedupItems: DedupItem[];
  dedupParams: Partial<DedupParams>;
  /** The published site's URL (config `site.url`), for the change feed's Atom links and ids. */
  siteUrl?: string;
  config: string;
  timings: Record<string, number>;
  tools: { name: string; version: string }[];
}

export interface BuildSummary {
  catalogDir: string;
  blocks: number;
  validated: number;
  passed: number;
  unique: { exact: number; lexical: number; structural: number } | null;
  timings: Record<string, number>;
  errors: string[];
  diagnostics: Diagnostic[];
}

/**
 * Shard of a block: a hash of its id, so a block never moves when others are added or removed (stable as the
 * corpus grows) and shards get equal shares of blocks in expectation (cost per block is roughly even).
 */
export function shardOf(id: string, n: number): number {
  return (parseInt(sha256(id).slice(0, 8), 16) % n) + 1;
}

export function parseShard(text: string): { k: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k < 1 || k > n)
    throw new NnblocksError(
      `--shard ${text} is not K/N with 1 <= K <= N`,
      'build',
      'e.g. --shard 2/3 builds the second of three shards',
    );
  return { k, n };
}

export async function buildPartial(
  ctx: RunContext,
  opts: BuildOptions,
): Promise<{ partial: PartialBuild; diagnostics: Diagnostic[] }> {
  const shard = opts.shard ?? { k: 1, n: 1 };
  const p = await prepare(ctx);
  const timings = { ...p.timings };
  const diagnostics = [...p.diagnostics];
  const snapshots = new Map(p.snapshots.map((s) => [s.id, s]));

  let t = performance.now();
  const blocks = p.discovered.blocks.filter((b) => !b.abstract && shardOf(b.id, shard.n) === shard.k);
  const progress = ctx.progress('extract', blocks.length);
  const extracted = extractBlocks(p.program, blocks, {
    outDir: join(ctx.config.cacheDir, 'extracted'),
    labels: sourceLabels(p.snapshots),
    onDone: () => progress.tick(),
  });
  progress.done(`${extracted.length} blocks`);
  const py = lookupPython(ctx.config);
  attachRequirementVersions(py.ok ? py.python.path : null, extracted);
  const byId = new Map(extracted.map((e) => [e.entry.id, e]));
  timings.extract = performance.now() - t;

  t = performance.now();
  const v = opts.noValidate
    ? null
    : await runValidation(ctx, p, extracted, { noSandbox: opts.noSandbox, device: opts.device });
  if (v) diagnostics.push(...v.diagnostics);
  timings.validate = performance.now() - t;

  t = performance.now();
  // Slugs from every discovered block, not just this shard's, so that shards agree on collisions.
  const slugs = slugsFor(
    p.discovered.blocks.filter((b) => !b.abstract).map((b) => b.id),
    sha256,
  );
  const modules = new Map(p.index.modules.map((m) => [`${m.sourceId}\0${m.path}`, m]));
  const classIndex = new Map<string, ClassFact>();
  for (const m of p.index.modules)
    for (const c of m.facts.classes) if (m.module) classIndex.set(`${m.module}.${c.qualname}`, c);
  const specs: BlockSpec[] = [];
  const dedupItems: DedupItem[] = [];
  for (const b of blocks) {
    const mod = modules.get(`${b.sourceId}\0${b.path}`)!;
    const own = classAt(mod, b.stmt, b.name) ?? mod.facts.classes.find((c) => c.qualname === b.qualname)!;
    const classes = [own, ...b.baseChain.map((q) => classIndex.get(q)).filter((c): c is ClassFact => Boolean(c))];
    const ex = byId.get(b.id);
    const validation = v?.records.get(b.id);
    const tree = v?.trees.get(b.id);
    const layers = tree ? layersOf(tree) : staticLayers(classText(mod.absPath, own));
    specs.push(
      blockSpec(
        {
          block: b,
          slug: slugs.get(b.id)!,
          mod,
          classes,
          snapshot: snapshots.get(b.sourceId)!,
          extracted: ex,
          validation,
          diagnostics: (ex?.diagnostics ?? []).filter((d) => d.severity !== 'info'),
        },
        { layers, from: tree ? 'validation' : 'static' },
      ),
    );
    if (ex?.code) {
      const snap = snapshots.get(b.sourceId)!;
      dedupItems.push({
        id: b.id,
        sourceId: b.sourceId,
        path: b.path,
        priority: snap.priority,
        validated: validation?.status === 'passed',
        code: ownCode(ex.code),
        moduleTree: tree ?? null,
      });
    }
  }
  timings.spec = performance.now() - t;
  const tools = [
    { name: 'node', version: process.version },
    ...(py.ok ? [{ name: 'torch', version: py.python.torchVersion ?? 'unknown' }] : []),
  ];
  const partial: PartialBuild = {
    formatVersion: 1,
    shard,
    snapshots: p.snapshots,
    specs,
    dedupItems,
    dedupParams: ctx.config.dedup ?? {},
    ...(ctx.config.site?.url ? { siteUrl: ctx.config.site.url } : {}),
    config: relative(process.cwd(), ctx.config.configPath) || ctx.config.configPath,
    timings,
    tools,
  };
  return { partial, diagnostics };
}

/**
 * De-duplicates across all partials' blocks and writes the catalog files. Fingerprints are computed in worker
 * threads for large corpora (same result as in-thread: a test checks it); small ones stay in-thread.
 */
export async function finishCatalog(
  partials: PartialBuild[],
  outDir: string,
  startedAt = performance.now(),
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
  const snapshots = partials[0].snapshots;
  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const specs = partials.flatMap((x) => x.specs).sort(byId);
  const items = partials.flatMap((x) => x.dedupItems).sort(byId);
  let t = performance.now();
  const d = await dedupParallel(items, partials[0].dedupParams);
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
  const buildInfo: BuildInfo = {
    formatVersion: 1,
    builtAt: new Date().toISOString(),
    nnblocksVersion: packageVersion(),
    config: partials[0].config,
    durationMs: Math.round(performance.now() - startedAt),
    stages: Object.entries(timings).map(([stage, ms]) => ({ stage, ms: Math.round(ms) })),
    tools: partials[0].tools,
  };
  // The catalog this build replaces, if any: the change feed compares against it.
  let previous: CatalogSnapshot | null = null;
  if (existsSync(join(outDir, 'stats.json'))) {
    try {
      previous = readCurrentCatalog(outDir);
    } catch {
      previous = null; // an unreadable earlier catalog only means the feed starts a new baseline
    }
  }
  const { errors } = writeCatalog(outDir, {
    blocks: specs,
    sources: sourcesFile(specs, snapshots),
    clusters: clustersFile(d),
    stats: statsFile(specs, snapshots),
    buildInfo,
  });
  if (errors.length === 0)
    errors.push(
      ...writeFeedFiles(diffCatalogs(previous, readCurrentCatalog(outDir)), outDir, partials[0].siteUrl).errors,
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
    diagnostics: d.diagnostics,
  };
}

export const PARTIAL_FILE = 'partial.json';

export async function buildCatalog(ctx: RunContext, opts: BuildOptions): Promise<BuildSummary> {
  const t0 = performance.now();
  const { partial, diagnostics } = await buildPartial(ctx, opts);
  if (opts.shard) {
    mkdirSync(opts.outDir, { recursive: true });
    const file = join(opts.outDir, PARTIAL_FILE);
    // Written whole then renamed: a killed shard never leaves a truncated partial behind.
    writeFileSync(`${file}.tmp`, JSON.stringify(partial));
    renameSync(`${file}.tmp`, file);
    return {
      catalogDir: opts.outDir,
      blocks: partial.specs.length,
      validated: partial.specs.filter((s) => s.validation).length,
      passed: partial.specs.filter((s) => s.validation?.status === 'passed').length,
      unique: null,
      timings: partial.timings,
      errors: [],
      diagnostics,
    };
  }
  const summary = await finishCatalog([partial], opts.outDir, t0);
  return { ...summary, diagnostics: [...diagnostics, ...summary.diagnostics] };
}

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

/** The block's own code for de-duplication: the emitted module without header comments and imports. */
export function ownCode(code: string): string {
  return code
    .split('\n')
    .filter((l) => !/^(import |from \S+ import |# )/.test(l))
    .join('\n');
}

function classText(absPath: string, cls: ClassFact): string {
  if (!existsSync(absPath)) return '';
  return readFileSync(absPath).subarray(cls.span.startByte, cls.span.endByte).toString('utf8');
}

/** Layer types with counts from a validated module tree: every node below the root, by type. */
function layersOf(tree: {
  type: string;
  children: { type: string; children: unknown[] }[];
}): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  const walk = (node: { type: string; children: unknown[] }, root: boolean) => {
    if (!root) counts.set(node.type, (counts.get(node.type) ?? 0) + 1);
    for (const c of node.children) walk(c as { type: string; children: unknown[] }, false);
  };
  walk(tree, true);
  return [...counts]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
