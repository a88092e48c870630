// Resolver cases for method-level reachability (docs/resolve.md, "Methods"): a needed class is copied whole, but
// only the methods that can run from import, construction or forward have their reads followed. Each case pairs
// what must be followed with what must be left out, so that following every method body fails it.
import { py, type Tree } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

const NN = 'import torch\nimport torch.nn as nn\n';
const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

/** `pkg/helpers.py`: two helpers, each the only reader of a heavy dependency of its own. */
const HELPERS = py`
  def needed(x):
      return x
  def heavy(x):
      import heavy_dependency_not_installed
      return heavy_dependency_not_installed.run(x)
`;

const NOT_FOLLOWED =
  '# nnblocks: not followed (only methods never reached from import, construction or forward use them)';

export const methodCases: ResolverCase[] = [
  {
    name: "a base class's unreached method: its heavy helper is left out and listed next to the class",
    why: 'nothing reachable reads `.save`: its body never runs when the block is imported, built, run',
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/base.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Base(nn.Module):
          def __init__(self):
              super().__init__()
              self.scale = needed(2)
          def save(self, path):
              return heavy(self.state_dict())
    `,
      'pkg/m.py':
        NN +
        py`
      from .base import Base
      class Block(Base):
          def forward(self, x):
              return x * self.scale
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.base:Base'],
    hasNot: ['pkg.helpers:heavy'],
    code: [`${NOT_FOLLOWED}: heavy`, '# nnblocks: those methods: save', 'def save(self, path):'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a method reached through self.name()',
    why: '`self.prepare(x)` in forward reads `prepare`: its body is followed; `export` is read nowhere',
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Block(nn.Module):
          def prepare(self, x):
              return needed(x)
          def export(self, x):
              return heavy(x)
          def forward(self, x):
              return self.prepare(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a method reached through super().name()',
    why: "`super().prepare(x)` reads the base's `prepare`; the base's `export` stays unreached",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Base(nn.Module):
          def prepare(self, x):
              return needed(x)
          def export(self, x):
              return heavy(x)
      class Block(Base):
          def prepare(self, x):
              return super().prepare(x) + 1
          def forward(self, x):
              return self.prepare(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.m:Base'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: "a method reached through a literal getattr(x, 'name')",
    why: "`getattr(self, 'extra')` reads `extra` by a literal name, as `self.extra` would",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Block(nn.Module):
          def extra(self, x):
              return needed(x)
          def export(self, x):
              return heavy(x)
          def forward(self, x):
              return getattr(self, 'extra')(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a dynamic getattr off self falls back to every method of the classes self may be',
    why: "`getattr(self, self.mode)` may call any method of Block's family; not those of Tool, a class of its own",
    files: pkg({
      'pkg/helpers.py': HELPERS + 'def tool_only(x):\n    return x\n',
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed, tool_only
      class Tool:
          def unused(self):
              return tool_only(1)
      class Base(nn.Module):
          def gaussian(self, x):
              return needed(x)
      class Block(Base):
          def __init__(self, mode='gaussian'):
              super().__init__()
              self.mode = mode
              self.tool = Tool()
          def export(self, x):
              return heavy(x)
          def forward(self, x):
              return getattr(self, self.mode)(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.helpers:heavy', 'pkg.m:Tool'],
    hasNot: ['pkg.helpers:tool_only'],
  },
  {
    name: 'a dynamic getattr off anything falls back to every method of every class that may have instances',
    why: '`getattr(obj, name)` may call any method of a live class; Other is only type-tested, so never has one',
    files: pkg({
      'pkg/helpers.py': HELPERS + 'def other_only(x):\n    return x\n',
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed, other_only
      class Other:
          def run(self):
              return other_only(1)
      def pick(x, name):
          if isinstance(x, Other):
              return x
          return needed(getattr(x, name))
      class Block(nn.Module):
          def export(self, x):
              return heavy(x)
          def forward(self, x, name='real'):
              return pick(x, name)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.helpers:heavy', 'pkg.m:Other'],
    hasNot: ['pkg.helpers:other_only'],
  },
  {
    name: 'a dunder is always reached',
    why: 'Python calls `__repr__` on its own (repr, print, logging): its body is followed though nothing names it',
    files: pkg({
      'pkg/helpers.py': HELPERS + 'def describe(x):\n    return "block"\n',
      'pkg/m.py':
        NN +
        py`
      from .helpers import describe, heavy
      class Block(nn.Module):
          def __repr__(self):
              return describe(self)
          def export(self, x):
              return heavy(x)
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:describe'],
    hasNot: ['pkg.helpers:heavy'],
    run: "assert repr(Block()) == 'block'",
  },
  {
    name: 'an import used only by an unreached method is not emitted',
    why: '`yaml_not_installed` is read only in `to_yaml`, which never runs: its import would fail the module',
    files: pkg({
      'pkg/m.py':
        NN +
        py`
      import yaml_not_installed
      from yaml_not_installed import safe_dump
      class Block(nn.Module):
          def to_yaml(self):
              return yaml_not_installed.dump(safe_dump(self.state_dict()))
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    notCode: ['import yaml_not_installed', 'from yaml_not_installed import'],
    // The list wraps at ~118 characters.
    code: [`${NOT_FOLLOWED}: safe_dump,\n#   yaml_not_installed`, '# nnblocks: those methods: to_yaml'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a class used only as a type has no method run',
    why: '`isinstance(cfg, Config)` and `cfg: Config` make no Config: even its dunders never run, their helpers stay out',
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/config.py': py`
      from .helpers import heavy
      class Config:
          def __init__(self, path):
              self.data = heavy(path)
          def __getattr__(self, name):
              return getattr(self.data, name)
    `,
      'pkg/m.py':
        NN +
        py`
      from .config import Config
      def scale_of(cfg: Config) -> int:
          return 2 if isinstance(cfg, Config) else 1
      class Block(nn.Module):
          def __init__(self, cfg=None):
              super().__init__()
              self.k = scale_of(cfg)
          def forward(self, x):
              return x * self.k
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.config:Config'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: "a class the block's (inherited) signature names may be built by its user",
    why: "`block: Type[Basic]` in the base's __init__: the user passes Basic, so its __init__ runs; `export` does not",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from typing import Type
      from .helpers import heavy, needed
      class Basic(nn.Module):
          def __init__(self, width):
              super().__init__()
              self.width = needed(width)
          def export(self):
              return heavy(self)
      class Net(nn.Module):
          def __init__(self, block: Type[Basic], width: int = 2):
              super().__init__()
              self.layer = block(width)
          def forward(self, x):
              return x
      class Block(Net):
          def __init__(self, *args, **kwargs):
              super().__init__(*args, **kwargs)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.m:Basic'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block(block=Block.__init__.__globals__["Basic"])(torch.ones(1))',
  },
  {
    name: 'a method every live subclass overrides is not reached through dispatch',
    why: "`self.init_weights()` on a Block finds Block's own; Base's runs only through super() or Base.init_weights",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Base(nn.Module):
          def init_weights(self):
              return heavy(self)
      class Block(Base):
          def __init__(self):
              super().__init__()
              self.init_weights()
          def init_weights(self):
              self.w = needed(1)
          def forward(self, x):
              return x * self.w
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a method read off its class by name runs even when overridden',
    why: '`Base.init_weights(self)` calls the base method whatever the instance: its body is followed',
    files: pkg({
      'pkg/helpers.py': HELPERS + 'def export_only(x):\n    return x\n',
      'pkg/m.py':
        NN +
        py`
      from .helpers import export_only, needed
      class Base(nn.Module):
          def init_weights(self):
              self.w = needed(1)
          def export(self):
              return export_only(self)
      class Block(Base):
          def __init__(self):
              super().__init__()
              self.init_weights()
          def init_weights(self):
              Base.init_weights(self)
          def forward(self, x):
              return x * self.w
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed'],
    hasNot: ['pkg.helpers:export_only'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'hasattr with a literal name runs a property, calls no method',
    why: "`hasattr(m, 'init_weights')` never calls Child.init_weights; it does run the property `ready`",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import heavy, needed
      class Child(nn.Module):
          @property
          def ready(self):
              return needed(True)
          def init_weights(self):
              return heavy(self)
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.child = Child()
              self.probed = hasattr(self.child, 'init_weights') and hasattr(self.child, 'ready')
          def forward(self, x):
              return x
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'assert Block().probed',
  },
  {
    name: 'a method torch calls on its own is reached; an outside base reaches every method',
    why: "nn.Conv2d's forward calls `self._conv_forward`; logging.Handler calls what it likes (`emit`) on a subclass",
    files: pkg({
      'pkg/helpers.py': HELPERS + 'def conv_helper(x):\n    return x\ndef emit_helper(r):\n    return r\n',
      'pkg/m.py':
        NN +
        py`
      import logging
      from .helpers import conv_helper, emit_helper, heavy
      class Quiet(logging.Handler):
          def emit(self, record):
              return emit_helper(record)
      class Block(nn.Conv2d):
          def __init__(self):
              super().__init__(1, 1, 1)
              self.log = Quiet()
          def _conv_forward(self, x, weight, bias):
              return conv_helper(super()._conv_forward(x, weight, bias))
          def export(self):
              return heavy(self)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:conv_helper', 'pkg.helpers:emit_helper'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1, 1, 2, 2))',
  },
  {
    name: 'a computed getattr off a module walks a dotted path, it calls no method',
    why: '`getattr(obj, part)` with obj from import_module follows a string like a registry lookup: not dynamic',
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from importlib import import_module
      from .helpers import heavy, needed
      def get_object(path):
          module_name, _, name = path.rpartition('.')
          obj = import_module(module_name)
          obj = getattr(obj, name)
          return obj
      class Block(nn.Module):
          def __init__(self, act='torch.nn.ReLU'):
              super().__init__()
              self.act = get_object(act)()
              self.k = needed(1)
          def export(self):
              return heavy(self)
          def forward(self, x):
              return self.act(x) * self.k
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.m:get_object'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: 'a static method read through a module chain that repeats its name (`pkg.Tool.Tool.make`)',
    why: 'the method read is the attribute after the class, by position: not the one after the first `Tool` of the chain',
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/Tool.py': py`
      from .helpers import needed
      class Tool:
          @staticmethod
          def make(x):
              return needed(x)
    `,
      'pkg/m.py':
        NN +
        py`
      import pkg.Tool
      class Block(nn.Module):
          def forward(self, x):
              return pkg.Tool.Tool.make(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:needed', 'pkg.Tool:Tool'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: "an autograd Function's backward: the engine calls it from C++, no Python code names it",
    why: "`Fn.apply(x)` runs `forward`, and backward runs `backward`; timm's `SwishAutoFn` lost its `swish_bwd`",
    files: pkg({
      'pkg/helpers.py': HELPERS,
      'pkg/m.py':
        NN +
        py`
      from .helpers import needed
      def grad_of(x, g):
          return needed(g * 2)
      class Fn(torch.autograd.Function):
          @staticmethod
          def forward(ctx, x):
              ctx.save_for_backward(x)
              return x * 2
          @staticmethod
          def backward(ctx, g):
              return grad_of(ctx.saved_tensors[0], g)
      class Block(nn.Module):
          def forward(self, x):
              return Fn.apply(x)
    `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:grad_of', 'pkg.helpers:needed'],
    hasNot: ['pkg.helpers:heavy'],
    run: 'x = torch.ones(1, requires_grad=True)\nBlock()(x).sum().backward()\nassert x.grad.item() == 2',
  },
];
