// The dedup stage end to end on the labelled fixture: every pair's verdict at each level, canonical members,
// the corpus report, determinism, and hostile names.
import { describe, expect, it } from 'vitest';
import { dedup } from '../../pipeline/dedup/dedup.ts';
import type { DedupItem, DedupResult } from '../../pipeline/dedup/types.ts';
import { FIXTURE, type Level, pairVerdicts } from './fixture.ts';

const items = FIXTURE.map((f) => f.item);

function groupLookup(result: DedupResult) {
  const byId = new Map(result.blocks.map((b) => [b.id, b]));
  return (id: string, level: Level): string | null => {
    const b = byId.get(id)!;
    if (level === 'exact') return b.exactGroup;
    if (level === 'lexical') return b.lexicalCluster;
    if (level === 'structural') return b.structuralCluster;
    return b.architectureGroup;
  };
}

function item(id: string, code: string, extra: Partial<DedupItem> = {}): DedupItem {
  return {
    id,
    sourceId: id.split(':')[0],
    path: `${id.split(':')[1]}.py`,
    priority: 1,
    validated: false,
    code,
    ...extra,
  };
}

describe('labelled fixture', () => {
  const result = dedup(items);

  it('gives every pair the expected verdict at every level', () => {
    const why = new Map(FIXTURE.map((f) => [f.item.id, f.why]));
    const wrong = pairVerdicts(FIXTURE, groupLookup(result))
      .filter((v) => v.expected !== v.actual)
      .map(
        (v) =>
          `${v.level}: ${v.a} (${why.get(v.a)}) vs ${v.b} (${why.get(v.b)}): expected ${v.expected ? 'same' : 'different'}`,
      );
    expect(wrong).toEqual([]);
  });

  it('lists the edited attention block as the nearest lexical neighbour, with its Jaccard', () => {
    const edited = result.blocks.find((b) => b.id.endsWith('.Attention'))!;
    expect(edited.nearest[0].id).toMatch(/MultiHeadSelfAttention$/);
    expect(edited.nearest[0].similarity).toBeGreaterThanOrEqual(0.9);
    expect(edited.nearest[0].similarity).toBeLessThan(1);
  });

  it('keeps levels nested, so each block is removed at exactly one level or kept', () => {
    for (const b of result.blocks) {
      if (b.unique.structural) expect(b.unique.lexical).toBe(true);
      if (b.unique.lexical) expect(b.unique.exact).toBe(true);
    }
    const [all, ...perSource] = result.report;
    expect(all.source).toBe('all');
    expect(all.recordsIn).toBe(items.length);
    expect(all.removedExact + all.removedLexical + all.removedStructural + all.uniqueOut).toBe(all.recordsIn);
    for (const key of ['recordsIn', 'removedExact', 'removedLexical', 'removedStructural', 'uniqueOut'] as const) {
      expect(perSource.reduce((s, r) => s + r[key], 0)).toBe(all[key]);
    }
    // 2 exact copies, 4 lexical (renamed, literals, edited attention, wide MLP), 1 structural (other APIs).
    expect([all.removedExact, all.removedLexical, all.removedStructural, all.uniqueOut]).toEqual([2, 4, 1, 9]);
  });

  it('gives the same verdicts with textbook k-permutation MinHash', () => {
    const wrong = pairVerdicts(FIXTURE, groupLookup(dedup(items, { minhashScheme: 'k-permutations' }))).filter(
      (v) => v.expected !== v.actual,
    );
    expect(wrong).toEqual([]);
  });

  it('records every parameter, with bands x rows chosen for the threshold', () => {
    expect(result.params).toMatchObject({
      shingleSize: 5,
      permutations: 256,
      bands: 18,
      rows: 14,
      lexicalThreshold: 0.9,
    });
    expect(result.lsh.recallAtThreshold).toBeGreaterThanOrEqual(0.99);
    expect(result.lsh.sCurveThreshold).toBeLessThan(0.9);
  });
});

describe('exact normalization', () => {
  const hashOf = (code: string) => dedup([item('s:a', code)]).blocks[0].exactHash;

  it('ignores comments, docstrings, blank lines, layout and quote style', () => {
    const a = 'def f(x):\n    """Doc."""\n    return g(x, "y")\n';
    const b = "def f( x ):  # comment\n\n    return g(x,\n             'y')\n";
    expect(hashOf(a)).toBe(hashOf(b));
  });

  it('keeps indentation that changes meaning', () => {
    // `b()` inside the if vs after it: same tokens, different blocks.
    expect(hashOf('if x:\n    a()\n    b()\n')).not.toBe(hashOf('if x:\n    a()\nb()\n'));
    // Two statements vs one call: `a\n(b)` is not `a(b)`.
    expect(hashOf('a\n(b)\n')).not.toBe(hashOf('a(b)\n'));
  });

  it('keeps strings whose quotes cannot be swapped safely', () => {
    expect(hashOf('x = "it\'s"\n')).not.toBe(hashOf('x = "its"\n'));
  });
});

describe('canonical member', () => {
  const code = 'class A(nn.Module):\n    def forward(self, x):\n        return x\n';
  const canonicalOf = (xs: DedupItem[]) => dedup(xs).blocks[0].exactGroup;

  it('prefers priority 1, then validated, then the shorter path, then the id', () => {
    expect(canonicalOf([item('a:x', code, { priority: 2 }), item('b:x', code)])).toBe('b:x');
    expect(canonicalOf([item('a:x', code), item('b:x', code, { validated: true })])).toBe('b:x');
    expect(canonicalOf([item('a:x', code, { path: 'deep/er/x.py' }), item('b:x', code, { path: 'x.py' })])).toBe('b:x');
    expect(canonicalOf([item('b:x', code), item('a:x', code)])).toBe('a:x');
  });
});

describe('determinism', () => {
  it('gives identical JSON for the same input and for any input order', () => {
    const first = JSON.stringify(dedup(items));
    expect(JSON.stringify(dedup(items))).toBe(first);
    // A fixed shuffle (reverse, then interleave) so the test itself is deterministic.
    const rev = [...items].reverse();
    const shuffled = [...rev.filter((_, i) => i % 2 === 0), ...rev.filter((_, i) => i % 2 === 1)];
    expect(JSON.stringify(dedup(shuffled))).toBe(first);
  });
});

describe('hostile names', () => {
  it('treats __proto__ and constructor as ordinary ids, sources, identifiers and child names', () => {
    const code =
      'class __proto__(nn.Module):\n    def forward(self, constructor):\n        return constructor.__proto__\n';
    const tree = {
      type: 'x.__proto__',
      params: [{ name: '__proto__', shape: [2] }],
      children: [{ name: '__proto__', type: 'torch.nn.modules.linear.Identity', params: [], children: [] }],
    };
    const xs = [
      item('__proto__:__proto__', code, { validated: true, moduleTree: tree }),
      item('constructor:constructor', code, { validated: true, moduleTree: JSON.parse(JSON.stringify(tree)) }),
    ];
    const r = dedup(xs);
    expect(r.blocks.map((b) => b.exactGroup)).toEqual(['__proto__:__proto__', '__proto__:__proto__']);
    expect(r.blocks[1].architectureGroup).toBe('__proto__:__proto__');
    expect(r.report.map((row) => [row.source, row.recordsIn])).toEqual([
      ['all', 2],
      ['__proto__', 1],
      ['constructor', 1],
    ]);
    expect(Object.getPrototypeOf(r.report[1])).toBe(Object.prototype);
  });
});

describe('problems as data', () => {
  it('reports syntax errors and malformed module trees as diagnostics, not exceptions', () => {
    const r = dedup([
      item('s:broken', 'class A(nn.Module:\n    def f(self)\n        return (\n'),
      item('s:tree', 'x = 1\n', { validated: true, moduleTree: { type: 'A', params: 'none', children: [] } }),
    ]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['dedup-syntax-error', 'dedup-malformed-module-tree']);
    expect(r.blocks[1].archHash).toBeNull();
  });

  it('throws on duplicate ids, which only a pipeline bug produces', () => {
    expect(() => dedup([item('s:a', 'x\n'), item('s:a', 'y\n')])).toThrow(/duplicate block id/);
  });

  it('handles an empty corpus and empty code', () => {
    expect(dedup([]).report[0].recordsIn).toBe(0);
    const r = dedup([item('s:a', ''), item('s:b', '# only a comment\n')]);
    expect(r.blocks[0].exactGroup).toBe(r.blocks[1].exactGroup);
  });
});
