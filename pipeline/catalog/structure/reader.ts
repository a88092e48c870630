// The static structure of every block of a build: its class read with its corpus bases (children a base's
// `__init__` registers come first, as `super().__init__()` registers them; the forward is the one the block uses),
// its features (features.ts), the roles of its children (roles.ts) and the features of the corpus classes its
// children are (`childFeatures`: a CBAM holds a channel gate and a spatial gate). Readings are memoized per class,
// so a block's facts never depend on which other blocks a shard holds: sharded and whole builds agree.
import { existsSync, readFileSync } from 'node:fs';
import type { Block } from '../../discover/discover.ts';
import type { IndexedModule } from '../../index/types.ts';
import type { ClassFact } from '../../parse/facts.ts';
import type { Program } from '../../resolve/program.ts';
import { structureOf, type ChildFact, type ChildRole } from '../roles.ts';
import { featuresOf, type Feature } from './features.ts';
import { classAtLine, moduleFunctions, readClass, type ClassReading, type ReadChild } from './read-class.ts';
import { parsePython, type Node } from './syntax.ts';
import { SpecMemo } from '../spec-memo.ts';

/** What the taxonomy and the category rules read of a block's structure (docs/taxonomy.md, "Structure"). */
export interface StructureFacts {
  /** Direct submodules as `__init__` assigns them (static reading). */
  children: ChildFact[];
  /** Roles of the direct submodules, neutral ones left out: from the built tree when there is one, else static. */
  roles: ChildRole[];
  /** The block's own features. */
  features: Feature[];
  /** Features of the corpus classes its direct submodules are. */
  childFeatures: Feature[];
  /** Methods the class and its corpus bases define. */
  methods: string[];
}

interface Located {
  mod: IndexedModule;
  cls: ClassFact;
  /** `<module>.<qualname>` */
  qualified: string;
}

/** Module trees kept parsed at once: blocks come module by module, so a few are enough. */
const TREE_CACHE = 8;

export class StructureReader {
  private readonly trees = new Map<string, { root: Node; functions: Map<string, Node> } | null>();
  private readonly readings = new Map<string, ClassReading | null>();
  private readonly merged = new Map<string, ClassReading | null>();
  private readonly features = new Map<string, Feature[] | undefined>();
  private readonly blocksByQualified = new Map<string, Block>();
  /** `<sourceId>\0<name>` → blocks of that name in the source. */
  private readonly blocksByName = new Map<string, Block[]>();

  constructor(
    private readonly program: Program,
    blocks: readonly Block[],
    /** Where class readings are kept between runs (a reading is a function of its module's blob). */
    private readonly memo = new SpecMemo(),
  ) {
    for (const b of blocks) {
      this.blocksByQualified.set(`${b.module}.${b.qualname}`, b);
      const key = `${b.sourceId}\0${b.name}`;
      this.blocksByName.set(key, [...(this.blocksByName.get(key) ?? []), b]);
    }
  }

  /** A block's structure; `tree` (validation's built module) gives the roles when present. */
  factsOf(b: Block, tree?: { children: ChildFact[] }): StructureFacts {
    const reading = this.blockReading(b) ?? { children: [], parameters: [], flow: null, methods: [] };
    const children = reading.children.map(childFact);
    const lookup = (type: string) => this.childFeatures(type, b);
    const childFeatures = new Set<Feature>();
    for (const c of tree?.children ?? children) for (const f of lookup(c.type) ?? []) childFeatures.add(f);
    return {
      children,
      roles: structureOf(tree?.children ?? children, lookup),
      features: featuresOf(reading),
      childFeatures: [...childFeatures].sort(),
      methods: reading.methods,
    };
  }

  private blockReading(b: Block): ClassReading | null {
    const key = `${b.module}.${b.qualname}`;
    if (this.merged.has(key)) return this.merged.get(key)!;
    const own = this.locate(key, b.sourceId);
    const chain = [own, ...b.baseChain.map((q) => this.locate(q, b.sourceId))].filter((x): x is Located => Boolean(x));
    const readings = chain.map((l) => ({ at: l, r: this.reading(l) })).filter((x) => x.r !== null);
    let out: ClassReading | null = null;
    if (readings.length > 0) {
      const children: ReadChild[] = [];
      // Farthest base first: its `__init__` ran first (through super()); a subclass's assignment replaces in place.
      for (const { r } of [...readings].reverse())
        for (const c of r!.children) {
          const at = children.findIndex((x) => x.name === c.name);
          if (at >= 0) children[at] = c;
          else children.push(c);
        }
      const forward = readings.find((x) => x.at.qualified === b.forwardFrom) ?? readings.find((x) => x.r!.flow);
      out = {
        children,
        parameters: readings.flatMap((x) => x.r!.parameters),
        flow: forward?.r!.flow ?? null,
        methods: [...new Set(readings.flatMap((x) => x.r!.methods))].sort(),
      };
    }
    this.merged.set(key, out);
    return out;
  }

  /** The features of the corpus class a child's type names, read in the context of the block holding it. */
  private childFeatures(type: string, from: Block): Feature[] | undefined {
    const target = this.resolveType(type, from);
    if (!target) return undefined;
    if (this.features.has(target.qualified)) return this.features.get(target.qualified);
    const block = this.blocksByQualified.get(target.qualified);
    const r = block ? this.blockReading(block) : this.reading(target);
    const f = r ? featuresOf(r) : undefined;
    this.features.set(target.qualified, f);
    return f;
  }

  /** A type as written (`Attention`, `attn.WindowMSA`) or qualified (`pkg.mod.Attention`) to the class it names. */
  private resolveType(type: string, from: Block): Located | undefined {
    const direct = this.locate(type, from.sourceId);
    if (direct) return direct;
    const mod = this.program.moduleAt(from.sourceId, from.path);
    const [head, ...rest] = type.split('.');
    if (mod?.module) {
      if (rest.length === 0) {
        const local = this.locate(`${mod.module}.${type}`, from.sourceId);
        if (local) return local;
      }
      for (const imp of mod.facts.imports) {
        const name = imp.names.find((n) => n.bound === head);
        if (!name) continue;
        const base = imp.kind === 'from' ? resolveFrom(mod, imp.level, imp.module) : '';
        const target = imp.kind === 'from' ? [base, name.name, ...rest].join('.') : [name.name, ...rest].join('.');
        const found = this.locate(target, from.sourceId);
        if (found) return found;
      }
    }
    // A name the module reaches some other way (a re-export, a star import): the source's one class of that name.
    const same = this.blocksByName.get(`${from.sourceId}\0${type.slice(type.lastIndexOf('.') + 1)}`) ?? [];
    return same.length === 1 ? this.locate(`${same[0].module}.${same[0].qualname}`, from.sourceId) : undefined;
  }

  /** A qualified class name to its module and class facts (the longest module prefix that holds it). */
  private locate(qualified: string, sourceId: string): Located | undefined {
    const parts = qualified.split('.');
    for (let i = parts.length - 1; i >= 1; i--) {
      const mod = this.program.findModule(parts.slice(0, i).join('.'), sourceId);
      if (!mod) continue;
      const qual = parts.slice(i).join('.');
      const cls = mod.facts.classes.find((c) => c.qualname === qual);
      if (cls) return { mod, cls, qualified: `${mod.module}.${qual}` };
    }
    return undefined;
  }

  private reading(l: Located): ClassReading | null {
    const key = `${l.mod.sourceId}\0${l.qualified}`;
    if (this.readings.has(key)) return this.readings.get(key)!;
    const r = this.memo.get(['reading', l.mod.blob, String(l.cls.line)], () => {
      const t = this.tree(l.mod);
      const node = t ? classAtLine(t.root, l.cls.line) : undefined;
      return node ? readClass(node, t!.functions) : null;
    });
    this.readings.set(key, r);
    return r;
  }

  private tree(mod: IndexedModule): { root: Node; functions: Map<string, Node> } | null {
    const key = mod.absPath;
    if (this.trees.has(key)) {
      const t = this.trees.get(key)!;
      this.trees.delete(key);
      this.trees.set(key, t);
      return t;
    }
    let t: { root: Node; functions: Map<string, Node> } | null = null;
    if (existsSync(mod.absPath)) {
      const root = parsePython(readFileSync(mod.absPath, 'utf8'));
      t = { root, functions: moduleFunctions(root) };
    }
    this.trees.set(key, t);
    if (this.trees.size > TREE_CACHE) this.trees.delete(this.trees.keys().next().value!);
    return t;
  }
}

/** `from ..x import y` in module `mod`: the absolute module name `x` stands for. */
function resolveFrom(mod: IndexedModule, level: number, name: string): string {
  if (level === 0) return name;
  const parts = mod.module!.split('.');
  const pkg = mod.isPackage ? parts : parts.slice(0, -1);
  const base = pkg.slice(0, pkg.length - (level - 1));
  return [...base, ...(name ? [name] : [])].join('.');
}

export function childFact(c: ReadChild): ChildFact {
  return {
    name: c.name,
    type: c.type,
    ...(c.parts ? { children: c.parts.map(childFact) } : {}),
    ...(c.hint ? { hint: c.hint } : {}),
    ...(c.repeated ? { repeated: true } : {}),
  };
}
