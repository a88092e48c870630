// Dict literal entries and literal-key reads (what lets a closure keep only the entries a block reads): one
// snippet per case and the fact expected.
import { describe, expect, it } from 'vitest';
import { parseText } from '../../pipeline/parse/parse-module.ts';

/** Entries of the first statement binding `name` as [key, text], or undefined when it has no dict fact. */
function entries(src: string, name: string): [string | null, string][] | undefined {
  const facts = parseText(src);
  const st = facts.statements.find((s) => s.binds.includes(name))!;
  const bytes = Buffer.from(src);
  return st.dict?.entries.map((e) => [e.key, bytes.subarray(e.startByte, e.endByte).toString()]);
}

/** Literal keys of every read of `name` ('-' where there is none), in source order. */
function keys(src: string, name: string): string[] {
  const facts = parseText(src);
  return facts.statements.flatMap((s) =>
    [...s.eager, ...s.deferred].filter((r) => r.name === name).flatMap((r) => r.occurrences.map((o) => o.key ?? '-')),
  );
}

describe('dict literal entries', () => {
  it('a braced literal: string keys, each entry with its comma; `**spread` and computed keys have no key', () => {
    expect(entries('A = {\'relu\': R, "gelu": G,  # c\n **X, k: V}\n', 'A')).toEqual([
      ['relu', "'relu': R,"],
      ['gelu', '"gelu": G,'],
      [null, '**X,'],
      [null, 'k: V'],
    ]);
  });
  it('`dict(...)` keyword arguments; a positional argument has no key', () => {
    expect(entries('B = dict(BASE, a=A, b=B2,\n)\n', 'B')).toEqual([
      [null, 'BASE,'],
      ['a', 'a=A,'],
      ['b', 'b=B2,'],
    ]);
  });
  it('an annotated assignment counts', () => {
    expect(entries("C: Dict[str, int] = {'x': 1, 'y': 2}\n", 'C')).toHaveLength(2);
  });
  it('not a dict fact: chained targets, one entry, a prefixed key, another call, a comprehension', () => {
    expect(entries("D = E = {'a': 1, 'b': 2}\n", 'D')).toBeUndefined();
    expect(entries("F = {'a': 1}\n", 'F')).toBeUndefined();
    expect(entries('G = OrderedDict(a=1, b=2)\n', 'G')).toBeUndefined();
    expect(entries('H = {k: v for k, v in X}\n', 'H')).toBeUndefined();
    expect(entries("I = {b'a': 1, f'{x}': 2}\n", 'I')).toEqual([
      [null, "b'a': 1,"],
      [null, "f'{x}': 2"],
    ]);
  });
});

describe('literal-key reads', () => {
  it('subscripts and .get with one plain string literal have a key; anything else does not', () => {
    const src = `def f(k):
    return (A['relu'], A [ "gelu" ], A.get('x'), A.get("y", None), A[k], A['a' 'b'], A[r'z'], 'q' in A, A.items())
`;
    expect(keys(src, 'A')).toEqual(['relu', 'gelu', 'x', 'y', '-', '-', '-', '-', '-']);
  });
  it('a subscript on the next line of a statement is a new statement, not a key', () => {
    expect(keys("x = A\n['relu']\n", 'A')).toEqual(['-']);
  });
});
