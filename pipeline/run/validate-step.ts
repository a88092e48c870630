// The build's validation step: turns extracted blocks into validate items (every corpus package blocked, originals
// for fidelity), runs the sandboxed runner with the SQLite-backed cache, and maps records to the catalog's form.
import { isRuntimePackage, type ExtractedBlock } from '../assemble/extract.ts';
import type { IndexedModule } from '../index/types.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { fault } from '../util/fault.ts';
import { classAt } from '../discover/discover.ts';
import type { ClassFact } from '../parse/facts.ts';
import { nativeLibraries } from './native-libraries.ts';
import { overrideFor, partBuilders, siblingBuilders } from './extract-step.ts';
import { initParams, usageRecipes, type PartRecipeSource } from './recipe-candidates.ts';
import type { Prepared, RunContext } from './prepare.ts';
import type { ModuleTreeNode } from '../dedup/types.ts';
import type { EnvironmentReport, SandboxReport } from '../contract/build-info.ts';
import type { LiteralValue, RecipeValue } from '../contract/common.ts';
import type { ValidationRecipe } from '../contract/recipe.ts';
import { capText } from '../contract/rules.ts';
import type { ValidationRecord as CatalogValidation } from '../contract/validation.ts';
import { RUN_LIMITS } from '../contract/vocabulary.ts';
import { failureReason, neutralText } from '../catalog/failure-reason.ts';
import type { ModuleTree, Recipe } from '../contract/runner-record.ts';
import { knownDistributions, requirementsOf } from '../validate/distributions.ts';
import { checkOverrideRefs } from './override-refs.ts';
import { corpusExtensions } from '../validate/extensions.ts';
import {
  bwrapAvailable,
  summarize,
  validateRun,
  type ValidateItem,
  type ValidationRecord,
  type ValidationSummary,
} from '../validate/index.ts';

export interface ValidationStepResult {
  /** Catalog records of blocks that ran (passed or failed); skipped blocks have none. */
  records: Map<string, CatalogValidation>;
  /** Module trees of blocks that built, in the de-duplication stage's shape. */
  trees: Map<string, ModuleTreeNode>;
  raw: ValidationRecord[];
  /** Counts by status and failure class, pass rate with its interval (all zero when nothing ran). */
  summary: ValidationSummary;
  diagnostics: Diagnostic[];
  /** How upstream code ran (build-info.json `sandbox`); null when no block ran. */
  sandbox: SandboxReport | null;
  /** What it ran with (build-info.json `environment`); null when there was no environment. */
  environment: EnvironmentReport | null;
}

export interface ValidationStepOptions {
  noSandbox?: boolean;
  device?: 'auto' | 'cpu' | 'cuda';
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
    diagnostics: [],
    sandbox: null,
    environment: null,
  };
  const env = await p.environment();
  out.diagnostics.push(...env.diagnostics);
  if (!env.ok) {
    const why = env.diagnostics.find((d) => d.severity === 'error') ?? env.diagnostics[0];
    out.diagnostics.push(unavailable(why?.message ?? 'no validation environment', why?.hint));
    return out;
  }
  out.environment = env.environment.report;
  const sandbox = !opts.noSandbox;
  const bwrap = sandbox ? bwrapAvailable() : { ok: true };
  if (!bwrap.ok) {
    out.diagnostics.push(
      unavailable(
        `no sandbox: bubblewrap ${bwrap.error === 'bwrap not found' ? 'is not installed' : `cannot create a sandbox here (${bwrap.error})`}, and upstream code runs only inside one`,
        bwrap.error === 'bwrap not found'
          ? 'apt-get install bubblewrap (`nnblocks doctor` checks it), or pass --no-sandbox to run upstream code unconfined (not recommended)'
          : 'run `nnblocks doctor`; or pass --no-sandbox to run upstream code unconfined (not recommended)',
      ),
    );
    return out;
  }
  const blockedPackages = corpusPackages(p.index.modules);
  const items = validateItems(ctx, p, extracted, opts.only);
  const progress = ctx.progress('validate', items.length);
  const v = ctx.config.validate ?? {};
  const { records: ran, sandbox: report } = await validateRun(items, {
    python: env.environment.python,
    pythonRoots: env.environment.roots,
    runtimeRoots: env.environment.runtime,
    sites: env.environment.sites,
    environmentKey: env.environment.key,
    device: opts.device ?? v.device ?? 'auto',
    sandbox,
    timeoutMs: v.blockBudgetMs ?? v.timeoutMs,
    runBudgetMs: v.runBudgetMs,
    memoryBytes: v.memoryBytes,
    tmpBytes: v.tmpBytes,
    workers: v.workers,
    // Every source's packages, so a missing one is told apart from a distribution that is not installed.
    corpusPackages: blockedPackages,
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
    onProgress: (done) => progress.set(done),
  });
  // A ref of a config override that names no importable module is the config's mistake, not a missing distribution.
  const overrides = ctx.config.validate?.overrides ?? {};
  const withOverride = new Map(items.flatMap((i) => (i.overrides ? [[i.id, i.overrides] as const] : [])));
  const checked = checkOverrideRefs(ran, (id) => {
    const override = withOverride.get(id);
    const key = override && Object.keys(overrides).find((k) => overrides[k] === override);
    return override && key !== undefined ? { key, override } : undefined;
  });
  const raw = checked.records;
  out.diagnostics.push(...checked.diagnostics);
  // A blocked block's distribution is suggested only when known: the table's, or one the corpus declares or the
  // environment installed or tried to (never a module's name taken for a distribution's).
  const known = knownDistributions([
    ...p.snapshots.flatMap((sn) => (sn.requirements ?? []).map((q) => q.name)),
    ...env.environment.report.requirements.map((q) => q.name),
    ...env.environment.report.missing.map((q) => q.name),
  ]);
  const s = summarize(raw);
  // Paths under these are published relative to them (`m.py`, not `<cache>/extracted/blocks/m.py`).
  const moduleRoots = [...new Set([...items.map((i) => i.importRoot), ...p.snapshots.map((sn) => sn.importRoot)])];
  progress.done(`${s.byStatus.passed} passed, ${s.byStatus.failed} failed, ${s.byStatus.skipped} skipped`);
  out.raw = raw;
  out.summary = s;
  out.sandbox = report;
  // Blocks to run and none ran (the sandbox refused to drop privileges, the worker could not start torch...).
  if (raw.length > 0 && raw.every((r) => r.status === 'skipped'))
    out.diagnostics.push(
      unavailable(`every block was skipped: ${raw[0].failureDetail ?? 'skipped'}`, 'run `nnblocks doctor`'),
    );
  const emitted = new Map(extracted.map((e) => [e.entry.id, e]));
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
  return out;
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
 * The validate items of the extracted blocks (those `only` keeps): every corpus package blocked, the recipe
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
  const blockedPackages = corpusPackages(p.index.modules);
  const overrides = ctx.config.validate?.overrides;
  const usage = p.usage();
  const modules = new Map(p.index.modules.map((m) => [`${m.sourceId}\0${m.path}`, m]));
  const classIndex = new Map<string, ClassFact>();
  for (const m of p.index.modules)
    for (const c of m.facts.classes) if (m.module) classIndex.set(`${m.module}.${c.qualname}`, c);
  return extracted
    .filter((e) => e.code && (!only || only(e.entry.id)))
    .map((e) => {
      const b = blocks.get(e.entry.id)!;
      const snap = snapshots.get(b.sourceId)!;
      const o = overrideFor(overrides, b);
      const mod = modules.get(`${b.sourceId}\0${b.path}`);
      const own = mod ? classAt(mod, b.stmt, b.name) : undefined;
      const positional = initParams([own, ...b.baseChain.map((q) => classIndex.get(q))]);
      // Builders of the block in sibling modules the module holds (e.parts, as part builders are): its builders.
      const siblings = siblingBuilders(p, b).filter((f) =>
        e.parts.some((x) => x.name === f.name && x.module === f.module),
      );
      // The part builders the module holds (e.parts), with their parameters and their model's constructor.
      const found = partBuilders(p, b);
      const parts: PartRecipeSource[] = e.parts.flatMap((part) => {
        const f = found.find((x) => x.name === part.name && x.module === part.module);
        if (!f) return [];
        // The model's class (`<source>:<module>.<qualname>`), with its bases when it is a discovered block.
        const model = blocks.get(f.blockId);
        const chain = [classIndex.get(f.blockId.slice(f.blockId.indexOf(':') + 1)), ...(model?.baseChain ?? [])];
        const positional = initParams(chain.map((c) => (typeof c === 'string' ? classIndex.get(c) : c)));
        return [{ builder: part.name, module: part.module, params: f.params, positional }];
      });
      const recipes = usageRecipes(
        usage.usageOf(b.id),
        [...e.builders, ...siblings.map((f) => ({ name: f.name, module: f.module }))],
        positional,
        parts,
      );
      return {
        id: b.id,
        importRoot: e.entry.importRoot,
        module: e.entry.module,
        className: e.entry.className,
        blockedPackages,
        moduleHash: e.entry.sha256,
        ...(o ? { overrides: o } : {}),
        ...(recipes.candidates.length ? { usage: recipes.candidates } : {}),
        ...(recipes.inputs.length ? { usageInputs: recipes.inputs } : {}),
        // The original is importable from its source's import root (installed distribution or checkout).
        ...(b.qualname.includes('.')
          ? {}
          : { original: { importRoot: snap.importRoot, module: b.module, className: b.name } }),
      };
    });
}

/**
 * Type names as upstream wrote them: the built module reports the classes it holds under nnblocks' own module
 * name (`torchvision__torchvision_models_mobilenetv2__InvertedResidual.Conv2dNormActivation`); the emitted
 * definitions say where each came from (`torchvision.ops.misc.Conv2dNormActivation`). Other types are kept.
 */
function originalTypes(e: ExtractedBlock | undefined): (type: string) => string {
  if (!e) return (type) => type;
  const prefix = `${e.entry.module}.`;
  const from = new Map((e.writtenDefinitions ?? e.definitions).map((d) => [d.name, d.module]));
  return (type) => {
    if (!type.startsWith(prefix)) return type;
    const rest = type.slice(prefix.length);
    const module = from.get(rest.split('.')[0]);
    return module ? `${module}.${rest}` : type;
  };
}

/**
 * The packages validation refuses to every block: the top-level packages of every source of the corpus (its whole
 * resolution scope), so "import OK" means the assembled module stands on its own — it leans neither on its own
 * repository nor on another source it was resolved against. The runtime (`torch`) and the standard library are
 * never refused, even when a source provides them (docs/resolve.md, "Across sources").
 */
export function corpusPackages(modules: IndexedModule[]): string[] {
  const tops = new Set<string>();
  for (const m of modules) if (m.module) tops.add(m.module.split('.')[0]);
  return [...tops].filter((t) => !isRuntimePackage(t)).sort();
}

const FIDELITY = { identical: 'exact', differs: 'mismatch', 'n/a': 'not-compared' } as const;

/**
 * The catalog's form of a runner record. Fields of stages that did not run are absent, never zero: `params` and
 * `buffers` only when the block built, `recipe` only when it passed; a failed or blocked block gets its neutral
 * `reason` (failure-reason.ts) with the recipe it tried when the runner recorded one. `moduleRoots` are this build's
 * import roots (the extracted blocks', the sources'): paths under them are published relative to them. `known`: the
 * distributions beyond the module table a blocked block may name (knownDistributions).
 */
export function toCatalog(
  r: ValidationRecord,
  moduleRoots: readonly string[] = [],
  known: ReadonlyMap<string, string> = new Map(),
): CatalogValidation {
  const status = r.status === 'passed' || r.status === 'blocked' ? r.status : 'failed';
  const recipe = r.recipe ? catalogRecipe(r.recipe) : null;
  const rec: CatalogValidation = {
    status,
    stages: r.stages.map((s) => ({
      stage: s.stage,
      status: s.status === 'passed' ? 'ok' : 'failed',
      ms: Math.round(s.ms),
    })),
    outputs: r.outputs.map((o) => ({ shape: o.shape, dtype: o.dtype, checksum: String(o.checksum) })),
    device: r.device,
    torchVersion: r.torchVersion ?? 'unknown',
    fidelity: FIDELITY[r.fidelity.status],
  };
  if (status === 'passed' && recipe) rec.recipe = recipe;
  if (r.params !== null) rec.params = r.params;
  if (r.buffers !== null) rec.buffers = r.buffers;
  if (r.canonical?.length) rec.canonical = r.canonical;
  if (r.gradients?.mode === 'eval') rec.gradientMode = 'eval';
  if (r.failureClass) rec.failureClass = r.failureClass;
  const detail = capText(neutralText(r.failureDetail ?? '', moduleRoots), RUN_LIMITS.detailChars);
  if (detail) rec.failureDetail = detail;
  if (status !== 'passed') {
    rec.reason = failureReason(r, recipe ?? (r.attempt ? catalogRecipe(r.attempt) : null), moduleRoots);
    if (r.uninferred?.length) rec.reason.missing = r.uninferred;
  }
  if (r.status === 'blocked') rec.blockedBy = requirementsOf(r.failureDetail, known);
  return rec;
}

/**
 * A runner value in the catalog's form: an instance's kwargs as an ordered list (`{call, kwargs: [{name, value}]}`),
 * tuples and lists item by item, literals as they are. The record check has bounded the nesting.
 */
function catalogValue(v: unknown): RecipeValue {
  if (Array.isArray(v)) return v.map(catalogValue) as LiteralValue[];
  if (typeof v !== 'object' || v === null) return v as LiteralValue;
  if ('tuple' in v) return { tuple: (v as { tuple: unknown[] }).tuple.map(catalogValue) };
  const call = v as { call: string; kwargs: Record<string, unknown> };
  return { call: call.call, kwargs: pairs(call.kwargs) };
}

const pairs = (o: Record<string, unknown>) =>
  Object.entries(o).map(([name, value]) => ({ name, value: catalogValue(value) }));

/** A runner recipe in the catalog's form: kwargs as an ordered list (upstream names are never object keys). */
function catalogRecipe(r: Recipe): ValidationRecipe {
  const calls = new Set(r.calls ?? []);
  return {
    seed: r.seed,
    ...(r.builder ? { builder: r.builder } : {}),
    ...(r.builderModule ? { builderModule: r.builderModule } : {}),
    ...(r.path ? { path: r.path } : {}),
    origin: r.origin,
    kwargs: pairs(Object.fromEntries(Object.entries(r.kwargs).filter(([name]) => !calls.has(name)))),
    ...(calls.size
      ? {
          calls: [...calls].map((name) => {
            const call = r.kwargs[name] as { call: string; kwargs: Record<string, unknown> };
            return { name, target: call.call, kwargs: pairs(call.kwargs) };
          }),
        }
      : {}),
    ...(r.refs?.length ? { refs: r.refs } : {}),
    inputs: r.inputs,
  };
}

/** The runner's tree (maps keyed by attribute name) as the ordered lists the de-duplication stage hashes. */
export function toTreeNode(t: ModuleTree, typeOf: (type: string) => string = (x) => x): ModuleTreeNode {
  return {
    type: typeOf(t.type),
    params: Object.entries(t.params).map(([name, shape]) => ({ name, shape })),
    children: Object.entries(t.children).map(([name, c]) => ({ name, ...toTreeNode(c, typeOf) })),
  };
}
