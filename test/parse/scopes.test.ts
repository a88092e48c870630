// Scope analysis, ruff-style: one Python snippet per case, the expected binds / eager / deferred free names of one
// top-level statement (the last unless `stmt` says otherwise), and why.
import { describe, expect, it } from 'vitest';
import { parseText } from '../../pipeline/parse/parse-module.ts';

interface Case {
  why: string;
  src: string;
  stmt?: number;
  binds?: string[];
  eager?: string[];
  deferred?: string[];
  /** Module names rebound through `global` in code that runs later. */
  rebinds?: string[];
  mutates?: string[];
  sideEffect?: boolean;
}

const cases: Case[] = [
  // Class scope and methods
  {
    why: 'methods skip the class scope: n in a method is the module n',
    src: 'class A:\n    n = 1\n    def f(self): return n\n',
    binds: ['A'],
    eager: [],
    deferred: ['n'],
  },
  {
    why: 'class body statements run at import time',
    src: 'class A(Base):\n    act = nn.ReLU\n    def forward(self, x): return self.act(x)\n',
    eager: ['Base', 'nn'],
    deferred: [],
  },
  {
    why: 'a nested class body does not see the outer class body',
    src: 'class Outer:\n    K = 1\n    class Inner:\n        v = K\n',
    eager: ['K'],
  },
  {
    why: 'class body: `x = x` reads the module x (bound after the right-hand side)',
    src: 'class A:\n    x = x\n',
    eager: ['x'],
    deferred: [],
  },
  {
    why: 'class body: a name bound earlier in the body is class-local',
    src: 'class A:\n    x = 1\n    y = x\n',
    eager: [],
  },
  {
    why: 'decorators in a class body see class names (`@x.setter`)',
    src: 'class A:\n    @property\n    def x(self): return 1\n    @x.setter\n    def x(self, v): pass\n',
    eager: ['property'],
    deferred: [],
  },
  {
    why: 'a default in a method is read in the class body',
    src: 'class A:\n    k = 2\n    def f(self, v=k): return v\n',
    eager: [],
    deferred: [],
  },
  {
    why: 'a lambda in a class body skips the class scope',
    src: 'class A:\n    k = 2\n    f = lambda self: k\n',
    eager: [],
    deferred: ['k'],
  },
  {
    why: 'comprehension in a class: first iterable sees the class, the element does not',
    src: 'class A:\n    n = 3\n    sq = [i * n for i in range(n)]\n',
    eager: ['n', 'range'],
  },
  {
    why: 'super() and self are not module names except super',
    src: 'class A(B):\n    def __init__(self):\n        super().__init__()\n        self.x = 1\n',
    eager: ['B'],
    deferred: ['super'],
  },

  // Functions
  {
    why: 'defaults and kw-only defaults are eager, the body is deferred',
    src: 'def f(x=D, *, y=E):\n    return x + y + G\n',
    binds: ['f'],
    eager: ['D', 'E'],
    deferred: ['G'],
  },
  {
    why: 'decorators are eager',
    src: '@dec\n@lib.wrap(OPT)\ndef f(): pass\n',
    eager: ['OPT', 'dec', 'lib'],
    deferred: [],
  },
  {
    why: 'annotations are eager without the __future__ import',
    src: 'def f(x: Tensor, *a: Extra) -> Out: pass\n',
    eager: ['Extra', 'Out', 'Tensor'],
    deferred: [],
  },
  {
    why: 'annotations are deferred with `from __future__ import annotations`',
    src: 'from __future__ import annotations\ndef f(x: Tensor) -> Out: pass\n',
    eager: [],
    deferred: ['Out', 'Tensor'],
  },
  {
    why: 'a name assigned anywhere in a function is local, even after the read',
    src: 'def f():\n    print(x)\n    x = 1\n',
    deferred: ['print'],
  },
  { why: 'augmented assignment makes the name local', src: 'def f():\n    total += 1\n', deferred: [] },
  { why: '`del x` makes x local', src: 'def f():\n    del x\n', deferred: [] },
  {
    why: 'global: the module name is read, and rebound when the def runs (not an import-time binding)',
    src: 'def setup():\n    global CACHE\n    CACHE = {}\n    return CACHE\n',
    binds: ['setup'],
    deferred: ['CACHE'],
    rebinds: ['CACHE'],
  },
  {
    why: 'global in a method rebinds when the method runs, not when the class statement does',
    src: 'class A:\n    def m(self):\n        global STATE\n        STATE = 1\n',
    binds: ['A'],
    deferred: [],
    rebinds: ['STATE'],
  },
  {
    why: 'global in a class body binds at import time: the body runs with the class statement',
    src: 'class A:\n    global FLAG\n    FLAG = 1\n',
    binds: ['A', 'FLAG'],
    rebinds: [],
  },
  {
    why: 'global + augmented assignment: read and rebound later',
    src: 'def bump():\n    global N\n    N += 1\n',
    binds: ['bump'],
    deferred: ['N'],
    rebinds: ['N'],
  },
  {
    why: 'nonlocal rebinds the enclosing function’s name, never the module’s',
    src: 'def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n = 1\n    return inner\n',
    binds: ['outer'],
    deferred: [],
    rebinds: [],
  },
  {
    why: 'identifiers are NFKC-normalised as Python does: `ﬁx` and `fix` are one name, `Ｂlock` binds Block',
    src: 'class Ｂlock:\n    def f(self): return ﬁx(1)\n',
    binds: ['Block'],
    deferred: ['fix'],
  },
  {
    why: 'nonlocal refers to the enclosing function, never free',
    src: 'def outer():\n    count = 0\n    def inc():\n        nonlocal count\n        count += 1\n        return count\n    return inc\n',
    binds: ['outer'],
    deferred: [],
  },
  {
    why: 'closures: an inner function reading outer locals is not free',
    src: 'def outer(a):\n    b = a\n    def inner():\n        return a + b + c\n    return inner\n',
    deferred: ['c'],
  },
  {
    why: 'a nested function inside a method',
    src: 'class A:\n    def m(self):\n        def helper(): return K\n        return helper()\n',
    deferred: ['K'],
  },
  {
    why: 'a class in a function: its bases and body see the function locals',
    src: 'def make(base):\n    class Local(base):\n        y = base\n    return Local\n',
    deferred: [],
  },
  {
    why: 'a class in a function: module names in its bases are deferred',
    src: 'def f():\n    class L(Base): pass\n',
    deferred: ['Base'],
  },
  {
    why: 'function-local imports bind locally',
    src: 'def f():\n    import numpy as np\n    from . import helpers\n    return np.zeros(1) + helpers.g()\n',
    deferred: [],
  },
  {
    why: 'try/except ImportError in a function: the fallback binding is local too',
    src: 'def f():\n    try:\n        import a\n    except ImportError:\n        a = None\n    return a\n',
    deferred: ['ImportError'],
  },
  {
    why: 'except/with/for targets are local',
    src: 'def f():\n    try:\n        pass\n    except E as e:\n        return e\n    with open(p) as fh:\n        return fh\n    for i in r:\n        return i\n',
    deferred: ['E', 'open', 'p', 'r'],
  },
  {
    why: '*args / **kwargs / positional-only are parameters',
    src: 'def f(a, /, *args, **kwargs):\n    return a, args, kwargs\n',
    deferred: [],
  },

  // Lambdas and comprehensions
  {
    why: 'lambda: default eager, params local, body deferred',
    src: 'f = lambda x, y=D: x + y + Z\n',
    binds: ['f'],
    eager: ['D'],
    deferred: ['Z'],
  },
  {
    why: 'comprehension variables are local to the comprehension',
    src: 'def f():\n    [i for i in r]\n    return i\n',
    deferred: ['i', 'r'],
  },
  {
    why: 'dict comprehension: first iterable eager with its attribute chain',
    src: 'd = {k: f(v) for k, v in items.items()}\n',
    binds: ['d'],
    eager: ['f', 'items'],
  },
  {
    why: 'nested comprehension: the inner iterable is read in the outer comprehension',
    src: 'm = [[x * y for y in ys] for x in xs]\n',
    eager: ['xs', 'ys'],
  },
  {
    why: 'walrus in a comprehension binds in the enclosing function',
    src: 'def f(xs):\n    ys = [y := g(x) for x in xs]\n    return y\n',
    binds: ['f'],
    deferred: ['g'],
  },
  {
    why: 'walrus in a module-level comprehension binds a module name',
    src: '[last := x for x in xs]\n',
    binds: ['last'],
    eager: ['xs'],
  },
  {
    why: 'walrus in a module-level if',
    src: 'if (m := re.match(p, s)):\n    pass\n',
    binds: ['m'],
    eager: ['p', 're', 's'],
  },
  { why: 'generator as the only argument', src: 'total = sum(w for w in weights)\n', eager: ['sum', 'weights'] },

  // Module-level statements
  { why: '`import a.b` binds a', src: 'import os.path\n', binds: ['os'], eager: [] },
  { why: 'a star import binds nothing statically', src: 'from m import *\n', binds: [], eager: [] },
  {
    why: 'try/except ImportError binds the name on both paths',
    src: 'try:\n    from yaml import CLoader as Loader\nexcept ImportError:\n    from yaml import Loader\n',
    binds: ['Loader'],
    eager: ['ImportError'],
  },
  {
    why: 'annotated module assignment: annotation and value eager',
    src: 'x: Foo = bar()\n',
    binds: ['x'],
    eager: ['Foo', 'bar'],
  },
  { why: 'a bare annotation binds nothing', src: 'x: Foo\n', binds: [], eager: ['Foo'] },
  { why: 'tuple unpacking and starred targets', src: 'a, (b, *c) = d\n', binds: ['a', 'b', 'c'], eager: ['d'] },
  { why: 'chained assignment', src: 'a = b = c\n', binds: ['a', 'b'], eager: ['c'] },
  {
    why: 'for loop at module level binds its target; the body too',
    src: 'for name in NAMES:\n    globals()[name] = 1\n',
    binds: ['name'],
    eager: ['NAMES', 'globals', 'name'],
  },
  {
    why: 'with at module level: the `as` name is a module name read by the body',
    src: 'with open(p) as f:\n    data = f.read()\n',
    binds: ['f', 'data'],
    eager: ['f', 'open', 'p'],
  },
  {
    why: 'definitions nested in a module-level if',
    src: 'if sys.version_info >= (3, 8):\n    def f(): pass\nelse:\n    f = None\n',
    binds: ['f'],
    eager: ['sys'],
  },
  {
    why: 'f-strings are read, including nested format specs',
    src: 'msg = f"{PREFIX}-{name!r:>{WIDTH}}"\n',
    eager: ['PREFIX', 'WIDTH', 'name'],
  },
  { why: 'plain strings hold no names', src: 'msg = "{PREFIX}"\n', eager: [] },
  { why: 'keyword argument names are not reads', src: 'x = f(a=1, b=c)\n', eager: ['c', 'f'] },
  {
    why: 'match: captures bind, value patterns and class patterns read',
    src: 'match cmd:\n    case Point(x=0, y=yy):\n        use(yy)\n    case Color.RED:\n        pass\n',
    binds: ['yy'],
    eager: ['Color', 'Point', 'cmd', 'use', 'yy'],
  },
  {
    why: 'match: sequence captures, star captures and `as` bind',
    src: 'match p:\n    case [first, *rest] as whole:\n        pass\n    case {"k": v, **kw}:\n        pass\n',
    binds: ['first', 'rest', 'whole', 'v', 'kw'],
    eager: ['p'],
  },
  {
    why: 'a lambda used as a default: the default is eager, its body deferred',
    src: 'def f(key=lambda x: CONST): pass\n',
    eager: [],
    deferred: ['CONST'],
  },
  {
    why: 'global in a doubly nested function rebinds through the top statement when it runs',
    src: 'def outer():\n    def inner():\n        global G\n        G = 1\n',
    binds: ['outer'],
    rebinds: ['G'],
  },
  {
    why: 'async comprehension targets are local',
    src: 'async def f():\n    return [x async for x in aiter_of(SRC)]\n',
    deferred: ['SRC', 'aiter_of'],
  },
  {
    why: 'conditional expressions, slices, unpacking in calls',
    src: 'y = a[b:c] if d else f(*g, **h)\n',
    eager: ['a', 'b', 'c', 'd', 'f', 'g', 'h'],
  },
  { why: 'type alias binds its name', src: 'type Vec = list[float]\n', binds: ['Vec'], eager: ['float', 'list'] },

  // Mutations and side effects
  {
    why: 'subscript assignment mutates the registry and binds nothing',
    src: 'REGISTRY["x"] = X\n',
    binds: [],
    eager: ['REGISTRY', 'X'],
    mutates: ['REGISTRY'],
    sideEffect: true,
  },
  { why: 'nested subscripts mutate the root name', src: 'CFG["a"]["b"] = 1\n', mutates: ['CFG'] },
  {
    why: 'attribute of a subscript mutates the root name',
    src: 'layers[0].weight = w\n',
    mutates: ['layers'],
    eager: ['layers', 'w'],
  },
  {
    why: 'assigning into a call result mutates nothing named',
    src: 'get_cfg().x = 1\n',
    mutates: [],
    eager: ['get_cfg'],
  },
  { why: 'del of a registry entry mutates it', src: 'del REGISTRY["old"]\n', mutates: ['REGISTRY'] },
  { why: 'augmented subscript mutates', src: 'COUNTS["a"] += 1\n', mutates: ['COUNTS'], binds: [] },
  { why: 'attribute assignment mutates the object', src: 'obj.attr = v\n', mutates: ['obj'], sideEffect: true },
  { why: '.update() at module level mutates', src: 'REGISTRY.update(a=1)\n', mutates: ['REGISTRY'], sideEffect: true },
  {
    why: 'registering decorators mutate their registry',
    src: '@MODELS.register_module()\nclass A: pass\n@BACKBONES.register\nclass B: pass\n',
    stmt: 0,
    mutates: ['MODELS'],
  },
  {
    why: 'registering decorator without call',
    src: '@BACKBONES.register\nclass B: pass\n',
    mutates: ['BACKBONES'],
    sideEffect: false,
  },
  {
    why: 'a mutation inside a function body is not an import-time mutation',
    src: 'def f():\n    REG["a"] = 1\n',
    mutates: [],
    deferred: ['REG'],
  },
  { why: 'a plain call is a side effect, not a mutation', src: 'register(X)\n', mutates: [], sideEffect: true },
  {
    why: '`__all__ += [...]` rebinds and mutates',
    src: '__all__ = ["a"]\n__all__ += ["b"]\n',
    binds: ['__all__'],
    eager: ['__all__'],
    mutates: ['__all__'],
  },
  {
    why: 'mutation of a function-local name is not a module mutation',
    src: 'def f():\n    d = {}\n    d["k"] = 1\n',
    mutates: [],
  },
];

const names = (refs: { name: string }[]) => refs.map((r) => r.name).sort();

describe('free names per top-level statement', () => {
  for (const c of cases) {
    it(c.why, () => {
      const facts = parseText(c.src);
      expect(facts.diagnostics).toEqual([]);
      const st = facts.statements[c.stmt ?? facts.statements.length - 1];
      if (c.binds) expect(st.binds).toEqual(c.binds);
      if (c.eager) expect(names(st.eager)).toEqual(c.eager);
      if (c.deferred) expect(names(st.deferred)).toEqual(c.deferred);
      if (c.rebinds) expect(names(st.rebinds)).toEqual(c.rebinds);
      if (c.mutates) expect(st.mutates).toEqual(c.mutates);
      if (c.sideEffect !== undefined) expect(st.sideEffect).toBe(c.sideEffect);
    });
  }
});

describe('occurrences', () => {
  it('records every occurrence with byte spans and the attribute chain, capped at 4', () => {
    const src = 'y = torchvision.ops.boxes.nms.x.y(b) + helpers.f(torchvision)\n';
    const st = parseText(src).statements[0];
    const tv = st.eager.find((r) => r.name === 'torchvision')!;
    expect(tv.occurrences.map((o) => o.attrs)).toEqual([['ops', 'boxes', 'nms', 'x'], []]);
    for (const o of tv.occurrences) expect(src.slice(o.startByte, o.endByte)).toBe('torchvision');
    expect(st.eager.find((r) => r.name === 'helpers')!.occurrences[0].attrs).toEqual(['f']);
  });

  it('counts only the occurrences that resolve to the module', () => {
    const st = parseText('class A:\n    n = 3\n    sq = [i * n for i in range(n)]\n').statements[0];
    // `range(n)` reads A.n; only the element's n (which skips the class) is the module's.
    expect(st.eager.find((r) => r.name === 'n')!.occurrences).toHaveLength(1);
  });

  it('splits one name between eager and deferred occurrences', () => {
    const st = parseText('class A(Base):\n    def f(self): return Base\n').statements[0];
    expect(names(st.eager)).toEqual(['Base']);
    expect(names(st.deferred)).toEqual(['Base']);
  });

  it('gives byte offsets (not UTF-16 indices) after non-ASCII text', () => {
    const src = "s = 'héllo wörld 🙂'\nπ = 3.14\nX = Y + π\n";
    const facts = parseText(src);
    const bytes = Buffer.from(src, 'utf8');
    const st = facts.statements[2];
    for (const ref of st.eager)
      for (const o of ref.occurrences) expect(bytes.subarray(o.startByte, o.endByte).toString('utf8')).toBe(ref.name);
    expect(facts.statements[1].binds).toEqual(['π']);
    expect(bytes.subarray(st.span.startByte, st.span.endByte).toString('utf8')).toBe('X = Y + π');
  });

  it('a global rebinding records its `global` declaration and each binding, for renames', () => {
    const src = 'def set_fast_norm(enable=True):\n    global _USE_FAST_NORM\n    _USE_FAST_NORM = enable\n';
    const [rb] = parseText(src).statements[0].rebinds;
    expect(rb.name).toBe('_USE_FAST_NORM');
    expect(rb.occurrences.map((o) => src.slice(o.startByte, o.endByte))).toEqual(['_USE_FAST_NORM', '_USE_FAST_NORM']);
    expect(rb.occurrences.map((o) => o.startByte)).toEqual([src.indexOf('_USE'), src.lastIndexOf('_USE')]);
  });
});
