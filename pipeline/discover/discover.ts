// The discover stage: finds blocks — classes whose bases reach torch.nn.Module (through any chain, across files and
// sources) and that define or inherit a forward below Module. Abstract blocks are listed and flagged.
// See docs/index.md ("Discovery").
import { createRequire } from 'node:module';
import type { Diagnostic, Span } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ClassFact } from '../parse/facts.ts';
import { Lookup } from '../resolve/lookup.ts';
import { type Defines, definesOf, namesAbcMeta, unimplemented } from './abc.ts';
import type { Program } from '../resolve/program.ts';
import { matchesBlock } from './symbols.ts';

const torchNn = createRequire(import.meta.url)('./torch-nn.json') as {
  root: string[];
  classes: Record<string, { forward: boolean }>;
};
const TORCH_ROOT = new Set(torchNn.root);
const TORCH_CLASSES = new Map(Object.entries(torchNn.classes));

export interface Block {
  /** `<sourceId>:<module>.<qualname>`, stable across runs. */
  id: string;
  sourceId: string;
  module: string;
  qualname: string;
  name: string;
  path: string;
  line: number;
  span: Span;
  /** Index of the top-level statement holding the class. */
  stmt: number;
  /** Qualified names from the block up to torch.nn.Module, first base first: the chain that made it a Module. */
  baseChain: string[];
  /** Qualified name of the class whose forward the block uses. */
  forwardFrom: string;
  /** No concrete forward, or abstract methods left unimplemented under ABCMeta (Python refuses to build it). */
  abstract: boolean;
}

export interface DiscoverResult {
  blocks: Block[];
  /** Classes reaching Module without a usable forward (containers like ModuleList subclasses). */
  withoutForward: number;
  diagnostics: Diagnostic[];
}

/** One class in a method resolution order, with the forward it defines itself (if any). */
interface MroEntry {
  name: string;
  forward: { from: string; abstract: boolean } | null;
  /** torch.nn.Module: its forward is the placeholder, so the search for a forward stops here. */
  root: boolean;
  /** The methods and class attributes the class defines itself (abc.ts). */
  defines: Defines;
}

interface ClassInfo {
  isModule: boolean;
  /** The chain to Module (qualified names), empty when not a Module. */
  chain: string[];
  /** The class's MRO as far as it is known (the class first); unknown external bases contribute nothing. */
  mro: MroEntry[];
  /** The first forward in the MRO before torch.nn.Module. */
  forward: { from: string; abstract: boolean } | null;
  /** Its metaclass is ABCMeta: named, or inherited from a base (`abc.ABC`). */
  abc: boolean;
  /**
   * Some class of its MRO is outside the index (an external base other than torch's and `abc.ABC`, or a base that
   * doesn't resolve): it may implement what looks abstract, so the class is never called abstract for it.
   */
  opaque: boolean;
}

const NOT_MODULE: ClassInfo = { isModule: false, chain: [], mro: [], forward: null, abc: false, opaque: false };
const OPAQUE: ClassInfo = { ...NOT_MODULE, opaque: true };
const ABC_BASE: ClassInfo = { ...NOT_MODULE, abc: true };
const ROOT: MroEntry = { name: 'torch.nn.Module', forward: null, root: true, defines: [] };
const ROOT_INFO: ClassInfo = { ...NOT_MODULE, isModule: true, chain: ['torch.nn.Module'], mro: [ROOT] };
/** External bases that add no method a subclass could be missing (`abc.ABC` only brings the metaclass: ABC_BASE). */
const TRANSPARENT = new Set(['typing.Generic', 'typing.Protocol', 'typing_extensions.Protocol']);

/**
 * Python's C3 linearization: the class, then the merge of its bases' MROs and the list of bases. A merge that
 * gets stuck (Python refuses such a class with a TypeError) keeps the remaining classes depth-first.
 *   class D(B, C): ...   # with B(A), C(A): D, B, C, A — so C.forward beats A.forward
 */
function linearize(head: MroEntry, bases: MroEntry[][]): MroEntry[] {
  const out = [head];
  const lists = [...bases.map((m) => [...m]), bases.map((m) => m[0])].filter((l) => l.length > 0);
  while (lists.length) {
    const pick = lists.map((l) => l[0]).find((c) => !lists.some((l) => l.slice(1).some((e) => e.name === c.name)));
    if (!pick) {
      for (const l of lists) for (const e of l) if (!out.some((o) => o.name === e.name)) out.push(e);
      return out;
    }
    out.push(pick);
    for (const l of lists) if (l[0].name === pick.name) l.shift();
    for (let i = lists.length - 1; i >= 0; i--) if (!lists[i].length) lists.splice(i, 1);
  }
  return out;
}

/** Method resolution, as Python does it: the first forward in the MRO; Module's own is the placeholder. */
function forwardOf(mro: MroEntry[]): ClassInfo['forward'] {
  for (const e of mro) {
    if (e.root) return null;
    if (e.forward) return e.forward;
  }
  return null;
}

/**
 * The dotted name a module-level alias statement binds, if the statement is exactly `Name = a.b.c`:
 *   Base = nn.Module   # `class A(Base)` is a Module subclass
 * Anything more (a call, a conditional, a second name) is not followed.
 */
export function aliasOf(mod: IndexedModule, stmt: number): string | null {
  const st = mod.facts.statements[stmt];
  if (!st || st.kind !== 'assign' || st.binds.length !== 1 || st.eager.length !== 1 || st.deferred.length) return null;
  const ref = st.eager[0];
  if (ref.occurrences.length !== 1) return null;
  const occ = ref.occurrences[0];
  const dotted = [ref.name, ...occ.attrs].join('.');
  // The read must be the whole right-hand side: it ends where the statement ends.
  return occ.startByte + Buffer.byteLength(dotted) === st.span.endByte ? dotted : null;
}

export interface DiscoverOptions {
  /** Per source: symbol patterns; when given, only matching blocks are kept. */
  symbols?: Map<string, string[]>;
  /** Sources to report on: each in which no block is found gets a `no-blocks` warning. */
  sources?: string[];
}

export function discoverBlocks(program: Program, opts: DiscoverOptions = {}): DiscoverResult {
  const lookup = new Lookup(program);
  const memo = new Map<string, ClassInfo>();
  const diagnostics: Diagnostic[] = [];
  const blocks: Block[] = [];
  let withoutForward = 0;

  const info = (mod: IndexedModule, cls: ClassFact, depth: number): ClassInfo => {
    const key = `${mod.sourceId}:${mod.module}.${cls.qualname}`;
    const hit = memo.get(key);
    if (hit) return hit;
    memo.set(key, NOT_MODULE); // a class inheriting from itself (through a cycle) is not a Module
    const own = cls.methods.find((m) => m.name === 'forward');
    const name = `${mod.module}.${cls.qualname}`;
    const forward = own ? { from: name, abstract: own.abstract } : null;
    const self: MroEntry = { name, forward, root: false, defines: definesOf(cls) };
    let chain: string[] | null = null;
    const baseMros: MroEntry[][] = [];
    let abc = namesAbcMeta(cls);
    let opaque = false;
    for (const base of cls.bases) {
      if (!base.dotted || depth > 50) {
        opaque = true;
        continue;
      }
      const sibling = siblingClass(mod, cls, base.dotted);
      const b = sibling ? info(mod, sibling, depth + 1) : baseInfo(mod, base.dotted, depth);
      if (b.mro.length) baseMros.push(b.mro);
      abc ||= b.abc;
      opaque ||= b.opaque;
      // The chain shown for a block is the first base's way to Module.
      if (b.isModule && !chain) chain = [name, ...b.chain];
    }
    const mro = linearize(self, baseMros);
    const result: ClassInfo = chain
      ? { isModule: true, chain, mro, forward: forwardOf(mro), abc, opaque }
      : { ...NOT_MODULE, mro, abc, opaque };
    memo.set(key, result);
    return result;
  };

  const baseInfo = (mod: IndexedModule, dotted: string, depth: number): ClassInfo => {
    const t = lookup.dotted(mod, dotted);
    if (t.kind === 'external') {
      if (TORCH_ROOT.has(t.qualified)) return ROOT_INFO;
      const known = TORCH_CLASSES.get(t.qualified);
      if (known) {
        const forward = known.forward ? { from: t.qualified, abstract: false } : null;
        return {
          ...NOT_MODULE,
          isModule: true,
          chain: [t.qualified, 'torch.nn.Module'],
          mro: [{ name: t.qualified, forward, root: false, defines: [] }, ROOT],
          forward,
        };
      }
      if (t.qualified === 'abc.ABC') return ABC_BASE;
      return TRANSPARENT.has(t.qualified) ? NOT_MODULE : OPAQUE;
    }
    if (t.kind === 'def') {
      const cls = classAt(t.mod, t.stmt, t.name);
      if (!cls) {
        const alias = depth < 50 ? aliasOf(t.mod, t.stmt) : null;
        return alias ? baseInfo(t.mod, alias, depth + 1) : OPAQUE;
      }
      // torch itself indexed as a source: its Module class is the root, like the external one.
      if (`${t.mod.module}.${cls.qualname}` === 'torch.nn.modules.module.Module') return ROOT_INFO;
      return info(t.mod, cls, depth + 1);
    }
    return t.kind === 'builtin' || t.kind === 'typing' ? NOT_MODULE : OPAQUE;
  };

  for (const mod of program.modules) {
    // Only the discovery scope holds blocks; the rest of the index is there for resolution (bases, closures).
    if (!mod.module || !mod.discover) continue;
    const patterns = opts.symbols?.get(mod.sourceId);
    for (const cls of mod.facts.classes) {
      if (cls.qualname.includes('<locals>')) continue; // defined inside a function: not importable by name
      const i = info(mod, cls, 0);
      if (!i.isModule) continue;
      const id = `${mod.sourceId}:${mod.module}.${cls.qualname}`;
      if (!i.forward) {
        withoutForward++;
        continue;
      }
      if (
        patterns &&
        patterns.length &&
        !matchesBlock(patterns, { name: cls.name, qualname: cls.qualname, module: mod.module, id })
      )
        continue;
      blocks.push({
        id,
        sourceId: mod.sourceId,
        module: mod.module,
        qualname: cls.qualname,
        name: cls.name,
        path: mod.path,
        line: cls.line,
        span: cls.span,
        stmt: cls.statementIndex,
        baseChain: i.chain.slice(1),
        forwardFrom: i.forward.from,
        abstract: i.forward.abstract || (i.abc && !i.opaque && unimplemented(i.mro).length > 0),
      });
    }
  }
  blocks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  diagnostics.push(...withoutBlocks(program, blocks, opts));
  return { blocks, withoutForward, diagnostics };
}

/** `1 class`, `2 classes`, `3 Python modules`. */
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : what.endsWith('s') ? 'es' : 's'}`;

/**
 * A source that yields no block is a warning, not a quiet zero: its includes may miss the models' folder, its
 * `symbols` may match nothing, or it has no `nn.Module` at all (`class Net(Model)` whose base is not a Module).
 */
function withoutBlocks(program: Program, blocks: Block[], opts: DiscoverOptions): Diagnostic[] {
  const found = new Set(blocks.map((b) => b.sourceId));
  return (opts.sources ?? [])
    .filter((id) => !found.has(id))
    .map((id) => {
      const scope = program.modules.filter((m) => m.sourceId === id && m.module && m.discover);
      const classes = scope.reduce((n, m) => n + m.facts.classes.length, 0);
      const symbols = opts.symbols?.get(id);
      return {
        code: 'no-blocks',
        severity: 'warning',
        stage: 'discover',
        source: id,
        message:
          `no block found: ${count(scope.length, 'Python module')} in the discovery scope, ${count(classes, 'class')}, none a ` +
          `torch.nn.Module with a forward${symbols?.length ? ` that the source's symbols (${symbols.join(', ')}) match` : ''}`,
        hint:
          "check the source's include/exclude and symbols (`nnblocks sources` lists its files); a block is a class whose " +
          'bases reach torch.nn.Module and that defines or inherits a forward',
      };
    });
}

/**
 * A nested class's bases are read in the enclosing class body, so they can name an earlier class of that body:
 *   class Holder:
 *       class Deep(nn.Module): ...
 *       class Deeper(Deep): ...   # Holder.Deep, not a module-level Deep
 */
function siblingClass(mod: IndexedModule, cls: ClassFact, dotted: string): ClassFact | undefined {
  const dot = cls.qualname.lastIndexOf('.');
  if (dot < 0 || cls.qualname.includes('<locals>')) return undefined;
  const prefix = cls.qualname.slice(0, dot + 1);
  const head = prefix + dotted.split('.')[0];
  const earlier = (c: ClassFact) => c.span.startByte < cls.span.startByte;
  if (!mod.facts.classes.some((c) => c.qualname === head && earlier(c))) return undefined;
  return mod.facts.classes.find((c) => c.qualname === prefix + dotted && earlier(c));
}

/** The module-level class that statement `stmt` binds as `name` (a class possibly nested in a module-level if/try). */
export function classAt(mod: IndexedModule, stmt: number, name: string): ClassFact | undefined {
  let found: ClassFact | undefined;
  for (const c of mod.facts.classes) {
    if (c.statementIndex === stmt && c.name === name && c.topLevel) found = c;
  }
  return found;
}
