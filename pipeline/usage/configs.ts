// Configurations read from OpenMMLab-style config files (source `configs`, docs/usage.md "Config files"): every
// `dict(type='X', ...)` of a config file whose type names a registered class of the corpus is a configuration of X,
// its other keys the constructor's keyword arguments. Nested dicts stay dicts: OpenMMLab classes build their own
// sub-modules from them. mmengine's pure-Python configs name the class itself (`dict(type=ResNet, depth=50)`, the
// class imported): that dict configures the class it resolves to, and a nested `type=X` becomes X's dotted name,
// which an mmengine registry builds from as well.
//   model = dict(type='ImageClassifier', backbone=dict(type='ResNet', depth=50, out_indices=(3, )), ...)
//   # ResNet: {depth: 50, out_indices: [3]}; ImageClassifier: {backbone: {type: 'ResNet', ...}, ...}
// Values are read from the facts the parser keeps (literals, nested dicts and lists of them, a module-level name
// bound once to a dict); a configuration with any other value (`num_classes=num_classes`, an expression) is left out
// rather than built at a guess. `_base_` inheritance is not followed: the literal dicts of each file, the base files'
// included, are what is read.
import type { IndexedModule } from '../index/types.ts';
import type { ArgFact, CallFact, ValueFact } from '../parse/facts.ts';
import type { ClassInfo, UsageCorpus } from './corpus.ts';
import type { ConfigValue } from './types.ts';

/** Keys never passed on: weights to load (`init_cfg=dict(type='Pretrained', checkpoint=...)`, `pretrained=`). */
const OFFLINE_KEYS = new Set(['init_cfg', 'pretrained']);
/** Nesting read, and entries of one dict. */
const MAX_DEPTH = 8;
const MAX_KEYS = 64;

export interface ReadConfig {
  cls: ClassInfo;
  call: CallFact;
  kwargs: Record<string, ConfigValue>;
}

/** The configurations in one config file, in source order. */
export function readConfigs(
  corpus: UsageCorpus,
  mod: IndexedModule,
  registered: (name: string, mod: IndexedModule) => ClassInfo[],
): ReadConfig[] {
  const out: ReadConfig[] = [];
  const calls = mod.facts.usage.calls;
  for (const call of calls) {
    if (!isDict(corpus, mod, call)) continue;
    const classes = typeOf(corpus, mod, call, registered);
    if (!classes.length) continue;
    const read = dictValue(corpus, mod, call, 0);
    if (!read) continue;
    const { type: _, ...kwargs } = read;
    for (const k of OFFLINE_KEYS) delete kwargs[k];
    for (const cls of classes) out.push({ cls, call, kwargs });
  }
  return out;
}

/**
 * The classes a config dict configures: those registered under its `type` string, or the class its `type` names
 * (mmengine's pure-Python configs: `from mmpretrain.models import ResNet`, then `dict(type=ResNet, depth=50)`).
 */
function typeOf(
  corpus: UsageCorpus,
  mod: IndexedModule,
  call: CallFact,
  registered: (name: string, mod: IndexedModule) => ClassInfo[],
): ClassInfo[] {
  const type = call.args.find((a) => a.kw === 'type');
  if (!type) return [];
  if ('lit' in type) return typeof type.lit === 'string' ? registered(type.lit, mod) : [];
  if (!('name' in type) || type.head) return [];
  const r = corpus.resolve(mod, type.name);
  return r.kind === 'class' ? [r.cls] : [];
}

function isDict(corpus: UsageCorpus, mod: IndexedModule, call: CallFact): boolean {
  if (call.callee !== 'dict' || call.head || call.key !== undefined) return false;
  const r = corpus.resolve(mod, 'dict');
  return r.kind === 'builtin' && r.name === 'dict';
}

/** A `dict(...)` as a plain object, or null when a value cannot be read. */
function dictValue(
  corpus: UsageCorpus,
  mod: IndexedModule,
  call: CallFact,
  depth: number,
): Record<string, ConfigValue> | null {
  if (depth > MAX_DEPTH || call.args.length > MAX_KEYS) return null;
  const out: Record<string, ConfigValue> = {};
  for (const a of call.args) {
    if (a.star || a.kw === undefined) return null; // `**base`, `dict(other)`: what they hold is not read here
    const v = value(corpus, mod, a, depth + 1);
    if (v === undefined) return null;
    out[a.kw] = v;
  }
  return out;
}

function value(
  corpus: UsageCorpus,
  mod: IndexedModule,
  v: ValueFact | ArgFact,
  depth: number,
): ConfigValue | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if ('lit' in v) return v.lit;
  if ('list' in v) {
    const items = v.list.map((x) => value(corpus, mod, x, depth + 1));
    return items.every((x) => x !== undefined) ? (items as ConfigValue[]) : undefined;
  }
  if ('call' in v) {
    const c = mod.facts.usage.calls[v.call];
    return c && isDict(corpus, mod, c) ? (dictValue(corpus, mod, c, depth) ?? undefined) : undefined;
  }
  if ('name' in v && !v.head) {
    // `type=LinearClsHead` in a pure-Python config: the class's dotted name is what a registry builds from too.
    const r = corpus.resolve(mod, v.name);
    if (r.kind === 'class') return `${r.cls.mod.module}.${r.cls.fact.qualname}`;
  }
  if ('name' in v && !v.head && !v.name.includes('.')) {
    // `norm_cfg = dict(type='SyncBN', requires_grad=True)` at module level, then `norm_cfg=norm_cfg`.
    const bound = corpus.inScope(mod, '').calls.filter((c) => c.assign === v.name);
    if (bound.length === 1 && isDict(corpus, mod, bound[0]))
      return dictValue(corpus, mod, bound[0], depth) ?? undefined;
  }
  return undefined;
}
