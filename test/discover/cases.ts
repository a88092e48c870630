// Discovery cases in the resolver suite's style: a tiny package (or several sources), the blocks discovery must
// find (as 'module.Qualname'), and why. Cases Python can import are also checked against Python itself
// (discover.test.ts): the blocks are the classes that subclass torch.nn.Module and have a forward of their own or
// inherited, not Module's placeholder.
import { py, type Tree } from '../helpers/tree.ts';

export interface DiscoverCase {
  name: string;
  why: string;
  /** One source 'fx'... */
  files?: Tree;
  /** ...or several, by id (one folder each, its own import root). */
  sources?: Record<string, Tree>;
  /** Exactly the blocks found, as 'module.Qualname'. */
  blocks: string[];
  /** Blocks flagged abstract (forward raises NotImplementedError or is an abstractmethod); others must not be. */
  abstract?: string[];
  /** The blocks flagged abstract are exactly those Python refuses to instantiate (`inspect.isabstract`). */
  abstractAsPython?: boolean;
  /** Where a block's forward comes from, for blocks listed here. */
  forwardFrom?: Record<string, string>;
  /** A block's chain to torch.nn.Module (bases, nearest first), for blocks listed here. */
  baseChain?: Record<string, string[]>;
  /** Classes reaching Module without a forward. */
  withoutForward?: number;
  /** Per source: the `symbols` filter of its config. */
  symbols?: Record<string, string[]>;
  /** Why Python itself can't import this case (then only discovery is checked). */
  notImportable?: string;
}

const NN = 'import torch.nn as nn\n';
/** A one-line forward: interpolated into `py` templates, so it must not carry its own indentation. */
const FWD = 'def forward(self, x): return x';
const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

export const cases: DiscoverCase[] = [
  // --- how a class reaches nn.Module -----------------------------------------------------------------------
  {
    name: 'every spelling of torch.nn.Module',
    why: 'the base is resolved through the import, whatever name it is bound to',
    files: pkg({
      'pkg/m.py': py`
        import torch
        import torch.nn
        import torch.nn as tnn
        from torch import nn
        from torch.nn import Module
        from torch.nn import Module as M
        from torch.nn.modules.module import Module as Deep
        class A(torch.nn.Module):
            ${FWD}
        class B(tnn.Module):
            ${FWD}
        class C(nn.Module):
            ${FWD}
        class D(Module):
            ${FWD}
        class E(M):
            ${FWD}
        class F(Deep):
            ${FWD}
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B', 'pkg.m.C', 'pkg.m.D', 'pkg.m.E', 'pkg.m.F'],
    baseChain: { 'pkg.m.A': ['torch.nn.Module'], 'pkg.m.F': ['torch.nn.Module'] },
  },
  {
    name: 'nn.Module re-exported by a package module',
    why: 'a compat module that re-exports Module is followed like any import',
    files: pkg({
      'pkg/compat.py': 'from torch.nn import Module\n',
      'pkg/__init__.py': 'from .compat import Module as BaseModule\n',
      'pkg/m.py': py`
        from pkg import BaseModule
        from .compat import *
        class A(BaseModule):
            ${FWD}
        class B(Module):
            ${FWD}
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B'],
  },
  {
    name: 'nn.Module aliased by an assignment',
    why: '`Base = nn.Module` binds the same class object: subclasses of Base are Modules',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        Base = nn.Module
        class A(Base):
            ${FWD}
      `,
    }),
    blocks: ['pkg.m.A'],
  },
  {
    name: 'a base class aliased by an assignment',
    why: 'an alias of an internal block class is followed to the class',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Base(nn.Module):
            ${FWD}
        Alias = Base
        class A(Alias):
            pass
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.Base'],
    forwardFrom: { 'pkg.m.A': 'pkg.m.Base' },
  },
  {
    name: 'a torch.nn layer as the base',
    why: 'subclasses of nn.Conv2d, nn.Sequential... inherit their forward (from torch-nn.json)',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Conv(nn.Conv2d):
            pass
        class Seq(nn.Sequential):
            pass
      `,
    }),
    blocks: ['pkg.m.Conv', 'pkg.m.Seq'],
    forwardFrom: { 'pkg.m.Conv': 'torch.nn.Conv2d', 'pkg.m.Seq': 'torch.nn.Sequential' },
    baseChain: { 'pkg.m.Conv': ['torch.nn.Conv2d', 'torch.nn.Module'] },
  },
  {
    name: 'Generic and keyword arguments among the bases',
    why: 'Generic[T] is not a Module base but does not hide nn.Module; metaclass= is not a base',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        from abc import ABCMeta
        from typing import Generic, TypeVar
        T = TypeVar('T')
        class A(nn.Module, Generic[T]):
            ${FWD}
        class B(nn.Module, metaclass=ABCMeta):
            ${FWD}
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B'],
  },
  {
    name: 'a mixin provides forward',
    why: 'in `class A(Mixin, nn.Module)` Python finds Mixin.forward first; the mixin needs not be a Module',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Mixin:
            ${FWD}
        class A(Mixin, nn.Module):
            pass
      `,
    }),
    blocks: ['pkg.m.A'],
    forwardFrom: { 'pkg.m.A': 'pkg.m.Mixin' },
  },
  {
    name: 'not a Module',
    why: 'a class with a forward whose bases never reach nn.Module is no block, even if it is called Module',
    files: pkg({
      'pkg/m.py': py`
        class Module:
            ${FWD}
        class A(Module):
            ${FWD}
        class B(object):
            ${FWD}
      `,
    }),
    blocks: [],
    withoutForward: 0,
  },

  // --- inherited forward ----------------------------------------------------------------------------------
  {
    name: 'forward inherited through a chain of bases across files',
    why: 'Leaf → Mid → Base → nn.Module: Leaf and Mid use Base.forward',
    files: pkg({
      'pkg/base.py':
        NN +
        py`
        class Base(nn.Module):
            ${FWD}
      `,
      'pkg/mid.py': py`
        from .base import Base
        class Mid(Base):
            def extra(self):
                return 1
      `,
      'pkg/leaf.py': py`
        from pkg.mid import Mid
        class Leaf(Mid):
            pass
      `,
    }),
    blocks: ['pkg.base.Base', 'pkg.leaf.Leaf', 'pkg.mid.Mid'],
    forwardFrom: { 'pkg.leaf.Leaf': 'pkg.base.Base', 'pkg.mid.Mid': 'pkg.base.Base' },
    baseChain: { 'pkg.leaf.Leaf': ['pkg.mid.Mid', 'pkg.base.Base', 'torch.nn.Module'] },
  },
  {
    name: 'forward inherited across packages (sources)',
    why: 'discovery crosses sources: a base from another configured source counts',
    sources: {
      lib: {
        'lib/__init__.py': 'from .layers import Base\n',
        'lib/layers.py':
          NN +
          py`
          class Base(nn.Module):
              ${FWD}
        `,
      },
      app: {
        'app/__init__.py': '',
        'app/model.py': py`
          import lib
          class Model(lib.Base):
              pass
        `,
      },
    },
    blocks: ['app.model.Model', 'lib.layers.Base'],
    forwardFrom: { 'app.model.Model': 'lib.layers.Base' },
  },
  {
    name: 'the nearest override wins',
    why: 'a forward defined lower in the chain replaces the inherited one',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Base(nn.Module):
            ${FWD}
        class Over(Base):
            ${FWD}
        class Leaf(Over):
            pass
      `,
    }),
    blocks: ['pkg.m.Base', 'pkg.m.Leaf', 'pkg.m.Over'],
    forwardFrom: { 'pkg.m.Leaf': 'pkg.m.Over', 'pkg.m.Over': 'pkg.m.Over' },
  },
  {
    name: 'diamond: forward follows the MRO, not a depth-first walk',
    why: 'class D(B, C) with B(A), C(A): the MRO is D, B, C, A, so C.forward beats A.forward',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class A(nn.Module):
            def forward(self, x):
                raise NotImplementedError
        class B(A):
            pass
        class C(A):
            ${FWD}
        class D(B, C):
            pass
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B', 'pkg.m.C', 'pkg.m.D'],
    abstract: ['pkg.m.A', 'pkg.m.B'],
    forwardFrom: { 'pkg.m.D': 'pkg.m.C', 'pkg.m.B': 'pkg.m.A' },
  },

  // --- abstract blocks ------------------------------------------------------------------------------------
  {
    name: 'forward raising NotImplementedError',
    why: 'listed, flagged abstract; a docstring or `pass` before the raise does not matter',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class A(nn.Module):
            def forward(self, x):
                raise NotImplementedError
        class B(nn.Module):
            def forward(self, x):
                """Subclasses implement this."""
                raise NotImplementedError("implement forward")
        class Impl(A):
            ${FWD}
        class Inherits(B):
            pass
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B', 'pkg.m.Impl', 'pkg.m.Inherits'],
    abstract: ['pkg.m.A', 'pkg.m.B', 'pkg.m.Inherits'],
  },
  {
    name: 'forward that raises NotImplementedError only sometimes',
    why: 'a body that does more than raise is a real forward',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class A(nn.Module):
            def forward(self, x):
                if x is None:
                    raise NotImplementedError
                return x
      `,
    }),
    blocks: ['pkg.m.A'],
    abstract: [],
  },
  {
    name: 'abstractmethod forward',
    why: '@abstractmethod / @abc.abstractmethod mark the block abstract; an override is concrete',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        import abc
        from abc import ABC, abstractmethod
        class A(nn.Module, ABC):
            @abstractmethod
            def forward(self, x):
                return x
        class B(nn.Module):
            @abc.abstractmethod
            def forward(self, x):
                ...
        class Impl(A):
            ${FWD}
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B', 'pkg.m.Impl'],
    abstract: ['pkg.m.A', 'pkg.m.B'],
  },

  {
    name: 'abstract methods under ABCMeta',
    why: 'a class leaving an @abstractmethod unimplemented under ABCMeta (named or inherited) cannot be built',
    files: pkg({
      'pkg/base.py':
        NN +
        py`
        from abc import ABCMeta, abstractmethod
        class BaseModule(nn.Module, metaclass=ABCMeta):
            pass
        class BaseDetector(BaseModule):
            def forward(self, x):
                return self.predict(x)
            @abstractmethod
            def predict(self, x):
                pass
            @abstractmethod
            def loss(self, x):
                pass
      `,
      'pkg/m.py':
        NN +
        py`
        import abc
        from .base import BaseDetector
        class Half(BaseDetector):
            def predict(self, x):
                return x
        class Whole(Half):
            def loss(self, x):
                return x.sum()
        def _loss(self, x):
            return x.mean()
        class ByAttribute(Half):
            loss = _loss
        class Plain(nn.Module):
            ${FWD}
            @abc.abstractmethod
            def extra(self):
                pass
        class FromABC(nn.Module, abc.ABC):
            ${FWD}
            @abc.abstractmethod
            def extra(self):
                pass
      `,
    }),
    blocks: ['pkg.base.BaseDetector', 'pkg.m.Half', 'pkg.m.Whole', 'pkg.m.ByAttribute', 'pkg.m.Plain', 'pkg.m.FromABC'],
    abstract: ['pkg.base.BaseDetector', 'pkg.m.Half', 'pkg.m.FromABC'],
    abstractAsPython: true,
  },
  {
    name: 'abstract methods beside a base outside the index',
    why: 'an external mixin may implement them: the class is not called abstract',
    sources: {
      fx: pkg({
        'pkg/m.py':
          NN +
          py`
          from abc import ABCMeta, abstractmethod
          from mixins import LossMixin
          class Base(nn.Module, metaclass=ABCMeta):
              ${FWD}
              @abstractmethod
              def loss(self, x):
                  pass
          class WithMixin(LossMixin, Base):
              pass
        `,
      }),
    },
    blocks: ['pkg.m.Base', 'pkg.m.WithMixin'],
    abstract: ['pkg.m.Base'],
    notImportable: 'the mixin package is not installed',
  },

  // --- cycles ---------------------------------------------------------------------------------------------
  {
    name: 'base-class cycle in one file',
    why: 'A(B), B(A) can never run; discovery must stop and find nothing, not loop',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class A(B):
            ${FWD}
        class B(A):
            ${FWD}
      `,
    }),
    blocks: [],
    notImportable: 'A(B) reads B before it is bound',
  },
  {
    name: 'base-class cycle across files through imports',
    why: 'a.A(b.B), b.B(a.A, nn.Module): the cycle is cut; B still reaches Module through its other base',
    files: pkg({
      'pkg/a.py': py`
        from .b import B
        class A(B):
            ${FWD}
      `,
      'pkg/b.py':
        NN +
        py`
        from .a import A
        class B(A, nn.Module):
            ${FWD}
      `,
    }),
    blocks: ['pkg.a.A', 'pkg.b.B'],
    notImportable: 'circular import',
  },
  {
    name: 'a cycle through package re-exports',
    why: '__init__ re-exports X from m, m takes X from the package: an import cycle, not a class',
    files: {
      'pkg/__init__.py': 'from .m import X\n',
      'pkg/m.py': py`
        from pkg import X
        class A(X):
            ${FWD}
      `,
    },
    blocks: [],
    notImportable: 'circular import',
  },

  {
    name: 'an alias cycle',
    why: '`A = B` and `B = A` name no class: following aliases stops instead of recursing forever',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        A = B
        B = A
        class C(A):
            ${FWD}
      `,
    }),
    blocks: [],
    notImportable: 'A = B reads B before it is bound',
  },

  // --- nesting and placement ------------------------------------------------------------------------------
  {
    name: 'nested classes',
    why:
      'a class nested in a class is importable as Outer.Inner, and its bases may name earlier classes of the same' +
      ' body; a class defined in a function is not importable',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Outer(nn.Module):
            class Inner(nn.Module):
                ${FWD}
            ${FWD}
        class Holder:
            class Deep(nn.Module):
                ${FWD}
            class Deeper(Deep):
                pass
        def make():
            class Local(nn.Module):
                ${FWD}
            return Local
      `,
    }),
    blocks: ['pkg.m.Holder.Deep', 'pkg.m.Holder.Deeper', 'pkg.m.Outer', 'pkg.m.Outer.Inner'],
  },
  {
    name: 'classes defined under module-level if/try',
    why: 'a class bound at module level inside if/try is importable like any other',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        import sys
        if sys.version_info >= (3, 8):
            class A(nn.Module):
                ${FWD}
        try:
            import numpy
        except ImportError:
            class B(nn.Module):
                ${FWD}
      `,
    }),
    blocks: ['pkg.m.A', 'pkg.m.B'],
    notImportable: 'B exists only when numpy is missing',
  },

  // --- classes without forward ----------------------------------------------------------------------------
  {
    name: 'Modules without a forward',
    why: 'containers and helpers that never define forward are counted, not listed',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
        class Blocks(nn.ModuleList):
            pass
        class Table(nn.ModuleDict):
            pass
        class Child(Holder):
            def helper(self):
                return 1
      `,
    }),
    blocks: [],
    withoutForward: 4,
  },

  // --- the symbols filter ---------------------------------------------------------------------------------
  {
    name: 'symbols filter of a source',
    why: "patterns match a block's name, qualname, dotted path or id; a source without symbols keeps all",
    sources: {
      fx: pkg({
        'pkg/m.py':
          NN +
          py`
          class KeepMe(nn.Module):
              ${FWD}
          class DropMe(nn.Module):
              ${FWD}
          class Outer(nn.Module):
              class Inner(nn.Module):
                  ${FWD}
              ${FWD}
        `,
        'pkg/other.py':
          NN +
          py`
          class ByPath(nn.Module):
              ${FWD}
          class ById(nn.Module):
              ${FWD}
        `,
      }),
      all: {
        'lib/__init__.py': '',
        'lib/x.py':
          NN +
          py`
          class DropMe(nn.Module):
              ${FWD}
        `,
      },
    },
    symbols: { fx: ['Keep*', 'Outer.Inner', 'pkg.other.ByPath', 'fx:pkg.other.ById'] },
    blocks: ['lib.x.DropMe', 'pkg.m.KeepMe', 'pkg.m.Outer.Inner', 'pkg.other.ById', 'pkg.other.ByPath'],
  },
];
