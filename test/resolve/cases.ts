// Resolver cases in the ruff/stack-graphs style: a tiny multi-file package, the block to close over, the
// definitions the closure must contain and must not contain (as 'module:name'), and why.
import { py, type Tree } from '../helpers/tree.ts';
import { annotationCases } from './annotation-cases.ts';
import { flowCases } from './flow-cases.ts';
import { headerImportCases } from './header-import-cases.ts';
import { methodCases } from './method-cases.ts';
import { registryCases } from './registry-cases.ts';
import { moduleObjectCases } from './module-object-cases.ts';

export interface ResolverCase {
  name: string;
  why: string;
  files: Tree;
  /** Block as 'module:Class'. */
  block: string;
  has?: string[];
  hasNot?: string[];
  /** Substrings the emitted code must contain / not contain. */
  code?: string[];
  notCode?: string[];
  /** Substrings the emitted code must contain in this order (definition before use at import time). */
  order?: string[];
  /** Diagnostic codes expected. */
  diagnostics?: string[];
  /**
   * The emitted module can't import without a module the index lacks: the error it must fail with instead
   * (test/assemble/import.test.ts), which names the missing module.
   */
  importError?: string;
  /**
   * Python run after the emitted module is imported (test/assemble/import.test.ts), with the block class as
   * `Block` and `torch` imported: for closures whose gaps only show when code runs (a NameError in forward).
   */
  run?: string;
}

const NN = 'import torch\nimport torch.nn as nn\n';
const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

export const cases: ResolverCase[] = [
  {
    name: 'helper used in forward is included, unused one is not',
    why: 'free names of methods are the references; nothing else is pulled in',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def helper(x):
          return x * 2
      def unused():
          return 1
      class Block(nn.Module):
          def forward(self, x):
              return helper(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:helper', 'pkg.m:Block'],
    hasNot: ['pkg.m:unused'],
  },
  {
    name: 'class-scope skip',
    why: 'a method does not see class-level names: `act` in forward is the module-level function',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def act(x):
          return x
      class Block(nn.Module):
          act = None
          def forward(self, x):
              return act(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:act'],
  },
  {
    name: 'class attribute read in the class body stays in the class',
    why: 'class-level names are visible to later class-level statements, not to the module',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      width = 99
      class Block(nn.Module):
          width = 4
          doubled = width * 2
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:width'],
  },
  {
    name: 'default argument',
    why: 'defaults are evaluated in the enclosing (module) scope at definition time',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      DEFAULT_K = 3
      class Block(nn.Module):
          def __init__(self, k=DEFAULT_K):
              super().__init__()
              self.k = k
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:DEFAULT_K'],
  },
  {
    name: 'class decorator',
    why: 'decorators are evaluated in the enclosing scope and kept verbatim',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def tag(cls):
          cls.tagged = True
          return cls
      @tag
      class Block(nn.Module):
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:tag'],
    code: ['@tag'],
  },
  {
    name: 'base class in the same module',
    why: 'bases are needed at import time and come before the class',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      class Block(nn.Module):
          pass
      class Base(nn.Module):
          def forward(self, x):
              return x
      Block.__bases__ = (Base,) if False else Block.__bases__
      class Child(Base):
          pass
    `,
    }),
    block: 'pkg.m:Child',
    has: ['pkg.m:Base'],
    hasNot: ['pkg.m:Block'],
  },
  {
    name: 'base class through a relative import',
    why: '`from .base import Base` is followed to the defining module; the import itself is dropped',
    files: pkg({
      'pkg/base.py': NN + 'class Base(nn.Module):\n    def forward(self, x):\n        return x\n',
      'pkg/m.py': 'from .base import Base\n\nclass Child(Base):\n    pass\n',
    }),
    block: 'pkg.m:Child',
    has: ['pkg.base:Base'],
    notCode: ['from .base import'],
  },
  {
    name: 'aliased from-import',
    why: '`from .x import y as z`: references to z reach y',
    files: pkg({
      'pkg/x.py': 'def y(t):\n    return t\n',
      'pkg/m.py':
        NN + 'from .x import y as z\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return z(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.x:y'],
  },
  {
    name: 'parent-relative import',
    why: '`from ..util import helper` climbs one package',
    files: pkg({
      'pkg/util.py': 'def helper(t):\n    return t\n',
      'pkg/sub/__init__.py': '',
      'pkg/sub/m.py':
        NN +
        'from ..util import helper\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return helper(t)\n',
    }),
    block: 'pkg.sub.m:Block',
    has: ['pkg.util:helper'],
  },
  {
    name: 'package __init__ re-export',
    why: '`from pkg import Conv` where pkg/__init__ re-exports it from a submodule',
    files: {
      'pkg/__init__.py': 'from .layers import Conv\n',
      'pkg/layers.py': NN + 'class Conv(nn.Module):\n    def forward(self, x):\n        return x\n',
      'pkg/m.py':
        NN +
        'from pkg import Conv\n\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.c = Conv()\n    def forward(self, x):\n        return self.c(x)\n',
    },
    block: 'pkg.m:Block',
    has: ['pkg.layers:Conv'],
  },
  {
    name: 'star import honours __all__',
    why: 'only names in __all__ come through `from .ops import *`',
    files: pkg({
      'pkg/ops.py': '__all__ = ["a"]\n\ndef a(t):\n    return t\n\ndef b(t):\n    return t\n',
      'pkg/m.py':
        NN + 'from .ops import *\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return a(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.ops:a'],
    hasNot: ['pkg.ops:b'],
  },
  {
    name: 'star import without __all__ gives public names',
    why: 'without __all__, a star import binds every public module-level name',
    files: pkg({
      'pkg/ops.py': 'def public(t):\n    return t\n',
      'pkg/m.py':
        NN + 'from .ops import *\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return public(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.ops:public'],
  },
  {
    name: 'star import: a name outside __all__ is unresolved',
    why: '__all__ = ["a"] hides b; a reference to b is reported, not guessed',
    files: pkg({
      'pkg/ops.py': '__all__ = ["a"]\n\ndef a(t):\n    return t\n\ndef b(t):\n    return t\n',
      'pkg/m.py':
        NN + 'from .ops import *\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return b(t)\n',
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.ops:b'],
    diagnostics: ['unresolved-name'],
  },
  {
    name: 'module object access',
    why: '`from . import helpers` then `helpers.f(...)`: f is pulled in, g is not, a namespace stands in',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t\n\ndef g(t):\n    return t\n',
      'pkg/m.py':
        NN +
        'from . import helpers\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return helpers.f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
    hasNot: ['pkg.helpers:g'],
    code: ['helpers = _nnb_SimpleNamespace(f=f)'],
  },
  {
    name: 'aliased absolute module import',
    why: '`import pkg.helpers as H` then `H.f`',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t\n',
      'pkg/m.py':
        NN + 'import pkg.helpers as H\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return H.f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
  },
  {
    name: 'dotted access through the top package',
    why: '`import pkg` then `pkg.helpers.f`: nested namespaces',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t\n',
      'pkg/m.py':
        NN + 'import pkg\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return pkg.helpers.f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
  },
  {
    name: 'function-local import',
    why: 'a local import of an internal name is rewritten; its target is defined at module level',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t\n',
      'pkg/m.py':
        NN +
        'class Block(nn.Module):\n    def forward(self, t):\n        from .helpers import f\n        return f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
    notCode: ['from .helpers import f'],
  },
  {
    name: 'function-local external import stays',
    why: 'external local imports are kept verbatim',
    files: pkg({
      'pkg/m.py':
        NN + 'class Block(nn.Module):\n    def forward(self, t):\n        import math\n        return t * math.pi\n',
    }),
    block: 'pkg.m:Block',
    code: ['        import math'],
  },
  {
    name: 'try/except ImportError fallback',
    why: 'the statement that binds the name is kept whole, both alternatives',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        try:
            from torch.hub import load_state_dict_from_url
        except ImportError:
            from torch.utils.model_zoo import load_url as load_state_dict_from_url
        class Block(nn.Module):
            def forward(self, t):
                load_state_dict_from_url
                return t
      `,
    }),
    block: 'pkg.m:Block',
    code: ['except ImportError:'],
  },
  {
    name: 'comprehension in a method',
    why: 'the comprehension variable is local; the function it calls is global',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      x = 'module x'
      def g(v):
          return v
      class Block(nn.Module):
          def forward(self, t):
              return sum(g(x) for x in [t])
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:g'],
    hasNot: ['pkg.m:x'],
  },
  {
    name: "comprehension's first iterable at class level",
    why: 'the first iterable is evaluated in the class scope, which reads the module-level WIDTHS',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      WIDTHS = [1, 2]
      class Block(nn.Module):
          doubled = [w * 2 for w in WIDTHS]
          def forward(self, t):
              return t
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:WIDTHS'],
  },
  {
    name: 'global declaration',
    why: '`global COUNTER` in a method makes COUNTER the module-level binding',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      COUNTER = 0
      class Block(nn.Module):
          def forward(self, t):
              global COUNTER
              COUNTER += 1
              return t
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:COUNTER'],
    code: ['COUNTER = 0'],
    run: 'Block()(1)',
  },
  {
    name: 'closure variable is not global',
    why: 'an inner function reading its enclosing function’s local never reaches the module',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      scale = 'global'
      class Block(nn.Module):
          def forward(self, t):
              scale = 2
              def inner(v):
                  return v * scale
              return inner(t)
    `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:scale'],
  },
  {
    name: 'nonlocal',
    why: '`nonlocal n` refers to the enclosing function, not the module-level n',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      n = 'global'
      class Block(nn.Module):
          def forward(self, t):
              n = 0
              def bump():
                  nonlocal n
                  n += 1
              bump()
              return t
    `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:n'],
  },
  {
    name: 'module-level lambda',
    why: 'a lambda bound at module level is a definition; its body reads relu6 later',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def relu6(v):
          return v
      act = lambda v: relu6(v)
      class Block(nn.Module):
          def forward(self, t):
              return act(t)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:act', 'pkg.m:relu6'],
  },
  {
    name: 'registry filled by assignment',
    why: 'a statement that mutates a needed registry is kept with what it registers',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      class Foo(nn.Module):
          def forward(self, t):
              return t
      REGISTRY = {}
      REGISTRY['foo'] = Foo
      class Block(nn.Module):
          def forward(self, t):
              return REGISTRY['foo']()(t)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:REGISTRY', 'pkg.m:Foo'],
    code: ["REGISTRY['foo'] = Foo"],
  },
  {
    name: 'decorator writing to a registry',
    why: 'the decorator is kept and so is the registry its body writes to',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      MODELS = {}
      def register(cls):
          MODELS[cls.__name__] = cls
          return cls
      @register
      class Block(nn.Module):
          def forward(self, t):
              return t
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:register', 'pkg.m:MODELS'],
  },
  {
    name: 'dataclass used as a default',
    why: 'the default is evaluated at import time, so the dataclass and its import come first',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      from dataclasses import dataclass
      @dataclass
      class Cfg:
          dim: int = 4
      class Block(nn.Module):
          def __init__(self, cfg=Cfg()):
              super().__init__()
              self.cfg = cfg
          def forward(self, t):
              return t
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:Cfg'],
    code: ['from dataclasses import dataclass'],
  },
  {
    name: 'constant chain',
    why: 'B = A * 2 needs A at import time',
    files: pkg({
      'pkg/m.py':
        NN + 'A = 4\nB = A * 2\nC = 0\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return t * B\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:A', 'pkg.m:B'],
    hasNot: ['pkg.m:C'],
  },
  {
    name: 'transitive calls',
    why: 'forward → f → g',
    files: pkg({
      'pkg/m.py':
        NN +
        'def g(t):\n    return t\n\ndef f(t):\n    return g(t)\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:f', 'pkg.m:g'],
  },
  {
    name: 'mutual recursion',
    why: 'cycles terminate',
    files: pkg({
      'pkg/m.py':
        NN +
        'def f(t, n=2):\n    return g(t, n - 1) if n else t\n\ndef g(t, n):\n    return f(t, n)\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:f', 'pkg.m:g'],
  },
  {
    name: 'redefinition: the last binding wins',
    why: 'functions see the module namespace after it ran',
    files: pkg({
      'pkg/m.py':
        NN +
        'def f(t):\n    return "first"\n\ndef f(t):\n    return "second"\n\nclass Block(nn.Module):\n    def forward(self, t):\n        f(t)\n        return t\n',
    }),
    block: 'pkg.m:Block',
    code: ['"second"'],
    notCode: ['"first"'],
  },
  {
    name: 'parameter shadows a global',
    why: 'a parameter named like a module function is local',
    files: pkg({
      'pkg/m.py':
        NN +
        'def helper(t):\n    return t\n\nclass Block(nn.Module):\n    def forward(self, t, helper=None):\n        return helper\n',
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:helper'],
  },
  {
    name: 'local assignment shadows a global',
    why: 'any assignment in a function makes the name local there',
    files: pkg({
      'pkg/m.py':
        NN +
        'size = 3\n\nclass Block(nn.Module):\n    def forward(self, t):\n        size = 2\n        return t * size\n',
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:size'],
  },
  {
    name: 'walrus in a comprehension binds in the function',
    why: 'PEP 572: `(last := v)` inside a comprehension binds `last` in the enclosing function',
    files: pkg({
      'pkg/m.py':
        NN +
        'last = "global"\n\nclass Block(nn.Module):\n    def forward(self, t):\n        [(last := v) for v in [t]]\n        return last\n',
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:last'],
  },
  {
    name: 'except-as and with-as targets are local',
    why: 'handler and context-manager targets bind in the function',
    files: pkg({
      'pkg/m.py':
        NN +
        'err = 1\nctx = 2\n\nclass Block(nn.Module):\n    def forward(self, t):\n        try:\n            pass\n        except Exception as err:\n            print(err)\n        with open("/dev/null") as ctx:\n            ctx.read()\n        return t\n',
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:err', 'pkg.m:ctx'],
  },
  {
    name: 'class keyword metaclass',
    why: 'class keywords are evaluated at import time',
    files: pkg({
      'pkg/m.py':
        NN +
        'class Meta(type):\n    pass\n\nclass Block(nn.Module, metaclass=Meta):\n    def forward(self, t):\n        return t\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:Meta'],
  },
  {
    name: 'annotations read at definition time',
    why: 'without `from __future__ import annotations`, parameter annotations are evaluated eagerly',
    files: pkg({
      'pkg/m.py':
        NN +
        'from torch import Tensor\n\nclass Block(nn.Module):\n    def forward(self, t: Tensor) -> Tensor:\n        return t\n',
    }),
    block: 'pkg.m:Block',
    code: ['from torch import Tensor'],
  },
  {
    name: 'external imports preserved in their original form',
    why: '`import torch.nn.functional as F` stays an import, grouped with third-party imports',
    files: pkg({
      'pkg/m.py':
        NN +
        'import math\nimport torch.nn.functional as F\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return F.relu(t) * math.pi\n',
    }),
    block: 'pkg.m:Block',
    code: ['import torch.nn.functional as F', 'import math'],
  },
  {
    name: 'absolute import of the own package',
    why: '`from pkg.helpers import f` is internal',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t\n',
      'pkg/m.py':
        NN + 'from pkg.helpers import f\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return f(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
    notCode: ['from pkg.helpers'],
  },
  {
    name: 're-export chain through a star import',
    why: 'pkg/__init__ star-imports a, which imports X from b',
    files: {
      'pkg/__init__.py': 'from .a import *\n',
      'pkg/a.py': 'from .b import X\n__all__ = ["X"]\n',
      'pkg/b.py': 'X = 7\n',
      'pkg/m.py':
        NN + 'from pkg import X\n\nclass Block(nn.Module):\n    def forward(self, t):\n        return t * X\n',
    },
    block: 'pkg.m:Block',
    has: ['pkg.b:X'],
  },
  {
    name: 'class attribute read from a module constant',
    why: 'the class body runs at import time',
    files: pkg({
      'pkg/m.py':
        NN + 'SIZE = 8\n\nclass Block(nn.Module):\n    size = SIZE\n    def forward(self, t):\n        return t\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:SIZE'],
  },
  {
    name: 'name clash across modules',
    why: 'two needed `Conv` classes: neither is dropped, each reference reaches its own',
    files: pkg({
      'pkg/a.py': NN + 'class Conv(nn.Module):\n    kind = "a"\n    def forward(self, t):\n        return t\n',
      'pkg/b.py': NN + 'class Conv(nn.Module):\n    kind = "b"\n    def forward(self, t):\n        return t\n',
      'pkg/m.py':
        NN +
        'from .a import Conv\nfrom .b import Conv as ConvB\n\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.x = Conv()\n        self.y = ConvB()\n    def forward(self, t):\n        return self.y(self.x(t))\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.a:Conv', 'pkg.b:Conv'],
    code: ['kind = "a"', 'kind = "b"'],
  },
  {
    name: 'the block keeps its name when a dependency shares it',
    why: 'a helper module defines its own `Block`; the block is emitted under its own name',
    files: pkg({
      'pkg/other.py': NN + 'class Block(nn.Module):\n    def forward(self, t):\n        return t\n',
      'pkg/m.py': NN + 'from . import other\n\nclass Block(other.Block):\n    pass\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.other:Block', 'pkg.m:Block'],
  },
  {
    name: 'decorated method needs its decorator',
    why: 'method decorators are evaluated when the class body runs',
    files: pkg({
      'pkg/m.py':
        NN +
        'def traced(fn):\n    return fn\n\nclass Block(nn.Module):\n    @traced\n    def forward(self, t):\n        return t\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:traced'],
  },
  {
    name: 'nested class inside the block',
    why: 'methods of a nested class are also references of the block',
    files: pkg({
      'pkg/m.py':
        NN +
        'def deep(t):\n    return t\n\nclass Block(nn.Module):\n    class Inner:\n        def go(self, t):\n            return deep(t)\n    def forward(self, t):\n        return self.Inner().go(t)\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:deep'],
  },
  {
    name: 'module dunders are not definitions',
    why: '`__name__` is bound by the import system',
    files: pkg({
      'pkg/m.py':
        NN +
        'import logging\nlogger = logging.getLogger(__name__)\n\nclass Block(nn.Module):\n    def forward(self, t):\n        logger.debug("x")\n        return t\n',
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:logger'],
    code: ['import logging'],
  },
  {
    name: 'if TYPE_CHECKING imports do not break extraction',
    why: 'names used only in string annotations need nothing at runtime',
    files: pkg({
      'pkg/types.py': 'class Cfg:\n    pass\n',
      'pkg/m.py':
        NN +
        'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .types import Cfg\n\nclass Block(nn.Module):\n    def forward(self, t, cfg: "Cfg" = None):\n        return t\n',
    }),
    block: 'pkg.m:Block',
  },
  {
    name: 'a try/except import whose fallback module lacks the name binds it by the branch that resolves',
    why: "mmocr's __init__: `try: from mmengine.utils import digit_version` / `except ImportError: from mmcv import digit_version`, and mmcv 2 has no digit_version: upstream's run takes the first branch (the fallback alone left 14 blocks without the name)",
    files: pkg({
      'pkg/__init__.py': py`
        try:
            from .engine.utils import digit_version
        except ImportError:
            from .legacy import digit_version
      `,
      'pkg/engine/__init__.py': '',
      'pkg/engine/utils.py': 'def digit_version(v):\n    return (int(v),)\n',
      'pkg/legacy.py': 'VERSION = 1\n',
      'pkg/typing_utils.py': 'from pkg import digit_version\nX = digit_version("3")[0]\n',
      'pkg/m.py':
        NN +
        py`
      from pkg.typing_utils import X
      class Block(nn.Module):
          def forward(self, t):
              return t * X
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.engine.utils:digit_version', 'pkg.typing_utils:X'],
    run: 'assert Block()(torch.ones(1)).item() == 3',
  },
  {
    name: 'conditional redefinition keeps the fallback',
    why: 'a def replaced inside try may not be replaced at run time: both definitions come, the plain one first',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def has_ops():
          return False
      try:
          raise OSError('no native library')
          def has_ops():
              return True
      except OSError:
          pass
      class Block(nn.Module):
          def forward(self, t):
              return t if not has_ops() else t
    `,
    }),
    block: 'pkg.m:Block',
    code: ['return False', 'return True'],
  },
  {
    name: 'augmented assignment keeps the first binding',
    why: '`LAYERS += [...]` rebinds LAYERS from its earlier value, so both statements come, in order',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      LAYERS = ['a']
      LAYERS += ['b']
      class Block(nn.Module):
          def forward(self, t):
              return t * len(LAYERS)
    `,
    }),
    block: 'pkg.m:Block',
    code: ["LAYERS = ['a']", "LAYERS += ['b']"],
  },

  // global and nonlocal (docs/resolve.md, "global and nonlocal")
  {
    name: 'global: the module-level initialiser, not the function that rebinds it (timm fast_norm)',
    why: '`global _USE_FAST_NORM` in set_fast_norm rebinds it only when called; after import the module holds `False`',
    files: pkg({
      'pkg/fast_norm.py': py`
      _USE_FAST_NORM = False
      def is_fast_norm():
          return _USE_FAST_NORM
      def set_fast_norm(enable=True):
          global _USE_FAST_NORM
          _USE_FAST_NORM = enable
    `,
      'pkg/norm.py':
        NN +
        py`
      import torch.nn.functional as F
      from .fast_norm import is_fast_norm
      class LayerNorm2d(nn.LayerNorm):
          def __init__(self, num_channels, eps=1e-6, affine=True):
              super().__init__(num_channels, eps=eps, elementwise_affine=affine)
              self.fast_norm = is_fast_norm()
          def forward(self, x):
              x = x.permute(0, 2, 3, 1)
              x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
              return x.permute(0, 3, 1, 2)
    `,
    }),
    block: 'pkg.norm:LayerNorm2d',
    has: ['pkg.fast_norm:is_fast_norm'],
    hasNot: ['pkg.fast_norm:set_fast_norm'],
    code: ['_USE_FAST_NORM = False'],
    run: 'Block(4)(torch.zeros(1, 4, 2, 2))',
  },
  {
    name: 'global in a method of a class: the initialiser, not the class (timm _NO_JIT)',
    why: '`global _NO_JIT` in set_layer_config.__init__ runs when the class is instantiated, not when it is defined',
    files: pkg({
      'pkg/config.py': py`
      _NO_JIT = False
      _EXPORTABLE = False
      def is_no_jit():
          return _NO_JIT
      class set_layer_config:
          def __init__(self, no_jit=None, exportable=None):
              global _NO_JIT, _EXPORTABLE
              self.prev = _NO_JIT, _EXPORTABLE
              if no_jit is not None:
                  _NO_JIT = no_jit
              if exportable is not None:
                  _EXPORTABLE = exportable
          def __exit__(self, *args):
              global _NO_JIT, _EXPORTABLE
              _NO_JIT, _EXPORTABLE = self.prev
    `,
      'pkg/eca.py':
        NN +
        py`
      from .config import is_no_jit
      class EcaModule(nn.Module):
          def __init__(self, k=3):
              super().__init__()
              self.conv = nn.Conv1d(1, 1, kernel_size=k, padding=k // 2, bias=False)
          def forward(self, x):
              y = x.mean((2, 3)).view(x.shape[0], 1, -1)
              y = self.conv(y) if is_no_jit() else self.conv(y)
              return x * y.view(x.shape[0], -1, 1, 1).sigmoid()
    `,
    }),
    block: 'pkg.eca:EcaModule',
    has: ['pkg.config:is_no_jit'],
    hasNot: ['pkg.config:set_layer_config', 'pkg.config:_EXPORTABLE'],
    code: ['_NO_JIT = False'],
    run: 'Block()(torch.zeros(1, 4, 2, 2))',
  },
  {
    name: 'global with a conditional module-level initialiser (timm _USE_FUSED_ATTN)',
    why: 'the if/else that binds it at import time is the initialiser; set_fused_attn only rebinds it when called',
    files: pkg({
      'pkg/config.py': py`
      import os
      _EXPORTABLE = False
      if 'TIMM_FUSED_ATTN' in os.environ:
          _USE_FUSED_ATTN = int(os.environ['TIMM_FUSED_ATTN'])
      else:
          _USE_FUSED_ATTN = 1
      def use_fused_attn():
          return _USE_FUSED_ATTN > 0 and not _EXPORTABLE
      def set_fused_attn(enable=True):
          global _USE_FUSED_ATTN
          _USE_FUSED_ATTN = 1 if enable else 0
      def set_exportable(mode):
          global _EXPORTABLE
          _EXPORTABLE = mode
    `,
      'pkg/vit.py':
        NN +
        py`
      from .config import use_fused_attn
      class Attention(nn.Module):
          def __init__(self, dim=8):
              super().__init__()
              self.fused_attn = use_fused_attn()
              self.qkv = nn.Linear(dim, dim * 3)
          def forward(self, x):
              q, k, v = self.qkv(x).chunk(3, dim=-1)
              return (q @ k.transpose(-2, -1)).softmax(-1) @ v
    `,
    }),
    block: 'pkg.vit:Attention',
    has: ['pkg.config:use_fused_attn', 'pkg.config:_EXPORTABLE'],
    hasNot: ['pkg.config:set_fused_attn', 'pkg.config:set_exportable'],
    code: ["if 'TIMM_FUSED_ATTN' in os.environ:", '_EXPORTABLE = False', 'import os'],
    run: 'Block()(torch.zeros(1, 3, 8))',
  },
  {
    name: 'global bound only by a function called at import time',
    why: '`_build()` at module level is what binds _TABLE: the call comes, after the function it calls',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      def _build():
          global _TABLE
          _TABLE = {'relu': 2}
      _build()
      def scale_of(name):
          return _TABLE[name]
      class Block(nn.Module):
          def forward(self, t):
              return t * scale_of('relu')
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:_build', 'pkg.m:scale_of'],
    code: ['\n_build()\n'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: 'global rebinding renamed with its name on a clash',
    why: 'two modules each rebind their own _STATE: the renamed one is renamed in `global` and the assignment too',
    files: pkg({
      'pkg/a.py': py`
      _STATE = 'a'
      def get_a():
          return _STATE
    `,
      'pkg/b.py': py`
      _STATE = 'b'
      def get_b():
          return _STATE
      def set_b(v):
          global _STATE
          _STATE = v
    `,
      'pkg/m.py':
        NN +
        py`
      from .a import get_a
      from .b import get_b, set_b
      class Block(nn.Module):
          def forward(self, t):
              set_b('B')
              assert (get_a(), get_b()) == ('a', 'B'), (get_a(), get_b())
              return t
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.a:_STATE', 'pkg.b:_STATE', 'pkg.b:set_b'],
    code: ['global _STATE_b', '_STATE_b = v'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'nonlocal in nested functions reaches the enclosing function, never the module',
    why: '`nonlocal count` two functions down binds make_counter’s count; the module-level count is not needed',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      count = 'module'
      def make_counter():
          count = 0
          def outer():
              def inner():
                  nonlocal count
                  count += 1
                  return count
              return inner()
          return outer
      class Block(nn.Module):
          def forward(self, t):
              tick = make_counter()
              tick()
              return t * tick()
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:make_counter'],
    hasNot: ['pkg.m:count'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: 'nonlocal and global side by side',
    why: 'inner’s `nonlocal n` is the method’s n; `global TOTAL` is the module’s, whose initialiser comes',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      n = 'module'
      TOTAL = 0
      class Block(nn.Module):
          def forward(self, t):
              n = 0
              def inner():
                  nonlocal n
                  global TOTAL
                  n += 1
                  TOTAL += n
              inner()
              return t * TOTAL
    `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.m:n'],
    code: ['TOTAL = 0'],
    run: 'assert Block()(torch.ones(1)).item() == 1',
  },
  // What real repositories exposed (timm, mmcv, yolov5...): each case a pattern first met there.
  {
    name: 're-export chain to an outside package: the innermost import, no self-import (timm coat/resnet)',
    why: '`from pkg.layers import _assert`, pkg/layers re-exports it from .trace, which imports it from torch: the emitted module keeps trace’s guarded import, never an import of pkg',
    files: pkg({
      'pkg/layers/__init__.py':
        'from .helpers import to_2tuple\nfrom .trace import _assert\nfrom .jit import is_scripting\n',
      'pkg/layers/helpers.py': 'def to_2tuple(x):\n    return (x, x)\n',
      'pkg/layers/trace.py': py`
      try:
          from torch import _assert
      except ImportError:
          def _assert(condition, message):
              assert condition, message
    `,
      'pkg/layers/jit.py': 'from torch.jit import is_scripting\n',
      'pkg/m.py':
        NN +
        py`
      from pkg.layers import to_2tuple, _assert, is_scripting
      class Block(nn.Module):
          def forward(self, x):
              _assert(x.dim() > 0, 'needs a dim')
              return x * len(to_2tuple(1)) if not is_scripting() else x
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.layers.helpers:to_2tuple', 'pkg.layers.trace:_assert'],
    code: ['from torch import _assert', 'from torch.jit import is_scripting'],
    notCode: ['from pkg', 'import pkg', 'from .'],
    run: 'assert Block()(torch.ones(2)).sum().item() == 4',
  },
  {
    name: 're-export under another name reaches the outside import by its own name',
    why: 'pkg/__init__: `from .jit import is_scripting as scripting`; references to `scripting` are renamed to the import’s name',
    files: {
      'pkg/__init__.py': 'from .jit import is_scripting as scripting\n',
      'pkg/jit.py': 'from torch.jit import is_scripting\n',
      'pkg/m.py':
        NN +
        'from pkg import scripting\n\nclass Block(nn.Module):\n    def forward(self, x):\n        return x if scripting() else x + 1\n',
    },
    block: 'pkg.m:Block',
    code: ['from torch.jit import is_scripting', 'return x if is_scripting() else x + 1'],
    notCode: ['from pkg'],
    run: 'assert Block()(torch.zeros(1)).item() == 1',
  },
  {
    name: 'a decorator that reads a global of another module when it runs (detectron2 ROIPooler)',
    why: '`@compat` calls compat at import time and its body reads VERSION, defined in a module sorted later: VERSION must be emitted before the decorated function',
    files: pkg({
      'pkg/layers.py': py`
      from .zenv import VERSION
      def compat(fn):
          if VERSION >= (0, 0):
              return fn
          return fn
    `,
      'pkg/zenv.py': 'VERSION = (1, 13)\n',
      'pkg/m.py':
        NN +
        py`
      from .layers import compat
      @compat
      def helper(x):
          return x
      class Block(nn.Module):
          def forward(self, x):
              return helper(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.zenv:VERSION', 'pkg.layers:compat'],
    order: ['VERSION = (1, 13)', '@compat'],
  },
  {
    name: 'a module-level call and a default value run functions at import time',
    why: '`SCALE = scale_of()` and `def f(k=default_k())` call functions whose bodies read later-sorted globals',
    files: pkg({
      'pkg/a.py': py`
      from .z import TABLE
      def scale_of():
          return TABLE['s']
      def default_k():
          return TABLE['k']
    `,
      'pkg/m.py':
        NN +
        py`
      from .a import scale_of, default_k
      SCALE = scale_of()
      class Block(nn.Module):
          def __init__(self, k=default_k()):
              super().__init__()
              self.k = k * SCALE
          def forward(self, x):
              return x * self.k
    `,
      'pkg/z.py': "TABLE = {'s': 2, 'k': 3}\n",
    }),
    block: 'pkg.m:Block',
    order: ["TABLE = {'s': 2, 'k': 3}", 'SCALE = scale_of()'],
    run: 'assert Block()(torch.ones(1)).item() == 6',
  },
  {
    name: 'relative imports inside a function and a module-level try are made absolute',
    why: 'nothing relative is left in an emitted module: internal names are inlined, a module outside the index is imported absolutely',
    files: pkg({
      'pkg/ops.py': 'def nms(x):\n    return x\n',
      'pkg/sub/__init__.py': '',
      'pkg/sub/m.py':
        NN +
        py`
      try:
          from .._ext import fast_op
      except ImportError:
          fast_op = None
      class Block(nn.Module):
          def forward(self, x):
              from ..ops import nms
              if fast_op is not None:
                  from ..compiled import kernel
                  return kernel(x)
              return nms(x)
    `,
    }),
    block: 'pkg.sub.m:Block',
    has: ['pkg.ops:nms'],
    code: ['from pkg._ext import fast_op', 'from pkg.compiled import kernel'],
    notCode: ['from .', 'from ..'],
    run: 'assert Block()(torch.ones(1)).item() == 1',
  },
  {
    name: 'a relative header import of a module outside the index becomes absolute (Mask2Former SetCriterion)',
    why: '`from ..utils.misc import f` with pkg/utils not indexed stays an import, absolute and of the needed name only; so does a star import of a compiled extension',
    files: pkg({
      'pkg/modeling/__init__.py': '',
      'pkg/modeling/criterion.py':
        NN +
        py`
      from ..utils.misc import is_dist_avail_and_initialized, nested_tensor_from_tensor_list
      from .._C import *
      class SetCriterion(nn.Module):
          def forward(self, x):
              return nms_cuda(x) if is_dist_avail_and_initialized() else x
    `,
    }),
    block: 'pkg.modeling.criterion:SetCriterion',
    code: ['from pkg.utils.misc import is_dist_avail_and_initialized', 'from pkg._C import nms_cuda'],
    notCode: ['from ..', 'nested_tensor_from_tensor_list'],
    importError: 'ImportError: import of pkg is blocked',
  },
  {
    name: 'a config dict read with a literal key keeps only that entry (timm model_cfgs)',
    why: "`CFGS['tiny']` is the only read of CFGS: the other entries and the classes only they name are left out",
    files: pkg({
      'pkg/blocks.py':
        NN +
        py`
      def huge_helper(x):
          return x
      class Tiny(nn.Module):
          def forward(self, x):
              return x
      class Huge(nn.Module):
          def forward(self, x):
              return huge_helper(x)
      class Giant(nn.Module):
          def forward(self, x):
              return x
    `,
      'pkg/cfgs.py': py`
      from .blocks import Tiny, Huge, Giant
      CFGS = dict(
          tiny=dict(layer=Tiny, depth=2),  # the small one
          huge=dict(layer=Huge, depth=48),
          giant={'layer': Giant, 'depth': 96},
      )
    `,
      'pkg/m.py':
        NN +
        py`
      from .cfgs import CFGS
      class Block(nn.Module):
          def __init__(self, cfg=CFGS['tiny']):
              super().__init__()
              self.layer = cfg['layer']()
              self.depth = cfg['depth']
          def forward(self, x):
              return self.layer(x) * self.depth
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.cfgs:CFGS', 'pkg.blocks:Tiny'],
    hasNot: ['pkg.blocks:Huge', 'pkg.blocks:Giant', 'pkg.blocks:huge_helper'],
    code: ['tiny=dict(layer=Tiny, depth=2),  # the small one'],
    notCode: ['huge=', 'giant', "'layer': Giant"],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: 'a dict read with a computed key, or tested with `in`, is kept whole',
    why: '`ACTS[name]` and `name in ACTS` may need any entry: nothing is left out',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      class Swish(nn.Module):
          def forward(self, x):
              return x * torch.sigmoid(x)
      class Mish(nn.Module):
          def forward(self, x):
              return x
      ACTS = {'relu': nn.ReLU, 'swish': Swish}
      MORE = {'mish': Mish, 'relu6': nn.ReLU6}
      def get_act(name):
          if name in MORE:
              return MORE['mish']
          return ACTS[name]
      class Block(nn.Module):
          def __init__(self, act='swish'):
              super().__init__()
              self.act = get_act(act)()
          def forward(self, x):
              return self.act(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:ACTS', 'pkg.m:Swish', 'pkg.m:MORE', 'pkg.m:Mish'],
    code: ["ACTS = {'relu': nn.ReLU, 'swish': Swish}", "MORE = {'mish': Mish, 'relu6': nn.ReLU6}"],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a registry decorator needs the registry, not everything registered in it (detectron2, mmdet)',
    why: '`@HEADS.register()` on Block needs HEADS; StandardHead, registered in the same module, is not reached by name',
    files: pkg({
      'pkg/registry.py': py`
      class Registry:
          def __init__(self, name):
              self.name = name
              self._map = {}
          def register(self):
              def deco(cls):
                  self._map[cls.__name__] = cls
                  return cls
              return deco
    `,
      'pkg/heads.py':
        NN +
        py`
      from .registry import Registry
      HEADS = Registry('heads')
      HEADS.register()(nn.Identity)
      def big_helper(x):
          return x
      @HEADS.register()
      class StandardHead(nn.Module):
          def forward(self, x):
              return big_helper(x)
      @HEADS.register()
      class Block(nn.Module):
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.heads:Block',
    has: ['pkg.heads:HEADS', 'pkg.registry:Registry'],
    hasNot: ['pkg.heads:StandardHead', 'pkg.heads:big_helper'],
    code: ['HEADS.register()(nn.Identity)'],
  },
  {
    name: 'a loop that mutates each dict of a tuple comes with the dicts (timm create_act)',
    why: '`for a in _ACT_LAYERS: a.setdefault(...)` adds keys to _ACT_LAYER_DEFAULT through the loop variable',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      _ACT_LAYER_DEFAULT = dict(relu=nn.ReLU, hard_swish=nn.Hardswish)
      _ACT_LAYER_ME = dict(relu=nn.ReLU)
      _ACT_LAYERS = (_ACT_LAYER_ME, _ACT_LAYER_DEFAULT)
      for a in _ACT_LAYERS:
          a.setdefault('hardswish', a.get('hard_swish'))
      def get_act_layer(name):
          return _ACT_LAYER_DEFAULT[name]
      class Block(nn.Module):
          def __init__(self, act='hardswish'):
              super().__init__()
              self.act = get_act_layer(act)()
          def forward(self, x):
              return self.act(x)
    `,
    }),
    block: 'pkg.m:Block',
    code: ['for a in _ACT_LAYERS:', '_ACT_LAYERS = (_ACT_LAYER_ME, _ACT_LAYER_DEFAULT)'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a module that fills an imported registry brings the fill along with any of its code',
    why:
      'upstream `MODELS.register_module(...)` in conv.py runs whenever conv.py is imported, which build_conv ' +
      'needs; a self-registering class there (also under an `if`) and a module the closure never enters bring nothing',
    files: pkg({
      'pkg/registry.py': py`
      class Registry:
          def __init__(self):
              self.table = {}
          def register_module(self, name=None, module=None):
              if module is None:
                  return lambda cls: self.register_module(name, cls) or cls
              self.table[name or module.__name__] = module
          def get(self, name):
              return self.table.get(name)
      MODELS = Registry()
    `,
      'pkg/conv.py':
        NN +
        py`
      from pkg.registry import MODELS
      MODELS.register_module('Conv', module=nn.Conv2d)
      @MODELS.register_module()
      class UnusedConv(nn.Conv2d):
          pass
      if hasattr(nn, 'NoSuchLayer'):
          @MODELS.register_module()
          class MaybeConv(nn.Conv2d):
              pass
      for layer in [nn.ReLU, nn.GELU]:
          MODELS.register_module(module=layer)
      def build_conv(name, *args):
          return MODELS.get(name)(*args)
    `,
      'pkg/other.py':
        NN +
        py`
      from pkg.registry import MODELS
      MODELS.register_module('Other', module=nn.Identity)
    `,
      'pkg/m.py':
        NN +
        py`
      from pkg.conv import build_conv
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.conv = build_conv('Conv', 1, 1, 1)
          def forward(self, x):
              return self.conv(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.registry:MODELS', 'pkg.conv:build_conv'],
    hasNot: ['pkg.conv:UnusedConv'],
    code: ["MODELS.register_module('Conv', module=nn.Conv2d)", 'for layer in [nn.ReLU, nn.GELU]:'],
    // A statement that defines something (the `if` binds MaybeConv) comes only when what it defines is reached.
    notCode: ["MODELS.register_module('Other'", 'class MaybeConv'],
    order: ['MODELS = Registry()', "MODELS.register_module('Conv'"],
    run: 'Block()(torch.ones(1, 1, 2, 2))',
  },
  {
    name: 'on a name clash, a binding inside a compound statement keeps its name; the other is renamed',
    why:
      "a name a try/if binds can't be renamed at one span (each branch binds it); renaming the plain assignment " +
      'instead keeps both definitions and every reference right (mmcv/mmengine IS_MLU_AVAILABLE)',
    files: pkg({
      'pkg/z.py': py`
      try:
          import not_installed_anywhere
          AVAILABLE = True
      except ImportError:
          AVAILABLE = False
      def is_available():
          return AVAILABLE
    `,
      'pkg/m.py':
        NN +
        py`
      from pkg.z import is_available
      AVAILABLE = is_available()
      class Block(nn.Module):
          def forward(self, x):
              return x + 1 if AVAILABLE else x
    `,
    }),
    block: 'pkg.m:Block',
    code: ['    AVAILABLE = False', 'return AVAILABLE\n', 'AVAILABLE_m = is_available()', 'if AVAILABLE_m else x'],
    run: 'assert Block()(torch.ones(1)).item() == 1',
  },
  {
    name: 'on a name clash between two module-level for loops, one loop target is renamed with its body',
    why:
      "transformers' image and video processor tables are each filled by a module-level `for model_type, ... in`: " +
      'renaming the reads in the body but not the target left the renamed name unbound (NameError at import)',
    files: pkg({
      'pkg/a.py': py`
      A = {'x': 1}
      for key, value in list(A.items()):
          A[key] = value + 1
    `,
      'pkg/b.py': py`
      B = {'y': 2}
      for key, value in list(B.items()):
          B[key] = value + 1
    `,
      'pkg/m.py':
        NN +
        py`
      from .a import A
      from .b import B
      class Block(nn.Module):
          def forward(self, x):
              return x * A['x'] * B['y']
    `,
    }),
    block: 'pkg.m:Block',
    notCode: ['could not rename'],
    run: 'assert Block()(torch.ones(1)).item() == 6',
  },
  {
    name: 'a submodule read through a plain import of an outside package is imported, guarded',
    why:
      '`import PIL` loads no PIL.ImageOps: upstream another import of the module (left out) loaded it; the ' +
      'emitted module imports it itself, in a try (a chain that is no module after all changes nothing)',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      import PIL
      import typing
      def invert(img):
          return PIL.ImageOps.invert(img)
      class Block(nn.Module):
          def forward(self, x):
              assert callable(PIL.ImageOps.invert) and PIL.__name__ and typing.Tuple.__name__
              return torch.nn.functional.relu(x)
    `,
    }),
    block: 'pkg.m:Block',
    // `import PIL` itself is read only in function bodies: guarded too (lazy-imports.ts), the submodule after it.
    code: ['    PIL = _nnb_absent(_nnb_error)\ntry:', '    import PIL.ImageOps\nexcept ImportError:\n    pass'],
    // A member (`PIL.__name__`), the runtime's and the standard library's submodules (their own import loads them).
    notCode: ['import PIL.__name__', 'import torch.nn.functional', 'import typing.Tuple'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a submodule the header imports already load gets no guarded import',
    why: '`import PIL.ImageOps` (or `from PIL import ImageOps`) loads it; an aliased import binds another name',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      import PIL
      import PIL.ImageOps
      import jinja2 as j
      class Block(nn.Module):
          def forward(self, x):
              if x is None:
                  return j.sandbox.SandboxedEnvironment()
              assert callable(PIL.ImageOps.invert)
              return x
    `,
    }),
    block: 'pkg.m:Block',
    code: ['import PIL.ImageOps'],
    notCode: ['except ImportError:\n    pass', 'import jinja2.sandbox'],
    run: 'Block()(torch.ones(1))',
  },
  // Method-level reachability: which method bodies are followed (method-cases.ts).
  ...methodCases,
  // Module objects: the members a namespace holds, every public one when used as an object (module-object-cases.ts).
  ...moduleObjectCases,
  // Postponed annotations, TYPE_CHECKING, subpackages through `from pkg import sub` (annotation-cases.ts).
  ...annotationCases,
  // Registered names asked for by string (`dict(type='BN')`) and their registrations (registry-cases.ts).
  ...registryCases,
  // Names bound several times at module level: import-time reads see the binding before them (flow-cases.ts).
  ...flowCases,
  // Header imports copied as they are must not rebind a name another binding holds (header-import-cases.ts).
  ...headerImportCases,
];
