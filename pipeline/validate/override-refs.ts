// A config override's ref that names a module nothing can import — `"transformer": "transformer.TwoWayTransformer"`
// for `segment_anything.modeling.transformer.TwoWayTransformer` — fails the block's build with ModuleNotFoundError,
// which the runner classes as a distribution that is not installed: the block would be `blocked`, and the stats
// page would suggest installing a package called `transformer`. The mistake is the config's, so it is reported as
// one: the block fails `unresolved-name` naming the ref, and an error diagnostic names the override field.
import type { ValidateOverride } from '../config/types.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { ValidateItem, ValidationRecord } from './types.ts';

interface OverrideOf {
  /** The key the config wrote the override under (a block id, name or `module.qualname`). */
  key: string;
  override: ValidateOverride;
}

/**
 * The config override each item was built with and the key the config wrote it under (`overrides` is the config's
 * `validate.overrides`; an item holds the override object itself): what `checkOverrideRefs` asks of a record.
 */
export function overrideOf(
  items: ValidateItem[],
  overrides: Record<string, ValidateOverride>,
): (id: string) => OverrideOf | undefined {
  const withOverride = new Map(items.flatMap((i) => (i.overrides ? [[i.id, i.overrides] as const] : [])));
  return (id) => {
    const override = withOverride.get(id);
    const key = override && Object.keys(overrides).find((k) => overrides[k] === override);
    return override && key !== undefined ? { key, override } : undefined;
  };
}

/** The missing modules of a `missing-dependency` record (the runner's comma-separated top-level names). */
const missingModules = (r: ValidationRecord) =>
  (r.failureDetail ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);

/**
 * `records` with each blocked one whose missing modules are all the modules of its override's refs made a failure
 * of class `unresolved-name`; a diagnostic per ref whose module is missing.
 */
export function checkOverrideRefs(
  records: ValidationRecord[],
  overrideOf: (id: string) => OverrideOf | undefined,
): { records: ValidationRecord[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const out = records.map((r) => {
    const o = r.status === 'blocked' && r.failureClass === 'missing-dependency' ? overrideOf(r.id) : undefined;
    if (!o) return r;
    const missing = missingModules(r);
    // `.Helper` is the block's own module; a dotted target's first segment is the module Python looked for.
    const refs = (o.override.refs ?? []).flatMap((name) => {
      const target = o.override.kwargs?.[name];
      return typeof target === 'string' && !target.startsWith('.') ? [{ name, target, top: target.split('.')[0] }] : [];
    });
    const bad = refs.filter((ref) => missing.includes(ref.top));
    if (bad.length === 0) return r;
    for (const ref of bad)
      diagnostics.push({
        code: 'override-ref-unresolved',
        severity: 'error',
        stage: 'validate',
        source: r.id.split(':')[0],
        message:
          `validate.overrides[${JSON.stringify(o.key)}].kwargs.${ref.name}: the ref ${JSON.stringify(ref.target)} ` +
          `names module ${JSON.stringify(ref.top)}, which no source of the corpus and nothing installed provides ` +
          `(${r.id} fails as unresolved-name; no distribution is suggested)`,
        hint:
          'write the full dotted path of the class as Python imports it (package.module.Class), or .Class for a ' +
          "class of the block's own module",
      });
    // Blocked still when a real distribution is missing too: that one is worth installing.
    if (!missing.every((m) => bad.some((ref) => ref.top === m))) return r;
    return {
      ...r,
      status: 'failed' as const,
      failureClass: 'unresolved-name' as const,
      failureDetail: bad.map((ref) => ref.target).join(', '),
    };
  });
  return { records: out, diagnostics };
}
