// Which blocks of its source a block may be built with where it takes module instances (a `backbone`, a `neck`
// config): the slots its source reads (usage/instances.ts), each with the blocks that fit, best first. The extract
// step assembles the chosen classes with the block; the validate step hands them to the runner as `instance`
// candidates (docs/validate.md, "Recipes"). Static and deterministic: the same index gives the same choices, so
// `nnblocks extract` writes the module a recipe replays on.
import { readFileSync } from 'node:fs';
import { classAt, type Block } from '../discover/discover.ts';
import type { ClassFact } from '../parse/facts.ts';
import type { IndexedModule } from '../index/types.ts';
import {
  fit,
  forwardReturns,
  instanceSlots,
  providerMembers,
  type InstanceSlot,
  type ProviderFacts,
} from '../usage/instances.ts';
import type { UsageValue } from '../usage/types.ts';
import { configTypeNames } from '../resolve/registry-keys.ts';
import type { Prepared } from './prepare.ts';

/** Classes offered per slot, and slots per block: each combination is a candidate the runner builds. */
const MAX_CHOICES = 3;
const MAX_SLOTS = 3;
/** Combinations tried per block (the best of every slot first, then one slot's next choice at a time). */
const MAX_COMBINATIONS = 4;

export interface InstanceChoice {
  param: string;
  /** The block builds the module itself from a config (`MODELS.build(neck)`): it gets `dict(type=Name, ...)`. */
  config: boolean;
  /**
   * Classes that fit, best first: where they are defined (for the extract step; `module` for fidelity, which
   * builds the original's) and their block id.
   */
  choices: { path: string; module: string; name: string; blockId: string }[];
}

/**
 * How near a module is to a block's: the dotted segments their names share (`segment_anything.build_sam` and
 * `segment_anything.modeling.sam` share 1); -1 when they are of different packages. Top-level modules of a flat
 * repository (DINO's `vision_transformer`, `utils`) are each other's siblings.
 */
export function nearness(blockModule: string, module: string): number {
  const a = blockModule.split('.');
  const b = module.split('.');
  if (a.length === 1 && b.length === 1) return 0;
  let n = 0;
  while (n < a.length - 1 && n < b.length - 1 && a[n] === b[n]) n++;
  return n === 0 ? -1 : n;
}

/** A decorator that registers a class in a registry, as usage mining reads it (`@MODELS.register_module()`). */
const REGISTERS = /(?:^|\.)register(?:_module)?\s*(\([\s\S]*\))?$/;

/** Per prepared run: providers' facts, read once (a source's blocks are every block's candidates). */
const providers = new WeakMap<Prepared, Map<string, ProviderFacts>>();

function classText(mod: IndexedModule, cls: ClassFact): string {
  try {
    return readFileSync(mod.absPath).subarray(cls.span.startByte, cls.span.endByte).toString('utf8');
  } catch {
    return '';
  }
}

/** The module and class a qualified name (`models.backbone.BackboneBase`, as a base chain names it) denotes. */
function classIn(p: Prepared, qualified: string, fromSource: string): { mod: IndexedModule; cls: ClassFact } | null {
  for (let i = qualified.lastIndexOf('.'); i > 0; i = qualified.lastIndexOf('.', i - 1)) {
    const mod = p.program.findModule(qualified.slice(0, i), fromSource);
    const cls = mod?.facts.classes.find((c) => c.qualname === qualified.slice(i + 1));
    if (mod && cls) return { mod, cls };
  }
  return null;
}

/**
 * What a block offers as an instance: its own members and those of the classes of its base chain the corpus has
 * (DETR's `Backbone` sets no `num_channels`, its base `BackboneBase` does), and what the forward it uses returns.
 */
function providerOf(p: Prepared, b: Block): ProviderFacts | undefined {
  let memo = providers.get(p);
  if (!memo) providers.set(p, (memo = new Map()));
  const known = memo.get(b.id);
  if (known) return known;
  const mod = p.program.moduleAt(b.sourceId, b.path);
  const cls = mod && classAt(mod, b.stmt, b.name);
  if (!mod || !cls) return undefined;
  const members = providerMembers(
    classText(mod, cls),
    cls.methods.map((m) => m.name),
    cls.attributes,
  );
  for (const q of b.baseChain) {
    const base = classIn(p, q, b.sourceId);
    if (!base) continue;
    const text = classText(base.mod, base.cls);
    const of = providerMembers(
      text,
      base.cls.methods.map((m) => m.name),
      base.cls.attributes,
    );
    for (const name of of) members.add(name);
  }
  const out: ProviderFacts = {
    members,
    registered: cls.decorators.some((d) => REGISTERS.test(d)),
    bases: b.baseChain.map((q) => q.slice(q.lastIndexOf('.') + 1)),
  };
  const home = b.forwardFrom === `${b.module}.${b.qualname}` ? { mod, cls } : classIn(p, b.forwardFrom, b.sourceId);
  const forward = home?.cls.methods.find((m) => m.name === 'forward');
  const returns =
    home && forward ? forwardReturns(classText(home.mod, { ...home.cls, span: forward.span })) : undefined;
  if (returns) out.returns = returns;
  memo.set(b.id, out);
  return out;
}

/** The required parameters of the `__init__` a block runs (its own, else its first base's that defines one). */
function requiredParams(p: Prepared, b: Block, own: ClassFact) {
  const init = [own, ...b.baseChain.map((q) => p.program.classNamed(q))]
    .map((c) => c?.methods.find((m) => m.name === '__init__'))
    .find((m) => m !== undefined);
  return (init?.params.slice(1) ?? []).filter(
    (x) => x.default === undefined && (x.kind === 'positional' || x.kind === 'keyword-only'),
  );
}

/** The source of a class's own `__init__`, or undefined when it has none (its base's runs). */
function initText(mod: IndexedModule, cls: ClassFact): string | undefined {
  const init = cls.methods.find((m) => m.name === '__init__');
  return init ? classText(mod, { ...cls, span: init.span }) : undefined;
}

/**
 * The instance slots of a block with the blocks of its source that fit each (usage/instances.ts `fit`), best fit
 * first, then the nearest module, then the smallest class (none for a slot no block fits). None for a
 * block with builders of its own (a model: its builders make it) or a config override (nothing else is tried).
 */
export function instanceChoices(p: Prepared, block: Block, hasBuilders: boolean): InstanceChoice[] {
  if (hasBuilders || block.abstract) return [];
  const mod = p.program.moduleAt(block.sourceId, block.path);
  const own = mod && classAt(mod, block.stmt, block.name);
  if (!mod || !own) return [];
  const slots: InstanceSlot[] = instanceSlots(classText(mod, own), requiredParams(p, block, own), initText(mod, own));
  if (!slots.length) return [];
  const self = `${block.module}.${block.qualname}`;
  const pool = p.discovered.blocks.filter(
    (b) =>
      b.sourceId === block.sourceId &&
      b.id !== block.id &&
      !b.abstract &&
      !b.qualname.includes('.') &&
      !b.baseChain.includes(self) &&
      nearness(block.module, b.module) >= 0,
  );
  const out: InstanceChoice[] = [];
  for (const slot of slots.slice(0, MAX_SLOTS)) {
    const ranked = pool
      .flatMap((b) => {
        const facts = providerOf(p, b);
        const score = facts ? fit(slot, b.name, facts) : null;
        return score === null ? [] : [{ b, score }];
      })
      .sort(
        (x, y) =>
          y.score - x.score ||
          nearness(block.module, y.b.module) - nearness(block.module, x.b.module) ||
          x.b.span.endByte - x.b.span.startByte - (y.b.span.endByte - y.b.span.startByte) ||
          (x.b.id < y.b.id ? -1 : 1),
      );
    out.push({
      param: slot.param,
      config: slot.config,
      choices: ranked
        .slice(0, MAX_CHOICES)
        .map(({ b }) => ({ path: b.path, module: b.module, name: b.qualname, blockId: b.id })),
    });
  }
  return out;
}

/**
 * The combinations the runner tries, each a parameter → class map: every slot's best first, then one slot's next
 * choice at a time, at most MAX_COMBINATIONS.
 */
export function instanceCombinations(
  all: InstanceChoice[],
): Record<string, { class: string; module: string; config?: true }>[] {
  const slots = all.filter((s) => s.choices.length > 0);
  if (!slots.length) return [];
  const pick = (i: number, k: number) =>
    Object.fromEntries(
      slots.map((s, j) => {
        const c = s.choices[j === i ? k : 0];
        return [s.param, { class: `.${c.name}`, module: c.module, ...(s.config ? { config: true as const } : {}) }];
      }),
    );
  const out = [pick(-1, 0)];
  for (let k = 1; k < MAX_CHOICES; k++)
    slots.forEach((s, i) => {
      if (s.choices[k]) out.push(pick(i, k));
    });
  return out.slice(0, MAX_COMBINATIONS);
}

/** Registered classes assembled per block for the config dicts of its construction sites. */
const MAX_CONFIG_CLASSES = 4;

/**
 * The registered classes the config dicts of a block's construction sites name (`backbone=dict(type='ResNet',
 * depth=50)` in `ImageClassifier(...)`), nested ones too, in site order: the block builds them through its
 * registry, which knows them once their class statements ran, so the extract step assembles them with the block.
 */
export function configClasses(p: Prepared, block: Block): { path: string; name: string }[] {
  const { byId: blocks, byName } = blockMaps(p.discovered.blocks);
  const out: { path: string; name: string }[] = [];
  const visit = (v: UsageValue) => {
    if (v.kind === 'list') v.items.forEach(visit);
    if (v.kind !== 'config') return;
    const b = v.blockId ? blocks.get(v.blockId) : undefined;
    if (b && b.sourceId === block.sourceId && !out.some((c) => c.path === b.path && c.name === b.qualname))
      out.push({ path: b.path, name: b.qualname });
    v.args.forEach((a) => visit(a.value));
  };
  for (const s of p.usage().usageOf(block.id).constructions) s.args.forEach((a) => visit(a.value));
  for (const name of defaultConfigTypes(p, block)) {
    // By name among the source's blocks, the nearest module first (mmdet's `SSDAnchorGenerator` beside its head).
    const b = (byName.get(`${block.sourceId}\0${name}`) ?? [])
      .slice()
      .sort((x, y) => nearness(block.module, y.module) - nearness(block.module, x.module) || (x.id < y.id ? -1 : 1))[0];
    if (b && !out.some((c) => c.path === b.path && c.name === b.qualname)) out.push({ path: b.path, name: b.qualname });
  }
  return out.slice(0, MAX_CONFIG_CLASSES);
}

/**
 * The discovered blocks by id and by source and name, made once per discovery: made per block, the maps were
 * quadratic (1.5 s of a warm build of the paper's 3,556 blocks).
 */
const maps = new WeakMap<readonly Block[], { byId: Map<string, Block>; byName: Map<string, Block[]> }>();
function blockMaps(blocks: readonly Block[]): { byId: Map<string, Block>; byName: Map<string, Block[]> } {
  let m = maps.get(blocks);
  if (!m) {
    m = { byId: new Map(blocks.map((b) => [b.id, b])), byName: new Map() };
    for (const b of blocks) {
      const key = `${b.sourceId}\0${b.name}`;
      const list = m.byName.get(key);
      if (list) list.push(b);
      else m.byName.set(key, [b]);
    }
    maps.set(blocks, m);
  }
  return m;
}

/**
 * The registered names that the config dicts among the block's constructor defaults name
 * (`anchor_generator=dict(type='SSDAnchorGenerator', ...)`): the block builds them through its registry when built
 * with its defaults, as validation builds it.
 */
function defaultConfigTypes(p: Prepared, block: Block): string[] {
  const mod = p.program.moduleAt(block.sourceId, block.path);
  const cls = mod ? classAt(mod, block.stmt, block.name) : undefined;
  const init = cls?.methods.find((m) => m.name === '__init__');
  const out = new Set<string>();
  for (const param of init?.params ?? []) for (const name of configTypeNames(param.default ?? '')) out.add(name); // `type='SSDAnchorGenerator'`
  return [...out];
}
