// A validation run's records in the catalog's form: the runner's record (validate/types.ts) becomes the published
// `validation` of a block spec (contract.ts) and its module tree the ordered tree de-duplication hashes. Runner text
// is hostile: failure details go through failure-reason.ts, paths made neutral and capped. See docs/catalog.md.
import type { ExtractedBlock } from '../assemble/extract.ts';
import type { ModuleTreeNode } from '../dedup/types.ts';
import { requirementsOf } from '../validate/distributions.ts';
import type { ModuleTree, Recipe } from '../contract/runner-record.ts';
import type { ValidationRecord } from '../validate/types.ts';
import type { LiteralValue, RecipeValue } from '../contract/common.ts';
import type { ValidationRecipe } from '../contract/recipe.ts';
import { isNotRun } from '../contract/harness.ts';
import { capText } from '../contract/rules.ts';
import type { ValidationRecord as CatalogValidation } from '../contract/validation.ts';
import { RUN_LIMITS } from '../contract/vocabulary.ts';
import { failureReason, neutralText } from './failure-reason.ts';

const FIDELITY = { identical: 'exact', differs: 'mismatch', 'n/a': 'not-compared' } as const;

/**
 * The catalog's form of a runner record. Fields of stages that did not run are absent, never zero: `params` and
 * `buffers` only when the block built, `recipe` only when it passed; a block the harness could not run (needs
 * arguments, past its time budget, an input it could not make: contract/harness.ts) is `not-run`, not `failed`; a
 * failed, not-run or blocked block gets its neutral
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
    outputs: r.outputs.map((o) => ({
      shape: o.shape,
      dtype: o.dtype,
      checksum: String(o.checksum),
      projection: String(o.projection),
    })),
    device: r.device,
    torchVersion: r.torchVersion ?? 'unknown',
    fidelity: FIDELITY[r.fidelity.status],
  };
  if (status === 'passed' && recipe) rec.recipe = recipe;
  if (status === 'passed' && r.sensitivity !== undefined) rec.sensitivity = String(r.sensitivity);
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
  // What the harness could not do is not the code's failure: `not-run`, by the one table (contract/harness.ts).
  if (rec.status === 'failed' && isNotRun(rec)) rec.status = 'not-run';
  return rec;
}

/**
 * A runner value in the catalog's form: an instance's kwargs as an ordered list (`{call, kwargs: [{name, value}]}`),
 * tuples and lists item by item, literals as they are. The record check has bounded the nesting.
 */
function catalogValue(v: unknown): RecipeValue {
  if (Array.isArray(v)) return v.map(catalogValue);
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

/**
 * Type names as upstream wrote them: the built module reports the classes it holds under nnblocks' own module
 * name (`torchvision__torchvision_models_mobilenetv2__InvertedResidual.Conv2dNormActivation`); the emitted
 * definitions say where each came from (`torchvision.ops.misc.Conv2dNormActivation`). Other types are kept.
 */
export function originalTypes(e: ExtractedBlock | undefined): (type: string) => string {
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
