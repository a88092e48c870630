// `nnblocks build`: every stage in order — sources, index, discover, extract (locally), validate, spec — into a
// partial result, then de-duplication across all blocks and the catalog files (merge.ts). A sharded build
// (`--shard K/N`) writes only its partial; `nnblocks merge` finishes the partials into a catalog byte-identical to an
// unsharded one. Stages that can't run here (no sandbox, no torch) leave their fields absent and say why.
// See docs/architecture.md and docs/catalog.md.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { blockSpec, slugsFor, staticLayers } from '../catalog/block-spec.ts';
import { blockFailures } from '../catalog/failure-reason.ts';
import { codePapers } from '../catalog/papers.ts';
import { StructureReader } from '../catalog/structure/reader.ts';
import { usedByOf } from '../catalog/used-by.ts';
import type { BlockSpec } from '../contract/block.ts';
import type { SourceBuildCounts } from '../catalog/figures.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { classAt, type Block } from '../discover/discover.ts';
import type { EnvironmentResult } from '../environment/types.ts';
import type { ExtractedBlock } from '../assemble/extract.ts';
import { sha256 } from '../index/hash.ts';
import type { ClassFact } from '../parse/facts.ts';
import { dedupItemsOf, dedupSubjectOf, type DedupSubject } from './dedup-items.ts';
import type { Device } from './device.ts';
import { runExtraction } from './extract-step.ts';
import { finishCatalog, PARTIAL_FILE, type BuildSummary } from './merge.ts';
import type { PartialBuild } from './partial.ts';
import { prepare, type Prepared, type RunContext } from './prepare.ts';
import { selectBlocks } from './select.ts';
import { siteAddress } from './site-address.ts';
import { runValidation } from './validate-step.ts';
import { startBytecode } from './bytecode-step.ts';
import { dedupStores, kvStore } from './kv-store.ts';
import { OwnCodePrefetch } from '../dedup/prefetch.ts';
import { SpecMemo } from '../catalog/spec-memo.ts';
import { collectGarbage } from '../util/memory.ts';

export interface BuildOptions {
  outDir: string;
  /** Skip validation entirely (fields absent). */
  noValidate?: boolean;
  /** Allow running upstream code without bubblewrap. */
  noSandbox?: boolean;
  /** The device asked for on the command line; absent, the config's (device.ts). */
  device?: Device;
  /** Process only shard K of N (1-based): a deterministic 1/N of the blocks; writes a partial, merged later. */
  shard?: { k: number; n: number };
}

export async function buildPartial(
  ctx: RunContext,
  opts: BuildOptions,
): Promise<{ partial: PartialBuild; diagnostics: Diagnostic[] }> {
  const { partial, subjects, diagnostics } = await specsOf(ctx, opts);
  // The index, the program and the assembled modules are garbage now, but for each block's module text: collected
  // here, at once, rather than when V8 gets to them (a full GC of a 1.7 GB heap, most of it garbage, takes less than
  // the later ones it saves, and the peak is one stage's, not two).
  await collectGarbage();
  const t = performance.now();
  const stores = dedupStores(ctx.store);
  partial.dedupItems = await dedupItemsOf(subjects, { ...stores.caches, params: ctx.config.dedup ?? {} });
  stores.flush();
  // Cut for de-duplication, the own code counts with the specs, where it was always cut.
  partial.timings.spec += performance.now() - t;
  return { partial, diagnostics };
}

/**
 * The blocks extracted (extract-step.ts), while a worker thread cuts each new module's own code and fingerprints it
 * for de-duplication on the core assembly leaves idle (dedup/prefetch.ts): what it has not done by the end, the spec
 * stage does.
 */
async function extractPrefetching(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  env: EnvironmentResult | null,
): Promise<ExtractedBlock[]> {
  const stores = dedupStores(ctx.store);
  const prefetch = new OwnCodePrefetch(stores.caches, ctx.config.dedup ?? {});
  try {
    return runExtraction(ctx, p, blocks, {
      outDir: join(ctx.config.cacheDir, 'extracted'),
      versionsFrom: env?.ok ? env.environment.host : null,
      environmentKey: env?.ok ? env.environment.key : undefined,
      onExtracted: (e) => {
        if (e.hasCode && !e.reused) prefetch.add(e.coreCode ?? e.code);
      },
    });
  } finally {
    await prefetch.settle(); // its worker ended, whatever assembly did: a live thread would keep the process up
    stores.flush();
  }
}

/** The kv namespace of what the spec stage reads from upstream text (catalog/spec-memo.ts). */
const SPEC_MEMO = 'spec-memo';

/** Every stage up to the block specs; the blocks' assembled modules for de-duplication beside them. */
async function specsOf(
  ctx: RunContext,
  opts: BuildOptions,
): Promise<{ partial: PartialBuild; subjects: DedupSubject[]; diagnostics: Diagnostic[] }> {
  const shard = opts.shard ?? { k: 1, n: 1 };
  const p = await prepare(ctx);
  const timings = { ...p.timings };
  const diagnostics = [...p.diagnostics];
  const snapshots = new Map(p.snapshots.map((s) => [s.id, s]));

  let t = performance.now();
  const blocks = selectBlocks(p.discovered.blocks, { shard });
  // The environment only where blocks are validated: a --no-validate build never creates one.
  const env = opts.noValidate ? null : await p.environment();
  // The originals' bytecode compiles in a child process while the blocks are assembled; validation awaits it.
  startBytecode(ctx, p, env);
  const extracted = await extractPrefetching(ctx, p, blocks, env);
  const byId = new Map(extracted.map((e) => [e.entry.id, e]));
  timings.extract = performance.now() - t;

  t = performance.now();
  const v = opts.noValidate
    ? null
    : await runValidation(ctx, p, extracted, { noSandbox: opts.noSandbox, device: opts.device });
  if (v) diagnostics.push(...v.diagnostics);
  timings.validate = performance.now() - t;

  const usage = p.usage();

  t = performance.now();
  // Slugs from every discovered block, not just this shard's, so that shards agree on collisions.
  const slugs = slugsFor(
    p.discovered.blocks.filter((b) => !b.abstract).map((b) => b.id),
    sha256,
  );
  const specs: BlockSpec[] = [];
  const subjects: DedupSubject[] = [];
  // Every discovered block, not just this shard's: a child's class is read the same whichever shard holds it.
  const memoStore = kvStore(ctx.store, SPEC_MEMO);
  const memo = new SpecMemo(memoStore);
  const structures = new StructureReader(p.program, p.discovered.blocks, memo);
  for (const b of blocks) {
    const mod = p.program.moduleAt(b.sourceId, b.path)!;
    const own = classAt(mod, b.stmt, b.name) ?? mod.facts.classes.find((c) => c.qualname === b.qualname)!;
    const classes = [own, ...b.baseChain.map((q) => p.program.classNamed(q)).filter((c): c is ClassFact => Boolean(c))];
    const ex = byId.get(b.id);
    const validation = v?.records.get(b.id);
    const tree = v?.trees.get(b.id);
    const file = moduleBytes(mod.absPath);
    const text = spanText(file, own.span);
    const blockUsage = usage.usageOf(b.id);
    const layers = tree ? layersOf(tree) : staticLayers(text);
    specs.push(
      blockSpec(
        {
          block: b,
          slug: slugs.get(b.id)!,
          mod,
          classes,
          snapshot: snapshots.get(b.sourceId)!,
          sources: snapshots,
          extracted: ex,
          validation,
          usedBy: usedByOf(blockUsage, snapshots),
          ...(tree ? { tree } : {}),
          diagnostics: (ex?.diagnostics ?? []).filter((d) => d.severity !== 'info'),
          // Read from the class text here, like the static layers: ids only cross into the spec, never the text.
          sourcePapers: codePapers(
            b,
            text,
            { file, functions: mod.facts.functions, builders: blockUsage.builders },
            memo,
          ),
          structure: structures.factsOf(b, tree),
        },
        { layers, from: tree ? 'validation' : 'static' },
      ),
    );
    const subject = dedupSubjectOf(b, snapshots.get(b.sourceId)!, ex, {
      passed: validation?.status === 'passed',
      tree: tree ?? null,
    });
    if (subject) subjects.push(subject);
  }
  memoStore.flush();
  p.keep();
  timings.spec = performance.now() - t;
  const tools = [
    { name: 'node', version: process.version },
    ...(env?.ok ? [{ name: 'torch', version: env.environment.report.torch }] : []),
  ];
  // The feed's Atom links point where the site is published: the site's own URL, whoever set it.
  const siteUrl = siteAddress(ctx.config).url;
  const partial: PartialBuild = {
    formatVersion: 1,
    shard,
    snapshots: p.snapshots,
    specs,
    dedupItems: [],
    dedupParams: ctx.config.dedup ?? {},
    ...(siteUrl ? { siteUrl } : {}),
    // Relative to the project root (never a path of this machine): the page's extract command passes it back.
    config: relative(ctx.config.projectRoot, ctx.config.configPath).split(sep).join('/'),
    corpusName: ctx.config.name,
    timings,
    tools,
    sandbox: v?.sandbox ?? null,
    environment: v?.environment ?? null,
    sourceCounts: sourceCounts(
      p.snapshots.map((s) => s.id),
      selectBlocks(p.discovered.blocks, { shard, abstract: true }).filter((b) => b.abstract),
      extracted.filter((e) => e.hasCode).map((e) => e.entry.id),
      blocks,
    ),
  };
  return { partial, subjects, diagnostics };
}

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
      failedSources: partial.snapshots.filter((x) => x.status === 'failed').map((x) => x.id),
      failures: blockFailures(partial.specs.flatMap((x) => (x.validation ? [[x.id, x.validation] as const] : []))),
    };
  }
  const stores = dedupStores(ctx.store);
  const summary = await finishCatalog([partial], opts.outDir, t0, stores.caches);
  stores.flush();
  return { ...summary, diagnostics: [...diagnostics, ...summary.diagnostics] };
}

/** Per source: its abstract blocks (never selected for the catalog) and how many of its blocks were assembled. */
function sourceCounts(
  ids: string[],
  abstract: { sourceId: string }[],
  extractedIds: string[],
  blocks: { id: string; sourceId: string }[],
): SourceBuildCounts[] {
  const done = new Set(extractedIds);
  return ids.map((sourceId) => ({
    sourceId,
    abstract: abstract.filter((b) => b.sourceId === sourceId).length,
    extracted: blocks.filter((b) => b.sourceId === sourceId && done.has(b.id)).length,
  }));
}

function moduleBytes(absPath: string): Buffer | null {
  return existsSync(absPath) ? readFileSync(absPath) : null;
}

function spanText(file: Buffer | null, span: { startByte: number; endByte: number }): string {
  return file ? file.subarray(span.startByte, span.endByte).toString('utf8') : '';
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
