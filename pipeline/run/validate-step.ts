// The build's validation step: turns extracted blocks into validate items (every corpus package blocked, recipe
// candidates, originals for fidelity), runs the validate stage with the SQLite-backed cache, and hands its records to
// the catalog's form (catalog/validation-record.ts). In phases: can anything run, the items, the run, the records.
import type { ExtractedBlock } from '../assemble/extract.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { Block } from '../discover/discover.ts';
import { classAt } from '../discover/discover.ts';
import type { Environment, EnvironmentResult } from '../environment/types.ts';
import { fault } from '../util/fault.ts';
import type { ModuleTreeNode } from '../dedup/types.ts';
import type { EnvironmentReport, SandboxReport } from '../contract/build-info.ts';
import type { ValidationRecord as CatalogValidation } from '../contract/validation.ts';
import { blockFailures, type BlockFailure } from '../catalog/failure-reason.ts';
import { originalTypes, toCatalog, toTreeNode } from '../catalog/validation-record.ts';
import { blockedPackagesOf, packagesBySource } from '../validate/blocked-packages.ts';
import { knownDistributions } from '../validate/distributions.ts';
import { corpusExtensions } from '../validate/extensions.ts';
import { nativeLibraries } from '../validate/native-libraries.ts';
import { checkOverrideRefs, overrideOf } from '../validate/override-refs.ts';
import { initParams, usageRecipes, type PartRecipeSource, type UsageRecipes } from '../validate/recipe-candidates.ts';
import {
  bwrapAvailable,
  summarize,
  validateRun,
  type ValidateItem,
  type ValidateOptions,
  type ValidationRecord,
  type ValidationSummary,
} from '../validate/index.ts';
import { originalsBytecode } from './bytecode-step.ts';
import { libraryImports } from './library-imports.ts';
import { blockInstances, overrideFor, partBuilders, siblingBuilders } from './extract-step.ts';
import { instanceCombinations } from './instance-choices.ts';
import { requestedDevice, type Device } from './device.ts';
import type { Prepared, RunContext } from './prepare.ts';

export interface ValidationStepResult {
  /** Catalog records of blocks that ran (passed or failed); skipped blocks have none. */
  records: Map<string, CatalogValidation>;
  /** Module trees of blocks that built, in the de-duplication stage's shape. */
  trees: Map<string, ModuleTreeNode>;
  raw: ValidationRecord[];
  /** Counts by status and failure class, pass rate with its interval (all zero when nothing ran). */
  summary: ValidationSummary;
  /** The blocks that did not pass, each with its one-line reason (failed first, by class, then id). */
  failures: BlockFailure[];
  diagnostics: Diagnostic[];
  /** How upstream code ran (build-info.json `sandbox`); null when no block ran. */
  sandbox: SandboxReport | null;
  /** What it ran with (build-info.json `environment`); null when there was no environment. */
  environment: EnvironmentReport | null;
}

export interface ValidationStepOptions {
  noSandbox?: boolean;
  /** The device asked for on the command line; absent, the config's (`requestedDevice`). */
  device?: Device;
  only?: (id: string) => boolean;
}

export async function runValidation(
  ctx: RunContext,
  p: Prepared,
  extracted: ExtractedBlock[],
  opts: ValidationStepOptions = {},
): Promise<ValidationStepResult> {
  const out: ValidationStepResult = {
    records: new Map(),
    trees: new Map(),
    raw: [],
    summary: summarize([]),
    failures: [],
    diagnostics: [],
    sandbox: null,
    environment: null,
  };
  const env = await p.environment();
  out.diagnostics.push(...env.diagnostics);
  if (env.ok) out.environment = env.environment.report;
  const refused = cannotRun(env, !opts.noSandbox);
  if (refused || !env.ok) {
    if (refused) out.diagnostics.push(refused);
    return out;
  }
  const items = validateItems(ctx, p, extracted, opts.only);
  if (items.length) await originalsBytecode(ctx, p, env.environment);
  const progress = ctx.progress('validate', items.length);
  const options = { ...runOptions(ctx, p, env.environment, opts), libraryImports: lanesLibraries(p, items, extracted) };
  // Everything the items need is in them: what the corpus's analysis holds besides goes while the blocks run.
  p.settle();
  const ran = await validateRun(items, { ...options, onProgress: (done) => progress.set(done) });
  // A ref of a config override that names no importable module is the config's mistake, not a missing distribution.
  const checked = checkOverrideRefs(ran.records, overrideOf(items, ctx.config.validate?.overrides ?? {}));
  const raw = checked.records;
  out.diagnostics.push(...checked.diagnostics);
  out.raw = raw;
  out.sandbox = ran.sandbox;
  // Blocks to run and none ran (the sandbox refused to drop privileges, the worker could not start torch...).
  if (raw.length > 0 && raw.every((r) => r.status === 'skipped'))
    out.diagnostics.push(
      unavailable(`every block was skipped: ${raw[0].failureDetail ?? 'skipped'}`, 'run `nnblocks doctor`'),
    );
  publish(out, raw, { p, items, extracted, report: env.environment.report });
  // Counted as the catalog publishes them: what the harness could not run is apart from the code's failures.
  const s = summarize(raw, (r) => out.records.get(r.id)?.status === 'not-run');
  progress.done(
    `${s.byStatus.passed} passed, ${s.byStatus.failed} failed, ${s.byStatus['not-run']} not run, ${s.byStatus.skipped} skipped`,
  );
  out.summary = s;
  out.failures = blockFailures(out.records);
  return out;
}

/** Why nothing can be validated here (no environment, no sandbox where one is asked for), or null. */
function cannotRun(env: EnvironmentResult, sandbox: boolean): Diagnostic | null {
  if (!env.ok) {
    const why = env.diagnostics.find((d) => d.severity === 'error') ?? env.diagnostics[0];
    return unavailable(why?.message ?? 'no validation environment', why?.hint);
  }
  const bwrap = sandbox ? bwrapAvailable() : { ok: true };
  if (bwrap.ok) return null;
  const missing = bwrap.error === 'bwrap not found';
  return unavailable(
    `no sandbox: bubblewrap ${missing ? 'is not installed' : `cannot create a sandbox here (${bwrap.error})`}, and upstream code runs only inside one`,
    missing
      ? 'apt-get install bubblewrap (`nnblocks doctor` checks it), or pass --no-sandbox to run upstream code unconfined (not recommended)'
      : 'run `nnblocks doctor`; or pass --no-sandbox to run upstream code unconfined (not recommended)',
  );
}

/** The heavy libraries each import root's blocks import (library-imports.ts), for its workers to preload. */
function lanesLibraries(p: Prepared, items: ValidateItem[], extracted: ExtractedBlock[]): Map<string, string[]> {
  const imports = new Map(extracted.map((e) => [e.entry.id, e.imports]));
  const sources = new Map(p.discovered.blocks.map((b) => [b.id, b.sourceId]));
  const starts = items.flatMap((it) =>
    it.original ? [{ sourceId: sources.get(it.id)!, ...it.original, imports: imports.get(it.id) ?? [] }] : [],
  );
  return libraryImports(p.program, starts);
}

/** The validate stage's options for this run: the environment, the config's limits, the corpus, the kv cache. */
function runOptions(
  ctx: RunContext,
  p: Prepared,
  environment: Environment,
  opts: ValidationStepOptions,
): Omit<ValidateOptions, 'onProgress'> {
  const v = ctx.config.validate ?? {};
  return {
    python: environment.python,
    pythonRoots: environment.roots,
    runtimeRoots: environment.runtime,
    sites: environment.sites,
    environmentKey: environment.key,
    device: requestedDevice(ctx.config, opts.device),
    sandbox: !opts.noSandbox,
    timeoutMs: v.blockBudgetMs ?? v.timeoutMs,
    runBudgetMs: v.runBudgetMs,
    memoryBytes: v.memoryBytes,
    tmpBytes: v.tmpBytes,
    workers: v.workers,
    // No corpus-wide list: each block's refused packages (validateItems) are the corpus packages classification
    // knows for it, so a library's import of an unrelated source's package name is not blamed on our resolver.
    nativeModules: corpusExtensions(p.snapshots),
    nativeLibraries: nativeLibraries(p.snapshots, p.index.modules),
    cache: {
      get: (k) => ctx.store.kvGet('validate', k),
      put: (k, val) => {
        ctx.store.kvPut('validate', k, val);
        fault('validate');
      },
    },
    workerFacts: {
      get: (k) => ctx.store.kvGet('validate-worker', k),
      put: (k, val) => ctx.store.kvPut('validate-worker', k, val),
    },
  };
}

/**
 * The records in the catalog's form (`records`, `trees`), and a diagnostic for each skipped block, which has none.
 * Paths under this build's import roots are published relative to them (`m.py`, not
 * `<cache>/extracted/blocks/m.py`); a blocked block's distribution is suggested only when known: the table's, or
 * one the corpus declares or the environment installed or tried to (never a module's name taken for a
 * distribution's).
 */
function publish(
  out: ValidationStepResult,
  raw: ValidationRecord[],
  run: { p: Prepared; items: ValidateItem[]; extracted: ExtractedBlock[]; report: EnvironmentReport },
): void {
  const { p, items, report } = run;
  const moduleRoots = [...new Set([...items.map((i) => i.importRoot), ...p.snapshots.map((sn) => sn.importRoot)])];
  const known = knownDistributions([
    ...p.snapshots.flatMap((sn) => (sn.requirements ?? []).map((q) => q.name)),
    ...report.requirements.map((q) => q.name),
    ...report.missing.map((q) => q.name),
  ]);
  const emitted = new Map(run.extracted.map((e) => [e.entry.id, e]));
  for (const r of raw) {
    if (r.status === 'skipped') {
      out.diagnostics.push({
        code: 'validation-skipped',
        severity: 'info',
        stage: 'validate',
        source: r.id.split(':')[0],
        message: `${r.id}: ${r.failureDetail ?? 'skipped'}`,
      });
      continue;
    }
    out.records.set(r.id, toCatalog(r, moduleRoots, known));
    if (r.moduleTree) out.trees.set(r.id, toTreeNode(r.moduleTree, originalTypes(emitted.get(r.id))));
  }
}

/**
 * Nothing could be validated: an error, so that `build` and `validate` fail (exit 1) instead of publishing a catalog
 * with no block validated. `--no-validate` asks for that catalog; the hint says so.
 */
function unavailable(why: string, fix = 'run `nnblocks doctor`'): Diagnostic {
  return {
    code: 'validation-unavailable',
    severity: 'error',
    stage: 'validate',
    message: `nothing could be validated: ${why}`,
    hint: `${fix}; or pass --no-validate to build the catalog without validation`,
  };
}

/**
 * The validate items of the extracted blocks (those `only` keeps): the corpus packages each may not import, the recipe
 * candidates usage mining found, config overrides, and the original for fidelity. Also what the hardening bench
 * (test/bench/hardening.bench.ts) hands two versions of the validate stage.
 */
export function validateItems(
  ctx: RunContext,
  p: Prepared,
  extracted: ExtractedBlock[],
  only?: (id: string) => boolean,
): ValidateItem[] {
  const blocks = new Map(p.discovered.blocks.map((b) => [b.id, b]));
  const snapshots = new Map(p.snapshots.map((s) => [s.id, s]));
  const bySource = packagesBySource(p.index.modules);
  const corpus = new Set([...bySource.values()].flat());
  const overrides = ctx.config.validate?.overrides;
  return extracted
    .filter((e) => e.hasCode && (!only || only(e.entry.id)))
    .map((e) => {
      const b = blocks.get(e.entry.id)!;
      const snap = snapshots.get(b.sourceId)!;
      const o = overrideFor(overrides, b);
      const recipes = recipesOf(p, blocks, b, e);
      // Parameters that take a module: no override there (the override is all that is tried).
      const slots = o ? [] : blockInstances(p, b).map((s) => s.param);
      return {
        id: b.id,
        importRoot: e.entry.importRoot,
        module: e.entry.module,
        className: e.entry.className,
        blockedPackages: blockedPackagesOf(
          {
            sourceId: b.sourceId,
            drawnFrom: [...e.definitions, ...(e.writtenDefinitions ?? [])].map((d) => d.sourceId),
            imports: e.imports,
          },
          bySource,
          corpus,
        ),
        moduleHash: e.entry.sha256,
        ...(o ? { overrides: o } : {}),
        ...(recipes.candidates.length ? { usage: recipes.candidates } : {}),
        ...(recipes.inputs.length ? { usageInputs: recipes.inputs } : {}),
        ...(slots.length ? { moduleSlots: slots } : {}),
        // The original is importable from its source's import root (installed distribution or checkout).
        ...(b.qualname.includes('.')
          ? {}
          : { original: { importRoot: snap.importRoot, module: b.module, className: b.name } }),
      };
    });
}

/**
 * A block's recipe candidates (validate/recipe-candidates.ts) from what this run knows of it: the constructor it
 * runs (its own class, then its bases), the builders its emitted module holds — its own, those of sibling modules,
 * and the part builders of models that hold it, each with its model's constructor.
 */
function recipesOf(p: Prepared, blocks: Map<string, Block>, b: Block, e: ExtractedBlock): UsageRecipes {
  const mod = p.program.moduleAt(b.sourceId, b.path);
  const own = mod ? classAt(mod, b.stmt, b.name) : undefined;
  const positional = initParams([own, ...b.baseChain.map((q) => p.program.classNamed(q))]);
  const held = (f: { name: string; module: string }) => e.parts.some((x) => x.name === f.name && x.module === f.module);
  // Builders of the block in sibling modules the module holds (e.parts, as part builders are): its builders.
  const siblings = siblingBuilders(p, b).filter(held);
  const found = partBuilders(p, b);
  const parts: PartRecipeSource[] = e.parts.flatMap((part) => {
    const f = found.find((x) => x.name === part.name && x.module === part.module);
    if (!f) return [];
    // The model's class (`<source>:<module>.<qualname>`), with its bases when it is a discovered block.
    const chain = [f.blockId.slice(f.blockId.indexOf(':') + 1), ...(blocks.get(f.blockId)?.baseChain ?? [])];
    const positional = initParams(chain.map((q) => p.program.classNamed(q)));
    return [{ builder: part.name, module: part.module, params: f.params, positional }];
  });
  return usageRecipes(
    p.usage().usageOf(b.id),
    [...e.builders, ...siblings.map((f) => ({ name: f.name, module: f.module }))],
    positional,
    parts,
    // Held by the module as the extract step assembled it (the same choices: no override there either).
    instanceCombinations(blockInstances(p, b)),
  );
}
