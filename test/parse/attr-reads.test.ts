// Facts for method-level reachability (docs/resolve.md, "Methods"): the attribute names each method body and each
// statement reads, each method's body span, and the names used only as types. One snippet per case.
import { describe, expect, it } from 'vitest';
import type { AttrReads } from '../../pipeline/parse/facts.ts';
import { parseText } from '../../pipeline/parse/parse-module.ts';
import { py } from '../helpers/tree.ts';

/** The attribute reads of method `qualname`. */
function method(src: string, qualname: string): AttrReads | undefined {
  const facts = parseText(src);
  return facts.classes.flatMap((c) => c.methods).find((m) => m.qualname === qualname)?.attrReads;
}

/** The attribute reads of the statement binding `name` (outside its method bodies). */
function statement(src: string, name: string): AttrReads | undefined {
  return parseText(src).statements.find((s) => s.binds.includes(name))?.attrReads;
}

/** 'T' (used as a type only) or '-' for each read of `name`, in source order. */
function typeOnly(src: string, name: string): string[] {
  return parseText(src).statements.flatMap((s) =>
    [...s.eager, ...s.deferred]
      .filter((r) => r.name === name)
      .flatMap((r) => r.occurrences.map((o) => (o.typeOnly ? 'T' : '-'))),
  );
}

describe('attribute reads', () => {
  it('splits reads off self, off super() and off anything else; a literal getattr reads its name', () => {
    const src = py`
      class A(B):
          def forward(self, x):
              super().forward(x)
              super(A, self).reset()
              y = self.norm(x).view(-1)
              z = getattr(self, 'extra')(f"{self.fmt}")
              return (self.a).b, Base.init_weights(self), x.size
    `;
    expect(method(src, 'A.forward')).toEqual({
      names: ['b', 'init_weights', 'size', 'view'],
      selfNames: ['a', 'extra', 'fmt', 'norm'],
      superNames: ['forward', 'reset'],
    });
  });

  it('strings, comments and numbers hold no reads; `hasattr` with a literal name only probes', () => {
    const src = py`
      class A:
          def f(self, m):
              # self.commented
              s = "self.quoted" + 'x.y'
              n = 1.5e3 + 0x1F
              return hasattr(m, 'init_weights') and hasattr(m, 'size') and m.size
    `;
    expect(method(src, 'A.f')).toEqual({ names: ['size'], probeNames: ['init_weights'] });
  });

  it('a computed name off self is dynamic for its class, off anything else for everything', () => {
    const src = py`
      class A:
          def own(self):
              return getattr(self, self.mode)
          def other(self, n):
              return getattr(self.module, n)
          @classmethod
          def members(cls):
              return vars(cls)
          @staticmethod
          def st(m, n):
              return getattr(m, n)
    `;
    expect(method(src, 'A.own')?.dynamic).toBe('self');
    expect(method(src, 'A.other')?.dynamic).toBe('any');
    expect(method(src, 'A.members')?.dynamic).toBe('self');
    // A static method's first parameter is no `self`: a named object, looked up by the resolver.
    expect(method(src, 'A.st')?.dynamicOn?.map((r) => r.name)).toEqual(['m']);
  });

  it('a computed name off a named object is kept for the resolver, with where it is read', () => {
    const src = 'from logging import handlers\ndef f(n):\n    return getattr(handlers, n), getattr(torch . nn, n)\n';
    const reads = statement(src, 'f')!;
    expect(reads.dynamic).toBeUndefined();
    expect(reads.dynamicOn?.map((r) => [r.name, src.slice(r.startByte, r.startByte + 5)])).toEqual([
      ['handlers', 'handl'],
      ['torch.nn', 'torch'],
    ]);
  });

  it('a local that only ever holds a module (or a dotted path in one) is not a dynamic read', () => {
    const src = py`
      def get_object(path):
          module = import_module(path.split('.')[0])
          obj = module
          for part in path.split('.')[1:]:
              obj = getattr(obj, part)
          return obj
      def rebound(path, n):
          obj = importlib.import_module(path)
          obj = obj.child
          return getattr(obj, n)
      def param(obj, n):
          obj = import_module(obj)
          return getattr(obj, n)
    `;
    expect(statement(src, 'get_object')?.dynamicOn).toBeUndefined();
    expect(statement(src, 'rebound')?.dynamicOn?.map((r) => r.name)).toEqual(['obj']);
    expect(statement(src, 'param')?.dynamicOn?.map((r) => r.name)).toEqual(['obj']);
  });

  it('`methodcaller`, `attrgetter` and `__getattribute__` are dynamic; eval of a string is not read', () => {
    expect(statement('def f(n):\n    return operator.methodcaller(n)\n', 'f')?.dynamic).toBe('any');
    expect(statement('def f(o, n):\n    return object.__getattribute__(o, n)\n', 'f')?.dynamic).toBe('any');
    expect(statement('def f(s):\n    return eval(s)\n', 'f')).toBeUndefined();
  });

  it('outside method bodies: decorators, bases, class bodies and method decorators, with bare names in a class', () => {
    const src = py`
      @MODELS.register_module()
      class A(nn.Module):
          run = _impl
          def __init__(self, k=cfg.k):
              self.hidden = 1
          @width.setter
          def width(self, v):
              self._w = v
    `;
    const reads = statement(src, 'A')!;
    expect(reads.names).toEqual(expect.arrayContaining(['register_module', 'Module', '_impl', 'run', 'k', 'setter']));
    // `@width.setter` names the property it extends, it calls none of its functions; bodies are the methods'.
    expect(reads.names).not.toContain('width');
    expect(reads.names).not.toContain('hidden');
  });

  it("each method's body span covers its body only; methods of a class in a function are the function's", () => {
    const src = py`
      class A:
          @dec(x.y)
          def f(self, a=D.e):
              return self.g()
      def make():
          class L:
              def h(self):
                  return self.q
          return L
    `;
    const f = parseText(src).classes[0].methods[0];
    expect(src.slice(f.body!.startByte, f.body!.endByte)).toBe('return self.g()');
    expect(statement(src, 'A')?.names).toEqual(expect.arrayContaining(['y', 'e']));
    const local = parseText(src).classes.find((c) => c.name === 'L')!.methods[0];
    expect(local.body).toBeUndefined();
    expect(statement(src, 'make')?.names).toEqual(['q']);
  });
});

describe('names used as types only', () => {
  it('annotations, bases, isinstance/issubclass second arguments and except clauses; not calls or values', () => {
    const src = py`
      class Sub(Config):
          pass
      def f(cfg: Config, e) -> Config:
          if isinstance(cfg, (dict, Config)) or issubclass(type(cfg), Config):
              pass
          try:
              pass
          except (Config, KeyError) as err:
              pass
          x: Config = Config()
          return dict(type=Config), Config.fromfile(e)
    `;
    // base, param annotation, return, isinstance, issubclass, except, variable annotation; then the call, the
    // value, the attribute read.
    expect(typeOnly(src, 'Config')).toEqual(['T', 'T', 'T', 'T', 'T', 'T', 'T', '-', '-', '-']);
    // The object isinstance tests is an ordinary read.
    expect(typeOnly(src, 'cfg')).toEqual([]);
  });
});
