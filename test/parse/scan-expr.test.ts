// The text scan of plain expressions: which names it reads (with attribute chains), and when it must give up
// and leave the expression to the node walk.
import { describe, expect, it } from 'vitest';
import { scanExpression, type ScannedRead } from '../../pipeline/parse/scan-expr.ts';
import { parseText } from '../../pipeline/parse/parse-module.ts';

function scan(expr: string): [string, string[]][] | false {
  const out: ScannedRead[] = [];
  return scanExpression(expr, 0, expr.length, out) ? out.map((r) => [r.name, r.attrs]) : false;
}

describe('scanExpression', () => {
  const reads: [string, [string, string[]][], string][] = [
    [
      'f(x, key=K).y[a.b.c]',
      [
        ['f', []],
        ['x', []],
        ['K', []],
        ['a', ['b', 'c']],
      ],
      'keyword names are skipped; a call ends the chain',
    ],
    [
      'f(key == v, k2 <= w)',
      [
        ['f', []],
        ['key', []],
        ['v', []],
        ['k2', []],
        ['w', []],
      ],
      '`==` and `<=` are comparisons, not keywords',
    ],
    ['1if a else 2', [['a', []]], 'a number never swallows a keyword after it'],
    ['1e-5 + 0x1F + 1_000 + .5 + 2j + 3.0e+2 * x', [['x', []]], 'number forms'],
    ['t.u.v.w.x.y', [['t', ['u', 'v', 'w', 'x']]], 'chains stop at 4'],
    [
      'f(x).y.z',
      [
        ['f', []],
        ['x', []],
      ],
      'attributes of a call result are not a chain of f',
    ],
    [
      '"a{b}" + \'c\\\'d\' + """e\nf""" + r"\\"" + b"g"',
      [],
      'strings hold no names (escapes, triple quotes, raw, bytes)',
    ],
    [
      'x[..., None] + (not a in b) + (c is not None)',
      [
        ['x', []],
        ['a', []],
        ['b', []],
        ['c', []],
      ],
      'keywords and ellipsis',
    ],
    [
      '{**d, "k": v, e: [*xs]}',
      [
        ['d', []],
        ['v', []],
        ['e', []],
        ['xs', []],
      ],
      'dict and list displays',
    ],
    [
      'f(a,  # a comment\n  b=1)',
      [
        ['f', []],
        ['a', []],
      ],
      'comments and newlines inside brackets',
    ],
    [
      'await g(x) if y else (yield z)',
      [
        ['g', []],
        ['x', []],
        ['y', []],
        ['z', []],
      ],
      'await / yield / conditional',
    ],
    [
      'π.σ + print(match, type, case)',
      [
        ['π', ['σ']],
        ['print', []],
        ['match', []],
        ['type', []],
        ['case', []],
      ],
      'non-ASCII names and soft keywords',
    ],
  ];
  for (const [expr, want, why] of reads) it(why, () => expect(scan(expr)).toEqual(want));

  const giveUps: [string, string][] = [
    ['[x for x in xs]', 'a comprehension opens a scope'],
    ['lambda x: x', 'a lambda opens a scope'],
    ['(y := f(x))', 'a walrus binds'],
    ['f"{x}"', 'an f-string needs its interpolations parsed'],
    ['__all__.extend(["a"])', '__all__ operations are read from the tree'],
    ['"unterminated', 'text that does not tokenize'],
  ];
  for (const [expr, why] of giveUps) it(`gives up: ${why}`, () => expect(scan(expr)).toBe(false));

  it('flags a registering call', () => {
    const out: ScannedRead[] = [];
    const expr = 'REG.register(A) + M.a.b.c.d.update(x)';
    scanExpression(expr, 0, expr.length, out);
    expect(out.map((r) => [r.name, r.last, r.called])).toEqual([
      ['REG', 'register', true],
      ['A', '', false],
      ['M', 'update', true],
      ['x', '', false],
    ]);
  });

  it('mixed statements: scanned and walked parts give the same facts as Python would', () => {
    const st = parseText('y = torch.cat([f(a) for a in xs], dim=D) + g(lambda q: q + Z, k=K)\n').statements[0];
    expect(st.eager.map((r) => r.name).sort()).toEqual(['D', 'K', 'f', 'g', 'torch', 'xs']);
    expect(st.deferred.map((r) => r.name)).toEqual(['Z']);
    expect(st.eager.find((r) => r.name === 'torch')!.occurrences[0].attrs).toEqual(['cat']);
  });
});
