// Recipe candidates from usage mining (docs/validate.md, "Recipes"): how the corpus itself builds and feeds a
// block, turned into what the runner tries before its own inference. Order: the zero-argument builders the emitted
// module holds (`resnet50`), then literal construction sites, smallest first (`Bottleneck(64, 64, stride=1)` before
// `Bottleneck(512, 2048)`); arguments a site does not give as literals are filled by inference; last (the runner
// tries them after inference), builders of other models that hold the block (`part`). Forward calls made with
// literal tensor shapes (`model(torch.randn(1, 3, 224, 224))`) become input candidates.
import type { ClassFact, LiteralValue } from '../parse/facts.ts';
import { CONFIG_PATH_PATTERN, isKwargName } from '../contract/rules.ts';
import type { BlockUsage, ConfigUse, ConfigValue, UsageArg, UsageValue } from '../usage/types.ts';
import type { InputSpec, RecipeCandidate } from './types.ts';

/** Construction sites tried per block, after its builders. */
const MAX_SITES = 6;
/** Canonical configurations counted per block, builders and config files together (canonical.py MAX_CANONICAL). */
export const MAX_CANONICAL = 8;
const CONFIG_PATH = new RegExp(CONFIG_PATH_PATTERN);

/**
 * A config dict as the runner builds it: `dict(type='ResNet', depth=50)` is a call of `builtins.dict` (the block
 * builds the module from it through its registry; the build step assembles the class it names with the block).
 */
export interface DictCall {
  class: 'builtins.dict';
  kwargs: Record<string, KwargValue>;
}
export type KwargValue = LiteralValue | DictCall | KwargValue[];

/**
 * A value the runner can pass as a kwarg (JSON): literals, lists of them, config dicts whose entries are such
 * values in turn (`backbone=dict(type='ResNet', depth=50)`); undefined for anything else.
 */
function literalOf(v: UsageValue): KwargValue | undefined {
  if (v.kind === 'literal') return v.value;
  if (v.kind === 'list') {
    const items = v.items.map(literalOf);
    return items.every((x) => x !== undefined) ? (items as KwargValue[]) : undefined;
  }
  if (v.kind === 'config') {
    const kwargs: Record<string, KwargValue> = { type: v.type };
    for (const a of v.args) {
      const value = a.name !== undefined && !a.star ? literalOf(a.value) : undefined;
      if (value === undefined) return undefined;
      kwargs[a.name!] = value;
    }
    return { class: 'builtins.dict', kwargs };
  }
  return undefined;
}

/** Sum of the magnitudes of a value's numbers: how big a configuration a site asks for (widths, depths). */
function magnitude(v: KwargValue): number {
  if (typeof v === 'number') return Math.abs(v);
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + magnitude(x), 0);
  if (v && typeof v === 'object' && 'class' in v)
    return Object.values(v.kwargs).reduce((s: number, x) => s + magnitude(x), 0);
  return 0;
}

/**
 * The positional parameters of the constructor the block runs (`__init__` of the first class of its MRO, own
 * class first, that defines one), without `self`; null when none is known (then only keyword arguments are used).
 */
export function initParams(classes: (ClassFact | undefined)[]): string[] | null {
  for (const c of classes) {
    const init = c?.methods.find((m) => m.name === '__init__');
    if (!init) continue;
    const out: string[] = [];
    for (const p of init.params.slice(1)) {
      if (p.kind !== 'positional' && p.kind !== 'positional-only') break;
      out.push(p.name);
    }
    return out;
  }
  return null;
}

/** A site's arguments as kwargs: literal ones kept, positions named by the constructor; null when unusable. */
function siteKwargs(
  args: UsageArg[],
  positional: string[] | null,
): { kwargs: Record<string, KwargValue>; skipped: number } | null {
  const kwargs: Record<string, KwargValue> = {};
  let skipped = 0;
  let pos = 0;
  for (const a of args) {
    if (a.star) return null; // `*args` / `**cfg`: which parameters they fill is unknown
    const name = a.name ?? positional?.[pos++];
    if (!name) return null;
    const value = literalOf(a.value);
    if (value === undefined) skipped += 1;
    else kwargs[name] = value;
  }
  return { kwargs, skipped };
}

/** Float tensor factories whose literal shape is the whole input (`torch.randn(1, 3, 224, 224)`). */
const FLOAT_FACTORY = /(^|\.)(randn|rand|zeros|ones|empty)$/;

/**
 * Keyword arguments that keep a builder offline and quiet: pretrained weights off (`weights=None`,
 * `weights_backbone=None`, `pretrained=False`, `pretrained_backbone=False`), no download progress bar. Validation
 * has no network, and a block's random initialisation is what it checks; the builder's configuration is the same.
 */
export function offline(params: { name: string; hasDefault: boolean }[]): Record<string, LiteralValue> {
  const kwargs: Record<string, LiteralValue> = {};
  for (const p of params) {
    if (!p.hasDefault) continue;
    if (/^weights(_\w+)?$|_weights$/.test(p.name)) kwargs[p.name] = null;
    else if (/^pretrained(_\w+)?$/.test(p.name)) kwargs[p.name] = false;
    else if (p.name === 'progress') kwargs[p.name] = false;
  }
  return kwargs;
}

/**
 * Constructor parameters that only size a model's per-image work, with the value a check asks for. Builders make
 * production-size models, and this machine kind's torch multiplies matrices with a generic BLAS (~8 GFLOP/s a core):
 * - a detector resizes every image to `min_size`..`max_size` (800..1333 pixels in torchvision) before its backbone
 *   (64 pixels still leave its coarsest feature level a pixel);
 * - it keeps up to 1,000-2,000 proposals an image (`rpn_pre_nms_top_n_test`, `topk_candidates`) and 100-300
 *   detections (`box_detections_per_img`): a box head over 1,000 proposals is 13 GFLOP an image, forward alone;
 *   10 of each still run every head;
 * - a vision transformer's `image_size` fixes its input at 224 pixels.
 * Asked for only when the builder passes `**kwargs` on to a constructor that takes them (the candidate's `sizing`),
 * and recorded in the recipe like any argument. The parameter count does not depend on the first two; `image_size`
 * changes only the position embedding. The canonical count builds the builder without them: it is the production
 * figure.
 */
const CHEAP: [RegExp, LiteralValue][] = [
  [/^(min|max)_size$/, 64],
  [/(^|_)top_?n(_|$)|(^|_)topk_candidates$/, 10],
  [/(^|_)detections_per_img$/, 10],
  [/^(image|img)_size$/, 32],
];

export function cheapConfig(
  params: { name: string; kind: string }[],
  positional: string[] | null,
): Record<string, LiteralValue> {
  if (!params.some((p) => p.kind === 'var-keyword') || !positional) return {};
  const out: Record<string, LiteralValue> = {};
  for (const name of positional) {
    const hit = CHEAP.find(([re]) => re.test(name));
    if (hit) out[name] = hit[1];
  }
  return out;
}

/** `vit-base-p16` → `vit_base_p16`: a config file's name as the identifier a canonical figure is labelled with. */
export function configLabel(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 100);
  if (!/^[A-Za-z_]/.test(id)) id = `_${id}`.slice(0, 100);
  return isKwargName(id) ? id : `${(id as string).slice(0, 99)}_`; // a keyword: `None.py` → `None_`
}

function configSize(v: ConfigValue): number {
  if (typeof v === 'number') return Math.abs(v);
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + configSize(x), 0);
  if (v && typeof v === 'object') return Object.values(v).reduce((s: number, x) => s + configSize(x), 0);
  return 0;
}

/**
 * Up to `max` configurations from the source's config files, as canonical candidates: one per distinct
 * configuration (many files share a base's); those of `_base_` files first (OpenMMLab's model definitions, which the
 * experiment files inherit: `_base_/models/resnet50.py`), then the smallest (widths, depths), then by file; files
 * whose path a record cannot carry (CONFIG_PATH_PATTERN) are left out.
 */
export function configCandidates(configs: ConfigUse[], max: number): RecipeCandidate[] {
  const seen = new Set<string>();
  const labels = new Set<string>();
  const distinct: { c: ConfigUse; size: number }[] = [];
  for (const c of configs) {
    const key = JSON.stringify(c.kwargs);
    if (seen.has(key) || !CONFIG_PATH.test(c.path)) continue;
    seen.add(key);
    distinct.push({ c, size: configSize(c.kwargs) });
  }
  const base = (c: ConfigUse) => (c.path.split('/').includes('_base_') ? 0 : 1);
  distinct.sort(
    (a, b) =>
      base(a.c) - base(b.c) ||
      a.size - b.size ||
      (a.c.path < b.c.path ? -1 : a.c.path > b.c.path ? 1 : a.c.line - b.c.line),
  );
  const out: RecipeCandidate[] = [];
  for (const { c } of distinct) {
    if (out.length >= max) break;
    const label = configLabel(c.label);
    if (labels.has(label)) continue; // one figure per label: the smallest configuration of a file
    labels.add(label);
    out.push({ origin: 'config', builder: label, config: c.path, kwargs: c.kwargs });
  }
  return out;
}

/** Input specs from a forward call made only with float tensors of literal shapes; null otherwise. */
function callInputs(args: UsageArg[]): InputSpec[] | null {
  const out: InputSpec[] = [];
  for (const a of args) {
    if (a.name || a.star || a.value.kind !== 'tensor' || !FLOAT_FACTORY.test(a.value.factory)) return null;
    out.push({ shape: a.value.shape, dtype: 'float32' });
  }
  return out.length ? out : null;
}

/** A builder whose model holds the block, as the module holds it (`parts`), with what its candidate needs. */
export interface PartRecipeSource {
  /** Its name, in the emitted module and upstream. */
  builder: string;
  /** The upstream module defining it. */
  module: string;
  params: { name: string; kind: string; hasDefault: boolean }[];
  /** The positional parameters of the model class it builds (initParams): what `cheapConfig` may size. */
  positional: string[] | null;
}

export interface UsageRecipes {
  candidates: RecipeCandidate[];
  /** Input specs lists from forward calls with literal tensor shapes, tried before probing. */
  inputs: InputSpec[][];
}

/**
 * Candidates for one block: its builders (emitted names, as the extract step wrote them: its own module's, then those
 * of sibling modules with their upstream module), then up to
 * MAX_SITES literal construction sites of the whole corpus, then the builders of models that hold it (`parts`,
 * offline and cheap like its own builders: a detector's `min_size` 64).
 */
export function usageRecipes(
  usage: BlockUsage,
  builders: (string | { name: string; module: string })[],
  positional: string[] | null,
  parts: PartRecipeSource[] = [],
  instances: Record<string, { class: string; module?: string; config?: true }>[] = [],
): UsageRecipes {
  const candidates: RecipeCandidate[] = builders.map((b) => {
    // A builder of a sibling module (`build_sam.py`) names its module: fidelity calls the original package's.
    const [builder, module] = typeof b === 'string' ? [b, undefined] : [b.name, b.module];
    const params =
      usage.builders.find((f) => f.name === builder && (module === undefined || f.module === module))?.params ?? [];
    const kwargs = offline(params);
    const sizing = cheapConfig(params, positional);
    return {
      origin: 'builder' as const,
      builder,
      ...(module ? { builderModule: module } : {}),
      ...(Object.keys(kwargs).length ? { kwargs } : {}),
      ...(Object.keys(sizing).length ? { sizing } : {}),
    };
  });
  candidates.push(...configCandidates(usage.configs, MAX_CANONICAL - candidates.length));
  const seen = new Set<string>();
  const sites: { kwargs: Record<string, KwargValue>; fill: boolean; size: number; order: string }[] = [];
  for (const s of usage.constructions) {
    if (s.via === 'reference' || s.args.length === 0) continue;
    const k = siteKwargs(s.args, positional);
    if (!k || Object.keys(k.kwargs).length === 0) continue;
    const key = JSON.stringify(k.kwargs);
    if (seen.has(key)) continue;
    seen.add(key);
    sites.push({
      kwargs: k.kwargs,
      fill: k.skipped > 0,
      size: Object.values(k.kwargs).reduce((n: number, v) => n + magnitude(v), 0),
      order: `${s.sourceId}\0${s.path}\0${String(s.line).padStart(8, '0')}`,
    });
  }
  sites.sort((a, b) => a.size - b.size || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  for (const s of sites.slice(0, MAX_SITES))
    candidates.push({ origin: 'usage', kwargs: s.kwargs, ...(s.fill ? { fill: true } : {}) });
  // Instances of other blocks of its source where it takes modules (run/instance-choices.ts): after inference.
  for (const combination of instances) candidates.push({ origin: 'instance', instances: combination });
  for (const p of parts) {
    const kwargs = offline(p.params);
    const sizing = cheapConfig(p.params, p.positional);
    candidates.push({
      origin: 'part',
      builder: p.builder,
      builderModule: p.module,
      ...(Object.keys(kwargs).length ? { kwargs } : {}),
      ...(Object.keys(sizing).length ? { sizing } : {}),
    });
  }
  const inputs: InputSpec[][] = [];
  const seenInputs = new Set<string>();
  for (const call of usage.forwardCalls) {
    const specs = callInputs(call.args);
    if (!specs || seenInputs.has(JSON.stringify(specs))) continue;
    seenInputs.add(JSON.stringify(specs));
    inputs.push(specs);
  }
  return { candidates, inputs: inputs.slice(0, 4) };
}
