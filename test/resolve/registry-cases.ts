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
];
