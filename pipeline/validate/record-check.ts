// The runner's record for a block, checked before anything else reads it. The record is written by a process that
// ran upstream code, so it is hostile data: every field typed and capped by its schema (pipeline/contract/
// runner-record.ts; a malformed record is a `protocol-error` of that block, never a crash and never cached), recipe
// names that could become code refused, and module-tree type names that aren't dotted identifiers dropped. See
// docs/validate.md ("Sandbox").
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isBoxesInput, isInputLevels, type InputSpec } from '../contract/inputs.ts';
import { isDottedModule, isKwargName, isModuleName, isPartPath, isRefTarget, isTypeName } from '../contract/rules.ts';
import { RUNNER_RECORD_SCHEMA, type ModuleTree, type RunnerRecord } from '../contract/runner-record.ts';

/** What is wrong with a recipe value's calls (a target that is no dotted name, a reserved kwarg), or null. */
function badCall(v: unknown): string | null {
  if (Array.isArray(v)) return v.map(badCall).find((x) => x !== null) ?? null;
  if (typeof v !== 'object' || v === null) return null;
  if ('tuple' in v) return badCall((v as { tuple: unknown[] }).tuple);
  const call = v as { call: unknown; kwargs: Record<string, unknown> };
  if (!isRefTarget(call.call)) return 'is not a dotted name';
  for (const [name, inner] of Object.entries(call.kwargs)) {
    if (!isKwargName(name)) return `kwarg ${name} is a reserved word`;
    const bad = badCall(inner);
    if (bad) return bad;
  }
  return null;
}

const isCall = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && 'call' in v;

/** The runner's node budget for a module tree (runner: measure.module_tree), plus the root. */
const MAX_TREE_NODES = 2001;

// strictRequired off: the boxes rule's `if` names a property declared beside it, which strict mode flags. Compiled
// on first use (~0.2 s): a command that only lists blocks, or shows its help, never checks a record.
let compiled: ValidateFunction | undefined;
const validator = () =>
  (compiled ??= new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true }).compile(
    JSON.parse(JSON.stringify(RUNNER_RECORD_SCHEMA)) as object,
  ));

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'is invalid';
}

/** Nodes of a tree, counted up to `limit` (a deeper tree stops the walk early). */
function nodes(t: ModuleTree, limit: number): number {
  let n = 1;
  for (const c of Object.values(t.children)) {
    n += nodes(c, limit - n);
    if (n > limit) break;
  }
  return n;
}

/** Drops children whose type name isn't a dotted identifier (host facts smuggled into a class name); marks the cut. */
function dropBadTypeNames(t: ModuleTree): ModuleTree {
  const children: Record<string, ModuleTree> = {};
  let cut = false;
  for (const [name, c] of Object.entries(t.children)) {
    if (isTypeName(c.type)) children[name] = dropBadTypeNames(c);
    else cut = true;
  }
  return { ...t, children, ...(cut || t.truncated ? { truncated: true } : {}) };
}

/** `cv2` or `cv2, scipy`: at most 16 top-level module names (ASCII identifiers), as classify.py writes them. */
function isModuleList(detail: string | null): boolean {
  const names = (detail ?? '').split(', ');
  return names.length <= 16 && names.every((n) => isModuleName(n));
}

/**
 * `{ ok: true, record }` with the record as the catalog may use it, or `{ ok: false, why }` when it does not
 * follow the protocol. `value` is untrusted JSON from the worker.
 */
export function checkRunnerRecord(value: unknown): { ok: true; record: RunnerRecord } | { ok: false; why: string } {
  const validate = validator();
  if (!validate(value)) return { ok: false, why: `malformed record: ${describe(validate.errors)}` };
  const rec = value as RunnerRecord;
  if (rec.moduleTree) {
    if (nodes(rec.moduleTree, MAX_TREE_NODES) > MAX_TREE_NODES) return { ok: false, why: 'module tree too large' };
    rec.moduleTree = isTypeName(rec.moduleTree.type) ? dropBadTypeNames(rec.moduleTree) : null;
  }
  for (const r of [rec.recipe, rec.attempt]) {
    if (!r) continue;
    if (r.builder !== undefined && !isKwargName(r.builder))
      return { ok: false, why: 'recipe builder is a reserved word' };
    // A part names its builder, the builder's module and the path, and only a part does: a forged path on another
    // recipe, or a part without one, would replay something other than what ran.
    const part = r.origin === 'part';
    if (part !== (r.path !== undefined) || part !== (r.builderModule !== undefined) || (part && !r.builder))
      return { ok: false, why: 'a part recipe names its builder, its module and its path; no other recipe does' };
    if (part && !isPartPath(r.path)) return { ok: false, why: 'recipe part path is not a dotted attribute path' };
    if (part && !isDottedModule(r.builderModule))
      return { ok: false, why: 'recipe builder module is not a dotted module name' };
    if (part && (r.refs?.length || r.calls?.length))
      return { ok: false, why: "a part recipe's kwargs are its builder's literals: no refs or calls" };
    for (const name of Object.keys(r.kwargs))
      if (!isKwargName(name)) return { ok: false, why: `recipe kwarg ${name} is a reserved word` };
    for (const name of r.refs ?? [])
      if (!isRefTarget(r.kwargs[name])) return { ok: false, why: `recipe reference ${name} is not a dotted name` };
    const calls = new Set(r.calls ?? []);
    for (const [name, value] of Object.entries(r.kwargs)) {
      if (isCall(value) !== calls.has(name))
        return { ok: false, why: `recipe kwarg ${name}: a call where none is named` };
      const bad = badCall(value);
      if (bad) return { ok: false, why: `recipe ${calls.has(name) ? 'call' : 'kwarg'} ${name}: ${bad}` };
    }
    for (const name of calls) if (!(name in r.kwargs)) return { ok: false, why: `recipe call ${name} has no kwarg` };
    for (const i of r.inputs) {
      const why = inputProblem(i);
      if (why) return { ok: false, why };
    }
  }
  for (const name of rec.uninferred ?? [])
    if (!isKwargName(name)) return { ok: false, why: `uninferred ${name} is a reserved word` };
  for (const c of rec.canonical ?? [])
    if (!isKwargName(c.builder)) return { ok: false, why: 'canonical builder is a reserved word' };

  if (rec.status === 'passed' && (rec.failureClass !== null || rec.recipe === null))
    return { ok: false, why: 'a passed record with a failure class or without a recipe' };
  if (rec.status === 'failed' && rec.failureClass === null)
    return { ok: false, why: 'a failed record without a class' };
  // The modules of a `missing-dependency` become distribution names in the catalog ("blocked: needs X"): the runner
  // writes identifiers, comma-separated, and nothing else is accepted.
  if (rec.failureClass === 'missing-dependency' && !isModuleList(rec.failureDetail))
    return { ok: false, why: 'a missing-dependency record whose detail is not a list of module names' };
  return { ok: true, record: rec };
}

/** What breaks a recipe input's cross-field rules (the schema checks each field alone), or null. */
function inputProblem(i: InputSpec): string | null {
  if (i.boxes !== undefined && !isBoxesInput(i.shape, i.boxes)) return 'recipe boxes input is not [K, 4] or [K, 5]';
  if (i.levels === undefined) return null;
  if (!isInputLevels(i.levels, i.shape)) return 'recipe levels input does not start at its shape';
  if ([i.list, i.keys, i.boxes, i.value].some((x) => x !== undefined))
    return 'recipe levels input with list, keys, boxes or value';
  return null;
}
