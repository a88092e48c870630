// The discovery suite: each case indexes an inline package through the real stages and checks the blocks found;
// cases Python can import are checked against Python too (one interpreter for all of them).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { discoverBlocks, type DiscoverResult } from '../../pipeline/discover/discover.ts';
import { indexFolders } from '../helpers/corpus.ts';
import { testPython } from '../helpers/python.ts';
import { writeTree } from '../helpers/tree.ts';
import { cases, type DiscoverCase } from './cases.ts';

/**
 * Python's view of a case: 'module.Qualname' → where its forward comes from ('module.Qualname'), and the blocks it
 * refuses to instantiate (`inspect.isabstract`: abstract methods left unimplemented under ABCMeta).
 */
interface PythonBlocks {
  blocks: Record<string, string>;
  isabstract: string[];
}

// For each case: put its roots on sys.path, import every module, list the Module subclasses (module-level and
// nested in classes) whose forward is not Module's, then forget the case's modules before the next one.
const GROUND_TRUTH = `
import importlib, inspect, json, sys, warnings
import torch.nn as nn
warnings.simplefilter('ignore')
out = {}
for case in json.load(sys.stdin):
    found, isabstract = {}, []
    sys.path[:0] = case['roots']
    try:
        for name in case['modules']:
            mod = importlib.import_module(name)
            todo = [obj for obj in vars(mod).values() if inspect.isclass(obj) and obj.__module__ == name]
            while todo:
                cls = todo.pop()
                todo.extend(v for v in vars(cls).values() if inspect.isclass(v) and v.__module__ == name)
                if issubclass(cls, nn.Module) and cls.forward is not nn.Module.forward:
                    owner = next(k for k in cls.__mro__ if 'forward' in vars(k))
                    found[f'{name}.{cls.__qualname__}'] = f'{owner.__module__}.{owner.__qualname__}'
                    if inspect.isabstract(cls):
                        isabstract.append(f'{name}.{cls.__qualname__}')
        out[case['name']] = {'blocks': found, 'isabstract': sorted(isabstract)}
    except BaseException as e:
        out[case['name']] = {'error': f'{type(e).__name__}: {e}'}
    finally:
        del sys.path[:len(case['roots'])]
        for name in list(sys.modules):
            if name.split('.')[0] in case['tops']:
                del sys.modules[name]
        importlib.invalidate_caches()
print(json.dumps(out))
`;

interface Prepared {
  c: DiscoverCase;
  roots: string[];
  modules: string[];
  /** Unfiltered discovery (as Python sees it) and discovery with the case's symbols filter. */
  all: DiscoverResult;
  filtered: DiscoverResult;
}

async function prepare(c: DiscoverCase): Promise<Prepared> {
  const trees = c.sources ?? { fx: c.files! };
  const folders = Object.entries(trees).map(([id, tree]) => ({ id, root: writeTree(tree) }));
  const { program, index, discovered, store } = await indexFolders(folders);
  store.close();
  const symbols = new Map(Object.entries(c.symbols ?? {}));
  return {
    c,
    roots: folders.map((f) => f.root),
    modules: index.modules.flatMap((m) => (m.module ? [m.module] : [])).sort(),
    all: discovered,
    filtered: symbols.size ? discoverBlocks(program, { symbols }) : discovered,
  };
}

const dotted = (b: { module: string; qualname: string }) => `${b.module}.${b.qualname}`;

describe('discovery cases', () => {
  const prepared = new Map<string, Prepared>();
  const python = new Map<string, PythonBlocks | { error: string }>();

  it('indexes every case and asks Python about the importable ones', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const c of cases) prepared.set(c.name, await prepare(c));
    const importable = [...prepared.values()]
      .filter((p) => !p.c.notImportable)
      .map((p) => ({
        name: p.c.name,
        roots: p.roots,
        modules: p.modules,
        tops: [...new Set(p.modules.map((m) => m.split('.')[0]))],
      }));
    const res = execFileSync(testPython(), ['-I', '-c', GROUND_TRUTH], {
      input: JSON.stringify(importable),
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const [name, v] of Object.entries(JSON.parse(res.trim().split('\n').pop()!))) {
      python.set(name, v as PythonBlocks);
    }
  });

  for (const c of cases) {
    it(`${c.name} — ${c.why}`, () => {
      const p = prepared.get(c.name);
      expect(p, 'case prepared').toBeDefined();
      const { filtered, all } = p!;
      const byName = new Map(filtered.blocks.map((b) => [dotted(b), b]));
      expect([...byName.keys()].sort()).toEqual([...c.blocks].sort());
      if (c.abstract) {
        expect(
          filtered.blocks
            .filter((b) => b.abstract)
            .map(dotted)
            .sort(),
          'abstract blocks',
        ).toEqual([...c.abstract].sort());
      }
      for (const [block, from] of Object.entries(c.forwardFrom ?? {})) {
        expect(byName.get(block)?.forwardFrom, `${block}: forward from`).toBe(from);
      }
      for (const [block, chain] of Object.entries(c.baseChain ?? {})) {
        expect(byName.get(block)?.baseChain, `${block}: base chain`).toEqual(chain);
      }
      if (c.withoutForward !== undefined) expect(filtered.withoutForward, 'without forward').toBe(c.withoutForward);
      if (c.notImportable) return;
      // Python agrees on the unfiltered blocks and, for internal classes, on where forward comes from.
      const truth = python.get(c.name);
      expect(truth, 'Python ground truth').toBeDefined();
      expect(truth).not.toHaveProperty('error');
      const { blocks, isabstract } = truth as PythonBlocks;
      const ours = Object.fromEntries(all.blocks.map((b) => [dotted(b), b.forwardFrom]));
      const theirs = Object.fromEntries(
        Object.entries(blocks).map(([k, v]) => [k, v.startsWith('torch.') ? ours[k] : v]),
      );
      expect(ours, 'blocks and forward owners as Python sees them').toEqual(theirs);
      // Every class Python refuses to instantiate is flagged abstract (a forward that only raises is flagged too,
      // though Python builds it); where the case says so, the flagged blocks are exactly Python's.
      const flagged = all.blocks.filter((b) => b.abstract).map(dotted);
      expect(flagged, 'abstract as Python sees it').toEqual(expect.arrayContaining(isabstract));
      if (c.abstractAsPython) expect(flagged.sort(), 'abstract exactly as Python sees it').toEqual(isabstract);
    });
  }
});
