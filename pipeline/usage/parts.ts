// Which zero-argument builders make a model that may hold a block: the candidates of a composite (`part`) recipe
// (docs/validate.md, "Recipes"). Walks up from the block through where the corpus builds it, to the class or
// module-level function that does, and on through where those are built or called, until builders:
//   class RegionProposalNetwork(nn.Module): ...            # the block
//   class FasterRCNN(GeneralizedRCNN):
//       def __init__(self, backbone, ...): rpn = RegionProposalNetwork(...)   # up: FasterRCNN holds one
//   def fasterrcnn_resnet50_fpn(*, weights=None, **kwargs): return FasterRCNN(backbone, ...)  # a builder of it
//   class MaskRCNN(FasterRCNN): def __init__(...): super().__init__(...)    # up: so does a MaskRCNN
//   def _resnet_fpn_extractor(backbone, ...): return BackboneWithFPN(...)   # a function: up to its callers
// Static and over-approximate (a class named where a callable goes counts as built there); the runner keeps a
// builder only when the model it makes holds a submodule of exactly the block's class.
import type { IndexedModule } from '../index/types.ts';
import { staticSize } from './choose-builders.ts';
import { scopeOf, type UsageCorpus } from './corpus.ts';
import type { Flow } from './flow.ts';
import type { BlockUsage, BuilderFn, PartBuilder } from './types.ts';

/** Levels walked up from a block, and nodes visited per block: a layer built in a hundred places stops early. */
const MAX_DEPTH = 6;
const MAX_NODES = 400;

/** A node of the walk: a class (`c:` + its key) or a module-level function (`f:` + its key). */
type Node = string;

export class PartBuilders {
  constructor(
    private readonly corpus: UsageCorpus,
    private readonly flow: Flow,
    private readonly usageOf: (blockId: string) => BlockUsage,
    /** Zero-argument module-level builders by function key, with the (first) model class each builds. */
    private readonly zeroArg: ReadonlyMap<string, BuilderFn>,
  ) {}

  /**
   * Zero-argument builders of the block's own source whose model may hold it, nearest first (fewest levels up,
   * then the smallest static configuration, then source order), each with the model class it builds (`blockId`)
   * and how many levels up it was found. A builder of the block itself is not one: that is a plain builder recipe.
   */
  of(blockId: string, sourceId: string): PartBuilder[] {
    const start: Node = `c:${blockId}`;
    const out: PartBuilder[] = [];
    const seen = new Set<Node>([start]);
    let level: Node[] = [start];
    for (let depth = 1; depth <= MAX_DEPTH && level.length && seen.size < MAX_NODES; depth++) {
      const next: Node[] = [];
      for (const node of level) {
        for (const owner of this.owners(node, node === start)) {
          if (seen.has(owner) || seen.size >= MAX_NODES) continue;
          seen.add(owner);
          next.push(owner);
          const b = owner.startsWith('f:') ? this.zeroArg.get(owner.slice(2)) : undefined;
          if (b && b.blockId !== blockId && b.sourceId === sourceId) out.push({ ...b, depth });
        }
      }
      level = next;
    }
    // Smallest first among the builders of one level: only the first few are offered (a model zoo's file lists its
    // giants first: timm's eva.py starts with eva_giant, 1 G parameters, whose build alone meets the memory limit).
    return out.sort((a, b) => a.depth - b.depth || staticSize(a.args) - staticSize(b.args) || byPlace(a, b));
  }

  /**
   * Where a node is built or called, as the class or function doing it. A class: its construction sites (a
   * subclass's `super().__init__` too, except for the block itself: an instance of the subclass is not one); one
   * that is not a discovered block (`symbols` left it out) has none mined, so the call sites of its `__init__`
   * stand in. A function: its call sites.
   */
  private owners(node: Node, isBlock: boolean): Node[] {
    const out: Node[] = [];
    const cls = node.startsWith('c:') ? this.corpus.classes.get(node.slice(2)) : undefined;
    if (cls?.block) {
      for (const s of this.usageOf(cls.key).constructions) {
        if (isBlock && s.via === 'super') continue;
        const mod = this.corpus.program.moduleAt(s.sourceId, s.path);
        const owner = mod && this.owner(mod, s.scope);
        if (owner) out.push(owner);
      }
    } else if (cls) {
      const init = this.corpus.method(cls, '__init__');
      for (const c of init ? this.flow.callers(init.key) : []) {
        const owner = this.owner(c.mod, scopeOf(c.mod, c.call));
        if (owner) out.push(owner);
      }
    } else if (node.startsWith('f:')) {
      for (const c of this.flow.callers(node.slice(2))) {
        if (c.bound) continue;
        const owner = this.owner(c.mod, scopeOf(c.mod, c.call));
        if (owner) out.push(owner);
      }
    }
    return out;
  }

  /** The class whose method or body a scope is in, else the module-level function it is (or is nested in). */
  private owner(mod: IndexedModule, scope: string): Node | null {
    const cls = this.corpus.classOf(mod, scope);
    if (cls) return `c:${cls.key}`;
    const fn = this.corpus.fnOf(mod, scope.split('.<locals>.')[0]);
    return fn && !fn.cls ? `f:${fn.key}` : null;
  }
}

function byPlace(a: BuilderFn, b: BuilderFn): number {
  const ka = `${a.path}\0${String(a.line).padStart(8, '0')}`;
  const kb = `${b.path}\0${String(b.line).padStart(8, '0')}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
