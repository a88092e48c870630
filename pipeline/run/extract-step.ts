// The build's extract step: assembles the selected blocks (written under `outDir`, or in memory only), with
// progress, then asks the configured Python once which installed distribution provides each import.
import { extractBlocks, writeManifest, type ExtractedBlock, type ExtractOptions } from '../assemble/extract.ts';
import { extractPackage, type ExtractedPackage } from '../assemble/extract-package.ts';
import { linkBesideModules, linkInPackage, loadsLibrary } from '../assemble/op-libraries.ts';
import { attachRequirementVersions, type VersionMemo } from '../assemble/requirements.ts';
import { nativeLibraries } from '../validate/native-libraries.ts';
import type { HostPython } from '../sources/python-dist.ts';
import { classAt, type Block } from '../discover/discover.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ValidateOverride } from '../config/types.ts';
import { chooseBuilders } from '../usage/choose-builders.ts';
import type { BuilderFn, PartBuilder } from '../usage/types.ts';
import { configClasses, instanceChoices, nearness, type InstanceChoice } from './instance-choices.ts';
import { kvStore } from './kv-store.ts';
import { recipeAsks } from './recipe-asks.ts';
import { sourceLabels, type Prepared, type RunContext } from './prepare.ts';

export { DEFAULT_PACKAGE } from '../assemble/extract-package.ts';

/** The kv namespace of assembled modules (pipeline/assemble/cache.ts). */
const ASSEMBLED = 'assembled';
/** The kv namespace of the installed versions of an environment's distributions (requirements.ts). */
const VERSIONS = 'versions';

export interface ExtractStepOptions {
  outDir: string;
  /** false: assemble in memory only (de-duplication of unvalidated blocks needs the code, not the files). */
  write?: boolean;
  /**
   * The interpreter whose installed distributions give each import's version (one Python subprocess); without
   * it no versions are looked up (nothing reads them, or there is no environment).
   */
  versionsFrom?: HostPython | null;
  /** Identifies `versionsFrom`'s installed set (the environment's key): its answers are kept between runs. */
  environmentKey?: string;
  /** Called with each block as it is extracted (build.ts hands new modules to de-duplication's prefetch). */
  onExtracted?: (block: ExtractedBlock) => void;
}

export function runExtraction(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  opts: ExtractStepOptions,
): ExtractedBlock[] {
  const progress = ctx.progress('extract', blocks.length);
  // Assembled modules are kept in the index's kv table; what this run makes is stored a few megabytes per
  // transaction (the paper's corpus makes 554 MB of them: held to the end, they were a sixth of the cold peak).
  const cache = kvStore(ctx.store, ASSEMBLED);
  const extracted = extractBlocks(p.program, blocks, {
    ...assembleOptions(ctx, p),
    outDir: opts.outDir,
    write: opts.write,
    cache,
    onDone: (block) => {
      progress.tick();
      if (block) opts.onExtracted?.(block);
    },
  });
  cache.flush();
  if (opts.versionsFrom !== undefined)
    attachRequirementVersions(opts.versionsFrom, extracted, versionMemo(ctx, opts.environmentKey));
  const reused = extracted.filter((e) => e.reused).length;
  progress.done(
    `${extracted.length} block${extracted.length === 1 ? '' : 's'}${reused ? `, ${reused} unchanged since the last run` : ''}`,
  );
  return extracted;
}

/**
 * `nnblocks extract`: the modules and their `manifest.json` in `outDir`, on the user's machine only; requirement
 * versions as the validation environment has them.
 */
export async function extractToFolder(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  outDir: string,
): Promise<{ manifest: string; extracted: ExtractedBlock[] }> {
  const env = await p.environment();
  const extracted = runExtraction(ctx, p, blocks, {
    outDir,
    versionsFrom: env.ok ? env.environment.host : null,
    environmentKey: env.ok ? env.environment.key : undefined,
  });
  // The compiled op libraries a module loads, linked beside it as validation does (op-libraries.ts).
  const written = extracted.filter((b) => b.hasCode);
  const { links, diagnostics } = linkBesideModules(
    written.map((b) => ({ file: b.entry.file, code: b.code })),
    nativeLibraries(p.snapshots, p.index.modules),
  );
  for (const b of written) {
    const here = links.get(b.entry.file);
    if (here?.length) b.entry.nativeLibraries = here;
  }
  if (diagnostics.length) written[0].diagnostics.push(...diagnostics);
  return {
    manifest: writeManifest(
      outDir,
      written.map((b) => b.entry),
    ),
    extracted,
  };
}

/**
 * `nnblocks extract` of several blocks: one package `outDir/<name>` (docs/resolve.md, "Several blocks: one
 * package") and its `manifest.json`, which names the module holding each block.
 */
export async function extractPackageToFolder(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  outDir: string,
  packageName?: string,
): Promise<{ manifest: string; extracted: ExtractedPackage }> {
  const env = await p.environment();
  const progress = ctx.progress('extract', blocks.length);
  const extracted = extractPackage(p.program, blocks, {
    ...assembleOptions(ctx, p),
    outDir,
    packageName,
    onDone: () => progress.tick(),
  });
  attachRequirementVersions(
    env.ok ? env.environment.host : null,
    extracted.blocks,
    versionMemo(ctx, env.ok ? env.environment.key : undefined),
  );
  progress.done(`${extracted.blocks.length} blocks, ${extracted.modules.length} modules`);
  // Compiled op libraries at their upstream place in the package, where its inlined loaders look (op-libraries.ts).
  const { links, diagnostics } = linkInPackage(
    extracted.dir,
    extracted.modules,
    extracted.modules.length ? nativeLibraries(p.snapshots, p.index.modules) : [],
  );
  extracted.diagnostics.push(...diagnostics);
  const loading = new Set(extracted.modules.filter((m) => loadsLibrary(m.code)).map((m) => m.path));
  for (const b of extracted.blocks) {
    const tops = new Set(b.reached.filter((path) => loading.has(path)).map((path) => path.split('/')[0]));
    const here = [...tops].flatMap((top) => links.get(top) ?? []);
    if (here.length) b.entry.nativeLibraries = here;
  }
  const entries = extracted.blocks.filter((b) => b.entry.module).map((b) => b.entry);
  return { manifest: writeManifest(outDir, entries, extracted.name), extracted };
}

/** Installed versions of an environment, kept in the index's kv table (none without the environment's key). */
function versionMemo(ctx: RunContext, key: string | undefined): VersionMemo | undefined {
  if (!key) return undefined;
  return {
    key,
    store: { get: (k) => ctx.store.kvGet(VERSIONS, k), put: (k, v) => ctx.store.kvPut(VERSIONS, k, v) },
  };
}

/** What assembling a block takes from the run: source labels, isolated sources, builders, layers, parts. */
function assembleOptions(ctx: RunContext, p: Prepared): Omit<ExtractOptions, 'outDir'> {
  return {
    labels: sourceLabels(p.snapshots),
    isolated: new Set(ctx.config.sources.filter((s) => !s.resolveAcross).map((s) => s.id)),
    builders: (b) => zeroArgBuilders(p, b),
    layers: (b, mod) => layerClasses(mod, b),
    // Builders of the block in sibling modules of its package (SAM's `build_sam.py`) are held like part builders.
    parts: (b) => [...siblingBuilders(p, b), ...partBuilders(p, b)],
    // The registered classes its recipes' config dicts name (`backbone=dict(type='ResNet')` of a config file).
    asks: (b) => recipeAsks(p, b),
    instances: (b) => {
      const override = overrideFor(ctx.config.validate?.overrides, b);
      if (override) return overrideClasses(p, b, override);
      // The classes its sites' config dicts name, and the blocks a composite recipe may build it with (a
      // `backbone`, a registered `neck`): held like an override's instances.
      const seen = new Set<string>();
      return [...configClasses(p, b), ...blockInstances(p, b).flatMap((s) => s.choices)]
        .filter((c) => !seen.has(`${c.path}\0${c.name}`) && seen.add(`${c.path}\0${c.name}`))
        .map(({ path, name }) => ({ path, name }));
    },
  };
}

/**
 * A block's instance slots with the blocks of its source that fit them (run/instance-choices.ts); none for a block
 * that its own builders, or builders of sibling modules, make.
 */
export function blockInstances(p: Prepared, b: Block): InstanceChoice[] {
  return instanceChoices(p, b, zeroArgBuilders(p, b).length > 0 || siblingBuilders(p, b).length > 0);
}

/** Most builder configurations a block's module holds (ResNet has 9 builders: resnet18 ... wide_resnet101_2). */
const MAX_BUILDERS = 8;

/**
 * The zero-argument builders of a block that live in its own module (`resnet50` beside ResNet), at most
 * MAX_BUILDERS chosen by `chooseBuilders` (named like the class, then the smallest): the emitted module holds them,
 * and validation builds the block through them (docs/validate.md, "Recipes", "Canonical configurations").
 */
export function zeroArgBuilders(p: Prepared, block: Block): string[] {
  const own = p
    .usage()
    .usageOf(block.id)
    .builders.filter(
      (f) => f.zeroArg && f.sourceId === block.sourceId && f.path === block.path && !f.scope.includes('.'),
    );
  return chooseBuilders(own, block.name, MAX_BUILDERS).map((f) => f.name);
}

/**
 * The public zero-argument builders of a block that live in *other* modules of its package: `build_sam_vit_b` in
 * SAM's `segment_anything/build_sam.py` returns the `Sam` of `segment_anything/modeling/sam.py`. Nearest package
 * first, then source order, at most MAX_BUILDERS; none when the block's own module has builders (those are its
 * recipes). Private helpers (`_default_anchorgen` in torchvision's detection modules) are the package's internals,
 * not its builders. The emitted module holds them (`parts` of the extraction), and validation tries them as the
 * block's builders (docs/validate.md, "Recipes"), calling the original package's for fidelity; part recipes, if
 * any, still come after inference.
 */
export function siblingBuilders(p: Prepared, block: Block): BuilderFn[] {
  if (zeroArgBuilders(p, block).length) return [];
  const near = (f: BuilderFn) => nearness(block.module, f.module);
  const found = p
    .usage()
    .usageOf(block.id)
    .builders.filter(
      (f) =>
        f.zeroArg &&
        !f.name.startsWith('_') &&
        f.sourceId === block.sourceId &&
        f.path !== block.path &&
        !f.scope.includes('.') &&
        near(f) >= 0,
    )
    .sort((a, b) => near(b) - near(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  const seen = new Set<string>();
  return found
    .filter((f) => !seen.has(`${f.path}\0${f.name}`) && seen.add(`${f.path}\0${f.name}`))
    .slice(0, MAX_BUILDERS);
}

const abstractOf = new WeakMap<Prepared, Set<string>>();

/** The ids of the run's abstract blocks (no concrete forward, or abstract methods under ABCMeta). */
function abstractBlocks(p: Prepared): Set<string> {
  let ids = abstractOf.get(p);
  if (!ids) abstractOf.set(p, (ids = new Set(p.discovered.blocks.filter((b) => b.abstract).map((b) => b.id))));
  return ids;
}

/** Builders of other models assembled with a block for a composite recipe: each a full model, so few. */
const MAX_PART_BUILDERS = 3;

/**
 * The zero-argument builders of the block's source whose model may hold the block (usage mining, `partBuilders`),
 * that the emitted module holds for a composite recipe (docs/validate.md, "Recipes"): at most MAX_PART_BUILDERS,
 * nearest first, one per model class before a second of any (if a Faster R-CNN builder's model does not hold it,
 * another Faster R-CNN's will not either, a Mask R-CNN's may). None for a block with builders of its own: it is a
 * model, built by them.
 */
export function partBuilders(p: Prepared, block: Block): PartBuilder[] {
  if (zeroArgBuilders(p, block).length) return [];
  // A model that is an abstract block (a forward that only raises: ultralytics' SAM2Model points to its video
  // predictor) reaches no part: its build alone was 4 GB for each of six SAM 2 parts. The runner checks again.
  const abstract = abstractBlocks(p);
  const all = p
    .usage()
    .partBuilders(block.id)
    .filter((b) => !abstract.has(b.blockId));
  const models = new Set<string>();
  const first = all.filter((b) => !models.has(b.blockId) && models.add(b.blockId));
  return [...first, ...all.filter((b) => !first.includes(b))].slice(0, MAX_PART_BUILDERS);
}

/** Classes offered per class-valued parameter (the first in source order are tried first by the runner). */
const MAX_LAYERS_PER_PARAM = 2;

/** Parameters that take a class by name when they carry no annotation: `block`, `conv_builder`, `stem_constructor`. */
const CLASS_PARAM = /(^|_)(block|builder|constructor|maker)$/;
/** Words of a parameter's name that say nothing about which class it takes. */
const GENERIC_WORDS = new Set(['layer', 'type', 'builder', 'constructor', 'maker', 'class', 'func', 'module']);

/**
 * The sibling class an unannotated parameter takes an *instance* of, as the runner picks it (infer.py,
 * instance_class): the one its name in CamelCase names (`motion_encoder` -> MotionEncoder in RAFT's UpdateBlock),
 * else, for a name of two words or more that takes no class (not `conv_block`), the one class ending so
 * (`encoder_layer` -> TransformerEncoderLayer).
 */
function instanceClass<C extends { qualname: string }>(name: string, siblings: C[]): C | undefined {
  const camel = name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  const exact = siblings.find((c) => c.qualname === camel);
  if (exact || !name.includes('_') || CLASS_PARAM.test(name)) return exact;
  const suffixed = siblings.filter((c) => c.qualname.endsWith(camel));
  return suffixed.length === 1 ? suffixed[0] : undefined;
}

/**
 * The classes of a block's own module that may fill its required class-valued constructor parameters: for
 * `conv_builder: Callable[..., nn.Module]` in torchvision's video `BasicBlock`, `Conv3DSimple` and `Conv2Plus1D`
 * (a class named in the annotation, else one whose name holds a word of the parameter's: `conv`). The emitted
 * module holds them, so the runner's inference can pick one (docs/validate.md, "Recipes"). Also the sibling an
 * unannotated parameter names in CamelCase, whose instance the runner builds.
 */
export function layerClasses(mod: IndexedModule, block: Block): string[] {
  const init = classAt(mod, block.stmt, block.name)?.methods.find((m) => m.name === '__init__');
  if (!init) return [];
  const siblings = mod.facts.classes.filter((c) => !c.qualname.includes('.') && c.qualname !== block.qualname);
  const out: string[] = [];
  for (const param of init.params.slice(1)) {
    if (param.default !== undefined || param.kind === 'var-positional' || param.kind === 'var-keyword') continue;
    const ann = param.annotation ?? '';
    const instance = ann ? undefined : instanceClass(param.name, siblings);
    if (instance) {
      if (!out.includes(instance.qualname)) out.push(instance.qualname);
      continue;
    }
    if (!(/^(typing\.)?(Callable|Type)\b/.test(ann) || (!ann && CLASS_PARAM.test(param.name)))) continue;
    const named = siblings.filter((c) => new RegExp(`\\b${c.qualname}\\b`).test(ann));
    const words = param.name
      .toLowerCase()
      .split('_')
      .filter((w) => w.length >= 4 && !GENERIC_WORDS.has(w));
    const worded = siblings.filter((c) => words.some((w) => c.qualname.toLowerCase().includes(w)));
    for (const c of (named.length ? named : worded).slice(0, MAX_LAYERS_PER_PARAM))
      if (!out.includes(c.qualname)) out.push(c.qualname);
  }
  return out;
}

/** A block's config override: by id, name or `module.qualname` (docs/config.md, "Validate"). */
export function overrideFor(
  overrides: Record<string, ValidateOverride> | undefined,
  b: Block,
): ValidateOverride | undefined {
  if (!overrides) return undefined;
  return overrides[b.id] ?? overrides[b.name] ?? overrides[`${b.module}.${b.qualname}`];
}

/** The `.Name` targets of an override's instances (`{"class": ".TwoWayTransformer"}`), nested ones too. */
function relativeClasses(v: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => relativeClasses(x, out));
  else if (v && typeof v === 'object') {
    const o = v as { class?: unknown; kwargs?: Record<string, unknown>; tuple?: unknown };
    if (typeof o.class === 'string' && o.class.startsWith('.')) out.add(o.class.slice(1));
    relativeClasses(o.tuple, out);
    for (const x of Object.values(o.kwargs ?? {})) relativeClasses(x, out);
  }
  return out;
}

/**
 * Where the classes an override builds instances of are defined, for the emitted module to hold them: `.Name` is a
 * class of the block's own module, else of the nearest module of its package that defines it (SAM's MaskDecoder
 * takes a `.TwoWayTransformer`, defined beside it in `modeling/transformer.py`). Upstream's package exports it the same
 * way to the original (replay.py resolves `.Name` up the packages for fidelity). A name no module defines is left to
 * fail in validation, saying so.
 */
export function overrideClasses(
  p: Prepared,
  block: Block,
  override: ValidateOverride | undefined,
): { path: string; name: string }[] {
  const names = relativeClasses(Object.values(override?.kwargs ?? {}), new Set());
  const out: { path: string; name: string }[] = [];
  for (const name of names) {
    const homes = p.index.modules
      .filter(
        (m) =>
          m.sourceId === block.sourceId &&
          m.module &&
          nearness(block.module, m.module) >= 0 &&
          m.facts.classes.some((c) => c.qualname === name),
      )
      .sort(
        (a, b) =>
          Number(b.path === block.path) - Number(a.path === block.path) ||
          nearness(block.module, b.module!) - nearness(block.module, a.module!) ||
          (a.path < b.path ? -1 : 1),
      );
    if (homes.length) out.push({ path: homes[0].path, name });
  }
  return out;
}
