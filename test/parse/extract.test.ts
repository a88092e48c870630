// Extraction of imports, classes, functions, parameters and __all__: one snippet per case and the fact expected.
import { describe, expect, it } from 'vitest';
import type { ImportFact } from '../../pipeline/parse/facts.ts';
import { parseText } from '../../pipeline/parse/parse-module.ts';

const only = <T>(xs: T[]): T => {
  expect(xs).toHaveLength(1);
  return xs[0];
};

describe('imports', () => {
  const cases: { why: string; src: string; want: Partial<ImportFact> }[] = [
    {
      why: '`import a.b.c` binds the top package',
      src: 'import a.b.c\n',
      want: { kind: 'import', module: '', level: 0, names: [{ name: 'a.b.c', bound: 'a' }] },
    },
    {
      why: '`import a.b as c` binds the alias',
      src: 'import a.b as c\n',
      want: { names: [{ name: 'a.b', asname: 'c', bound: 'c' }] },
    },
    {
      why: 'relative import of a submodule',
      src: 'from . import helpers\n',
      want: { kind: 'from', module: '', level: 1, names: [{ name: 'helpers', bound: 'helpers' }] },
    },
    {
      why: 'parenthesized names, aliases and two dots',
      src: 'from ..pkg.mod import (a as b,\n    c)\n',
      want: {
        module: 'pkg.mod',
        level: 2,
        names: [
          { name: 'a', asname: 'b', bound: 'b' },
          { name: 'c', bound: 'c' },
        ],
      },
    },
    { why: 'star import', src: 'from .ops import *\n', want: { module: 'ops', level: 1, names: [], star: true } },
    {
      why: '__future__ imports are flagged',
      src: 'from __future__ import annotations\n',
      want: { module: '__future__', future: true, names: [{ name: 'annotations', bound: 'annotations' }] },
    },
    {
      why: 'try/except ImportError guards',
      src: 'try:\n    import scipy\nexcept ImportError:\n    scipy = None\n',
      want: { guard: 'try' },
    },
    {
      why: 'except (ImportError, OSError) guards',
      src: 'try:\n    import accimage\nexcept (ImportError, OSError):\n    pass\n',
      want: { guard: 'try' },
    },
    { why: 'a bare except guards', src: 'try:\n    import x\nexcept:\n    pass\n', want: { guard: 'try' } },
    {
      why: 'except (ImportError, AttributeError) as e guards',
      src: 'try:\n    from a import b\nexcept (ImportError, AttributeError) as e:\n    b = None\n',
      want: { guard: 'try' },
    },
    {
      why: 'an import in else/finally is not guarded by the try',
      src: 'try:\n    pass\nexcept ImportError:\n    pass\nelse:\n    import x\n',
      want: { guard: undefined },
    },
    {
      why: 'except ValueError does not catch a failed import',
      src: 'try:\n    import x\nexcept ValueError:\n    pass\n',
      want: { guard: undefined },
    },
    {
      why: 'if TYPE_CHECKING',
      src: 'if TYPE_CHECKING:\n    from torch import Tensor\n',
      want: { guard: 'type-checking' },
    },
    {
      why: 'if typing.TYPE_CHECKING',
      src: 'if typing.TYPE_CHECKING:\n    import numpy\n',
      want: { guard: 'type-checking' },
    },
    {
      why: 'any other if',
      src: 'if sys.version_info >= (3, 8):\n    from importlib import metadata\n',
      want: { guard: 'if' },
    },
    {
      why: 'function-local import: scope and qualname',
      src: 'class A:\n    def m(self):\n        import scipy.special\n',
      want: { scope: 'function', scopeQualname: 'A.m', statementIndex: 0, guard: undefined },
    },
    {
      why: 'class-body import',
      src: 'class A:\n    from math import pi\n',
      want: { scope: 'class', scopeQualname: 'A' },
    },
    {
      why: 'an import in a function is not guarded by a try around the def',
      src: 'try:\n    def f():\n        import x\nexcept ImportError:\n    pass\n',
      want: { scope: 'function', guard: undefined },
    },
    {
      why: 'a try inside a function guards its imports',
      src: 'def f():\n    try:\n        import x\n    except ModuleNotFoundError:\n        x = None\n',
      want: { scope: 'function', scopeQualname: 'f', guard: 'try' },
    },
  ];
  for (const c of cases) {
    it(c.why, () => {
      const imp = only(parseText(c.src).imports);
      for (const [k, v] of Object.entries(c.want)) expect(imp[k as keyof ImportFact], k).toEqual(v);
    });
  }

  it('records every import with its statement and span, in source order', () => {
    const src = 'import os\nif TYPE_CHECKING:\n    import a\nelse:\n    import b\n';
    const facts = parseText(src);
    expect(facts.imports.map((i) => [i.names[0].name, i.statementIndex, i.guard])).toEqual([
      ['os', 0, undefined],
      ['a', 1, 'type-checking'],
      ['b', 1, 'if'],
    ]);
    const b = facts.imports[2];
    expect(src.slice(b.span.startByte, b.span.endByte)).toBe('import b');
    expect([b.span.startLine, b.span.endLine]).toEqual([5, 5]);
  });

  it('names bound only under `if TYPE_CHECKING:` are no run-time bindings; its body is recorded', () => {
    // TYPE_CHECKING is False at run time: `a` is never bound; `c` is, by the else branch.
    const src = 'if TYPE_CHECKING:\n    import a\n    from m import c\nelse:\n    c = None\n';
    const [st] = parseText(src).statements;
    expect(st.binds).toEqual(['c']);
    expect(st.typing).toEqual(['a']);
    expect(st.typeChecking!.map((b) => src.slice(b.startByte, b.endByte))).toEqual(['import a\n    from m import c']);
  });
});

describe('classes', () => {
  it('bases as dotted names, keywords, decorators, methods, attributes', () => {
    const src =
      '@dataclass(frozen=True)\nclass Net(nn.Module, Generic[T], make_base(), metaclass=ABCMeta):\n    """Doc."""\n    act = nn.ReLU\n    x: int = 1\n    y: int\n    if FLAG:\n        z = 2\n    def forward(self, x): return x\n    async def run(self): pass\n';
    const cls = only(parseText(src).classes);
    expect(cls.name).toBe('Net');
    expect(cls.line).toBe(2);
    expect([cls.span.startLine, cls.span.endLine]).toEqual([1, 10]);
    expect(cls.bases).toEqual([
      { text: 'nn.Module', dotted: 'nn.Module' },
      { text: 'Generic[T]', dotted: 'Generic' },
      { text: 'make_base()', dotted: null },
    ]);
    expect(cls.keywords).toEqual([{ name: 'metaclass', text: 'ABCMeta' }]);
    expect(cls.decorators).toEqual(['dataclass(frozen=True)']);
    expect(cls.methods.map((m) => [m.qualname, m.async])).toEqual([
      ['Net.forward', false],
      ['Net.run', true],
    ]);
    expect(cls.attributes).toEqual(['act', 'x', 'z']);
    expect(cls.topLevel).toBe(true);
  });

  it('qualnames as Python writes them, and topLevel', () => {
    const src =
      'class Outer:\n    class Inner:\n        def m(self):\n            class Deep: pass\ndef make():\n    class Local: pass\nif X:\n    class Cond: pass\n';
    const classes = parseText(src).classes;
    expect(classes.map((c) => [c.qualname, c.topLevel, c.statementIndex])).toEqual([
      ['Outer', true, 0],
      ['Outer.Inner', false, 0],
      ['Outer.Inner.m.<locals>.Deep', false, 0],
      ['make.<locals>.Local', false, 1],
      ['Cond', true, 2],
    ]);
  });

  it('finds forward and tells abstract ones', () => {
    const src = [
      'class A(nn.Module):',
      '    def forward(self, x):',
      '        raise NotImplementedError',
      'class B(nn.Module):',
      '    def forward(self, x):',
      '        """Doc."""',
      '        raise NotImplementedError("subclasses implement this")',
      'class C(nn.Module):',
      '    @abstractmethod',
      '    def forward(self, x): return x',
      'class D(nn.Module):',
      '    @abc.abstractmethod',
      '    def forward(self, x): ...',
      'class E(nn.Module):',
      '    def forward(self, x):',
      '        pass',
      'class F(nn.Module):',
      '    def forward(self, x):',
      '        if x is None:',
      '            raise NotImplementedError',
      '        return x',
      'class G(nn.Module):',
      '    def forward(self, x):',
      '        # comment',
      '        ...',
      '        raise NotImplementedError()',
      '',
    ].join('\n');
    const abstract = parseText(src).classes.map((c) => [c.name, c.methods[0].abstract]);
    expect(abstract).toEqual([
      ['A', true],
      ['B', true],
      ['C', true],
      ['D', true],
      ['E', false],
      ['F', false],
      ['G', true],
    ]);
  });
});

describe('functions and parameters', () => {
  it('module-level functions, including those in if/try; not nested ones', () => {
    const src =
      'def a(): pass\nif X:\n    def b(): pass\ntry:\n    async def c(): pass\nexcept Exception:\n    pass\ndef outer():\n    def inner(): pass\n';
    expect(parseText(src).functions.map((f) => [f.qualname, f.async, f.statementIndex])).toEqual([
      ['a', false, 0],
      ['b', false, 1],
      ['c', true, 2],
      ['outer', false, 3],
    ]);
  });

  it('parameter kinds, annotations, defaults, returns, decorators', () => {
    const src =
      '@torch.jit.unused\ndef f(a, b: int = 1, /, c=2, *args: Any, d, e: float = -1.5, **kw) -> Tensor:\n    pass\n';
    const f = only(parseText(src).functions);
    expect(f.decorators).toEqual(['torch.jit.unused']);
    expect(f.returns).toBe('Tensor');
    expect(f.params).toEqual([
      { name: 'a', kind: 'positional-only' },
      { name: 'b', kind: 'positional-only', annotation: 'int', default: '1', defaultLiteral: 1 },
      { name: 'c', kind: 'positional', default: '2', defaultLiteral: 2 },
      { name: 'args', kind: 'var-positional', annotation: 'Any' },
      { name: 'd', kind: 'keyword-only' },
      { name: 'e', kind: 'keyword-only', annotation: 'float', default: '-1.5', defaultLiteral: -1.5 },
      { name: 'kw', kind: 'var-keyword' },
    ]);
  });

  it('bare * starts keyword-only parameters', () => {
    const f = only(parseText('def f(a, *, b=None): pass\n').functions);
    expect(f.params.map((p) => p.kind)).toEqual(['positional', 'keyword-only']);
    expect(f.params[1].defaultLiteral).toBeNull();
  });

  const literals: [string, unknown][] = [
    ['-1', -1],
    ['-1.0', -1],
    ['1e-5', 1e-5],
    ['+3', 3],
    ['0x10', 16],
    ['1_000', 1000],
    ['.5', 0.5],
    ['(3, 3)', [3, 3]],
    ['(1,)', [1]],
    ['()', []],
    ['[1, -2]', [1, -2]],
    [
      '((1, 2), (3, 4))',
      [
        [1, 2],
        [3, 4],
      ],
    ],
    ["'relu'", 'relu'],
    ['"a" "b"', 'ab'],
    ["r'\\d+'", '\\d+'],
    ["'tab\\there'", 'tab\there'],
    ['True', true],
    ['False', false],
    ['None', null],
    ['(1)', 1],
    ['nn.ReLU', undefined],
    ['-x', undefined],
    ["b'x'", undefined],
    ["f'{x}'", undefined],
    ['1j', undefined],
    ['1 + 2', undefined],
    ['float("inf")', undefined],
  ];
  for (const [text, want] of literals) {
    it(`literal default ${text}`, () => {
      const p = only(parseText(`def f(x=${text}): pass\n`).functions).params[0];
      expect(p.default).toBe(text);
      expect(p.defaultLiteral).toEqual(want);
    });
  }

  it('qualnames of nested functions', () => {
    const classes = parseText(
      'class A:\n    def m(self):\n        def inner(): pass\n        class B:\n            def n(self): pass\n',
    ).classes;
    expect(classes.map((c) => [c.qualname, c.methods.map((m) => m.qualname)])).toEqual([
      ['A', ['A.m']],
      ['A.m.<locals>.B', ['A.m.<locals>.B.n']],
    ]);
  });
});

describe('__all__', () => {
  const cases: [string, string, { names: string[]; dynamic: boolean } | null][] = [
    ['no __all__', 'x = 1\n', null],
    ['literal list', "__all__ = ['A', 'b']\n", { names: ['A', 'b'], dynamic: false }],
    ['literal tuple', '__all__ = ("A",)\n', { names: ['A'], dynamic: false }],
    [
      '+= and .extend and .append',
      "__all__ = ['a']\n__all__ += ['b']\n__all__.extend(('c', 'a'))\n__all__.append('d')\n",
      { names: ['a', 'b', 'c', 'd'], dynamic: false },
    ],
    ['concatenation of literals', "__all__ = ['a'] + ['b']\n", { names: ['a', 'b'], dynamic: false }],
    ['extended from another module', "__all__ = ['a'] + other.__all__ + ['b']\n", { names: ['a', 'b'], dynamic: true }],
    ['computed', "__all__ = [n for n in dir() if not n.startswith('_')]\n", { names: [], dynamic: true }],
    ['.extend with a variable', "__all__ = ['a']\n__all__.extend(names)\n", { names: ['a'], dynamic: true }],
    ['reassignment replaces', "__all__ = ['a']\n__all__ = ['b']\n", { names: ['b'], dynamic: false }],
    ['annotated', "__all__: list[str] = ['a']\n", { names: ['a'], dynamic: false }],
    ['inside a module-level if', "if X:\n    __all__ = ['a']\n", { names: ['a'], dynamic: false }],
    ['a function-local __all__ is not the module one', "def f():\n    __all__ = ['a']\n", null],
  ];
  for (const [why, src, want] of cases) it(why, () => expect(parseText(src).all).toEqual(want));
});
