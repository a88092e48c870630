// The discover stage: finds blocks — classes whose bases reach torch.nn.Module (through any chain, across files and
// sources) and that define or inherit a forward below Module. Abstract blocks are listed and flagged.
// See docs/index.md ("Discovery").
import { createRequire } from 'node:module';
import type { Diagnostic, Span } from '../diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ClassFact } from '../parse/facts.ts';
import { Lookup } from '../resolve/lookup.ts';
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
  abstract: boolean;
}

export interface DiscoverResult {
  blocks: Block[];
  /** Classes reaching Module without a usable forward (containers like ModuleList subclasses). */
  withoutForward: number;
  diagnostics: Diagnostic[];
}

interface ClassInfo {
  isModule: boolean;
  /** The chain to Module (qualified names), empty when not a Module. */
  chain: string[];
  forward: { from: string; abstract: boolean } | null;
}

const NOT_MODULE: ClassInfo = { isModule: false, chain: [], forward: null };

export interface DiscoverOptions {
  /** Per source: symbol patterns; when given, only matching blocks are kept. */
  symbols?: Map<string, string[]>;
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
    let result: ClassInfo = NOT_MODULE;
    let forward = own ? { from: `${mod.module}.${cls.qualname}`, abstract: own.abstract } : null;
    for (const base of cls.bases) {
      if (!base.dotted || depth > 50) continue;
      const b = baseInfo(mod, base.dotted, depth);
      if (!b.isModule) continue;
      if (!result.isModule) result = { isModule: true, chain: b.chain, forward: null };
      // Method resolution, simplified to depth-first over bases: the first base that has a forward provides it.
      if (!forward && b.forward) forward = b.forward;
    }
    if (result.isModule) result = { ...result, chain: [`${mod.module}.${cls.qualname}`, ...result.chain], forward };
    memo.set(key, result);
    return result;
  };

  const baseInfo = (mod: IndexedModule, dotted: string, depth: number): ClassInfo => {
    const t = lookup.dotted(mod, dotted);
    if (t.kind === 'external') {
      if (TORCH_ROOT.has(t.qualified)) return { isModule: true, chain: ['torch.nn.Module'], forward: null };
      const known = TORCH_CLASSES.get(t.qualified);
      if (known) {
        return {
          isModule: true,
          chain: [t.qualified, 'torch.nn.Module'],
          forward: known.forward ? { from: t.qualified, abstract: false } : null,
        };
      }
      return NOT_MODULE;
    }
    if (t.kind === 'def') {
      const cls = classAt(t.mod, t.stmt, t.name);
      if (!cls) return NOT_MODULE;
      // torch itself indexed as a source: its Module class is the root, like the external one.
      if (`${t.mod.module}.${cls.qualname}` === 'torch.nn.modules.module.Module') {
        return { isModule: true, chain: ['torch.nn.Module'], forward: null };
      }
      return info(t.mod, cls, depth + 1);
    }
    return NOT_MODULE;
  };

  for (const mod of program.modules) {
    if (!mod.module) continue;
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
        abstract: i.forward.abstract,
      });
    }
  }
  blocks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { blocks, withoutForward, diagnostics };
}

/** The module-level class that statement `stmt` binds as `name` (a class possibly nested in a module-level if/try). */
export function classAt(mod: IndexedModule, stmt: number, name: string): ClassFact | undefined {
  let found: ClassFact | undefined;
  for (const c of mod.facts.classes) {
    if (c.statementIndex === stmt && c.name === name && c.topLevel) found = c;
  }
  return found;
}
