// What the parser records for module objects (docs/resolve.md, "Module objects"): a literal `getattr(m, 'f')` reads
// `m.f`, and a function-local import keeps the reads of the name it binds (its `uses`), never another binding's.
import { describe, expect, it } from 'vitest';
import { parseText } from '../../pipeline/parse/parse-module.ts';
import { py } from '../helpers/tree.ts';

/** Attribute chains of every free read of `name`, in source order, as 'name.a.b'. */
function reads(src: string, name: string): string[] {
  return parseText(src).statements.flatMap((s) =>
    [...s.eager, ...s.deferred]
      .filter((r) => r.name === name)
      .flatMap((r) => r.occurrences.map((o) => [name, ...o.attrs].join('.'))),
  );
}

/** The uses of the names nested imports bind, as 'bound: name.a.b' with the text read. */
function uses(src: string): string[] {
  const bytes = Buffer.from(src);
  return parseText(src).imports.flatMap((imp) =>
    imp.names.flatMap((n) =>
      (n.uses ?? []).map(
        (o) => `${n.bound}: ${[bytes.subarray(o.startByte, o.endByte).toString(), ...o.attrs].join('.')}`,
      ),
    ),
  );
}

describe('module objects in the facts', () => {
  it("`getattr(m, 'f')` and `hasattr(m, 'f')` read m.f; a computed name, a method named getattr and f'' do not", () => {
    const src = py`
      getattr(m, 'f')
      hasattr( m , "g", None)
      getattr(m, name)
      obj.getattr(m, 'h')
      getattr(m, f'x')
    `;
    expect(reads(src, 'm')).toEqual(['m.f', 'm.g', 'm', 'm', 'm']);
  });

  it("a function-local import's uses: the function's reads of its name, not the comprehension variable's", () => {
    const src = py`
      import helpers
      def f(query):
          import pkg.aggr as aggr
          base = aggr.Aggregation
          xs = [aggr for aggr in vars(aggr).values() if issubclass(aggr, base)]
          return getattr(aggr, 'Sum'), lambda: aggr.Mean
      def g():
          return helpers.x
    `;
    expect(uses(src)).toEqual(['aggr: aggr.Aggregation', 'aggr: aggr', 'aggr: aggr.Sum', 'aggr: aggr.Mean']);
    // The module-level import has none: its readers' free names say what it is used for.
    expect(reads(src, 'helpers')).toEqual(['helpers.x']);
  });
});
