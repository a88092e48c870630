// Resolver cases for registered names asked for by string (pipeline/resolve/registry-keys.ts): the shapes of
// OpenMMLab's config dicts, whose registrations live in modules the block never imports (mmcv's norm.py
// registering 'BN', drop.py's self-registering DropPath, activation.py's loop over torch.nn classes).
import { py, type Tree } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

/** A registry with mmengine's two ways to register: a decorator and a call with `module=`. */
const registry = py`
  class Registry:
      def __init__(self):
          self._modules = {}
      def register_module(self, name=None, module=None):
          if module is not None:
              self._modules[name or module.__name__] = module
              return module
          def add(cls):
              self._modules[name or cls.__name__] = cls
              return cls
          return add
      def build(self, cfg, *args):
          cfg = dict(cfg)
          kind = cfg.pop('type')
          if kind not in self._modules:
              raise KeyError(f'{kind} is not registered')
          return self._modules[kind](*args, **cfg)
  MODELS = Registry()
  OTHER = Registry()
`;

const files: Tree = {
  'pkg/__init__.py': '',
  'pkg/registry.py': registry,
  // Never imported by the block: registrations by call, by a loop over classes, and by decorator.
  'pkg/norms.py': py`
    import torch.nn as nn
    from pkg.registry import MODELS
    MODELS.register_module('BN', module=nn.BatchNorm2d)
    for act in [nn.ReLU, nn.GELU]:
        MODELS.register_module(module=act)
  `,
  'pkg/drop.py': py`
    import torch.nn as nn
    from pkg.registry import MODELS
    @MODELS.register_module()
    class DropPath(nn.Module):
        def __init__(self, p=0.0):
            super().__init__()
            self.p = p
        def forward(self, x):
            return x
  `,
  // Registered under names the block asks for, but in a registry the block never uses, or only in prose.
  'pkg/other.py': py`
    import torch.nn as nn
    from pkg.registry import OTHER
    @OTHER.register_module(name='BN')
    class OtherNorm(nn.Module):
        pass
    @OTHER.register_module()
    class Shown(nn.Module):
        pass
  `,
  'pkg/m.py': py`
    import torch
    import torch.nn as nn
    from pkg.registry import MODELS
    class Block(nn.Module):
        """Builds its layers from config dicts, e.g. dict(type='Shown')."""
        def __init__(self, channels=4, norm_cfg=dict(type='BN'), act_cfg={'type': 'GELU'}):
            super().__init__()
            self.norm = MODELS.build(norm_cfg, channels)
            self.act = MODELS.build(act_cfg)
            self.drop = MODELS.build(dict(type='DropPath', p=0.1))  # not dict(type='OtherNorm')
        def forward(self, x):
            return self.drop(self.act(self.norm(x)))
  `,
};

/**
 * mmengine's registry in small: a registry with no `scope=` takes the first part of its caller's module name, and a
 * parent refuses two children of one scope. Two packages each make a child of one root.
 */
const scoped: Tree = {
  'eng/__init__.py': '',
  'eng/registry.py': py`
    import inspect, sys
    class Registry:
        def __init__(self, name, parent=None, scope=None):
            self.name = name
            self._scope = scope if scope is not None else self.infer_scope()
            self._children = {}
            self._modules = {}
            if parent is not None:
                assert self._scope not in parent._children, f'scope {self._scope} exists in {name} registry'
                parent._children[self._scope] = self
        @staticmethod
        def infer_scope():
            return inspect.getmodule(sys._getframe(2)).__name__.split('.')[0]
        def register_module(self):
            def add(cls):
                self._modules[cls.__name__] = cls
                return cls
            return add
    ROOT = Registry('model')
  `,
  'pkga/__init__.py': '',
  'pkga/registry.py': py`
    from eng.registry import ROOT, Registry
    MODELS = Registry(
        'model',
        parent=ROOT,
    )
  `,
  'pkga/layers.py': py`
    import torch.nn as nn
    from pkga.registry import MODELS
    @MODELS.register_module()
    class Scale(nn.Module):
        def forward(self, x):
            return x * 2
  `,
  'pkgb/__init__.py': '',
  'pkgb/registry.py': py`
    from eng.registry import ROOT, Registry
    MODELS = Registry('model', parent=ROOT)  # a comment with a ) in it
  `,
  'pkgb/m.py': py`
    import torch.nn as nn
    from eng.registry import ROOT
    from pkga.layers import Scale
    from pkgb.registry import MODELS
    @MODELS.register_module()
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
        def forward(self, x):
            return self.scale(x)
  `,
};

export const registryCases: ResolverCase[] = [
  {
    name: 'registered names asked for by string bring their registrations',
    why: "`dict(type='BN')` finds its class only once something registered it: the call, the loop and the decorated class that fill MODELS come, from modules the block never imports",
    files,
    block: 'pkg.m:Block',
    has: ['pkg.drop:DropPath'],
    code: ["MODELS.register_module('BN', module=nn.BatchNorm2d)", 'for act in [nn.ReLU, nn.GELU]:'],
    run: 'assert Block()(torch.ones(2, 4, 3, 3)).shape == (2, 4, 3, 3)',
  },
  {
    name: 'a name registered in a registry the block never uses does not come',
    why: "OTHER registers 'BN' too, and `Shown` and `OtherNorm` are only named in a docstring and a comment: none of them is something the block's code asks MODELS for",
    files,
    block: 'pkg.m:Block',
    hasNot: ['pkg.other:OtherNorm', 'pkg.other:Shown'],
  },
  {
    name: "registries that infer their scope from their module keep their own package's scope",
    why: "emitted, every registry's caller is one module: pkga's and pkgb's children of ROOT would both infer its name and clash (mmpretrain's hivit reaches mmdet's registry and its own); the scope each infers upstream is written out",
    files: scoped,
    block: 'pkgb.m:Block',
    code: [
      "    parent=ROOT,\n    scope='pkga',\n)",
      "MODELS_registry = Registry('model', parent=ROOT, scope='pkgb')",
      "ROOT = Registry('model', scope='eng')",
    ],
    run: "import sys\nROOT = next(m.ROOT for n, m in list(sys.modules.items()) if n in (Block.__module__, Block.__module__.split('.')[0] + '.eng.registry') and hasattr(m, 'ROOT'))\nassert sorted(ROOT._children) == ['pkga', 'pkgb']\nassert Block()(torch.ones(1)).item() == 2",
  },
];
