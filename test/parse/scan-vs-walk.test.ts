// The text scanner (scan-expr.ts) against the full tree walk: with `textScan: false` every expression is visited
// node by node, the trusted slow path. On every file of the installed torchvision, and on snippets chosen for the
// scanner's edge cases, both must give the same facts — the reads (names, attribute chains, byte spans, eager or
// deferred), what each statement binds and mutates, and `__all__`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEBIAN_TORCHVISION, describeOnDebianTorchvision } from '../helpers/python.ts';
import type { ModuleFacts } from '../../pipeline/parse/facts.ts';
import { parseModule, parseText } from '../../pipeline/parse/parse-module.ts';
import { py } from '../helpers/tree.ts';

const ROOT = DEBIAN_TORCHVISION;

function pyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) out.push(...pyFiles(abs));
    else if (name.endsWith('.py')) out.push(abs);
  }
  return out;
}

/** The first place two facts differ, as a short readable line; null when they agree. */
function firstDifference(scanned: ModuleFacts, walked: ModuleFacts): string | null {
  if (scanned.statements.length !== walked.statements.length) {
    return `statement count ${scanned.statements.length} (scan) vs ${walked.statements.length} (walk)`;
  }
  for (const [i, s] of scanned.statements.entries()) {
    const w = walked.statements[i];
    for (const key of ['binds', 'mutates', 'eager', 'deferred', 'kind', 'span', 'sideEffect', 'hasError'] as const) {
      if (!isDeepStrictEqual(s[key], w[key])) {
        const [a, b] = [JSON.stringify(s[key]), JSON.stringify(w[key])];
        return `statement ${i} (line ${s.span.startLine}) ${key}:\n  scan ${a}\n  walk ${b}`;
      }
    }
  }
  for (const key of Object.keys(scanned) as (keyof ModuleFacts)[]) {
    if (!isDeepStrictEqual(scanned[key], walked[key])) return `${key} differs`;
  }
  return null;
}

describeOnDebianTorchvision('text scanner vs full tree walk on torchvision', () => {
  it('gives the same facts for every file', () => {
    const files = pyFiles(ROOT);
    const differences: string[] = [];
    let reads = 0;
    for (const file of files) {
      const bytes = readFileSync(file);
      const scanned = parseModule(bytes);
      const walked = parseModule(bytes, { textScan: false });
      const diff = firstDifference(scanned, walked);
      if (diff) differences.push(`${relative(ROOT, file)}: ${diff}`);
      for (const s of scanned.statements) reads += s.eager.length + s.deferred.length;
    }
    expect(files.length).toBeGreaterThan(100);
    expect(reads, 'the comparison covers real reads').toBeGreaterThan(5000);
    expect(differences, differences.join('\n')).toEqual([]);
  });
});

describe('text scanner vs full tree walk on edge cases', () => {
  // Each snippet mixes statements the scanner reads from text with ones it must hand to the walk.
  const snippets: [string, string][] = [
    ['registries mutated at import time', 'REG[k] = v\nREG.register(A)\nCFG["a"]["b"] = f(x).y\nf(x).y = 1\n'],
    ['numbers, keywords and calls', 'y = 1e-5 + 0x1F + .5 + 2j + (1if a else 2) + t.u.v.w.x.y(z, key=K)\n'],
    ['strings with escapes and triple quotes', 'y = f("a{b}", \'c\\\'d\', """e\nf""", r"\\\\", b"g") + h\n'],
    ['non-ASCII names', 'π = σ.τ(ω)\nclass Α:\n    β = π\n'],
    ['class bodies see earlier class names', 'x = 1\nclass A:\n    x = x\n    y = x + 1\n    def f(self): return x\n'],
    ['`__all__` operations', '__all__ = ["a"]\n__all__ += ["b"]\n__all__.extend(["c"])\n__all__.append("d")\n'],
    ['comprehensions, lambdas, walrus', 'y = [g(i) for i in xs if i] + h(lambda q: q + Z)\nif (n := f(m)): pass\n'],
    ['comments and line continuations', 'y = f(a,  # comment\n      b) + \\\n    c\n'],
    [
      'annotations deferred by the future import',
      py`
        from __future__ import annotations
        x: T = f(v)
        def g(a: U = D) -> R:
            return a.b.c(E)
      `,
    ],
  ];
  for (const [why, src] of snippets) {
    it(why, () => {
      expect(firstDifference(parseText(src), parseText(src, 'utf-8', { textScan: false }))).toBeNull();
    });
  }
});
