// Fixture packages in the shapes of real model zoos' builder idioms (docs/usage.md, "Builders"; docs/validate.md,
// "Canonical configurations"), shared by the usage tests and the end-to-end build test.
import { py, type Tree } from '../helpers/tree.ts';

/** timm's shape: `@register_model` functions → `_create_x` → `build_model_with_cfg(model_cls, ...)`. */
export const TIMM_TREE: Tree = {
  'zoo/__init__.py': py`
    from .resnet import *
  `,
  // As timm's: the decorator reads the module's `default_cfgs` off `sys.modules`, and the builder applies them.
  'zoo/_registry.py': py`
    import sys
    _models = {}
    _cfgs = {}
    def register_model(fn):
        mod = sys.modules[fn.__module__]
        _models[fn.__name__] = fn
        if hasattr(mod, 'default_cfgs') and fn.__name__ in mod.default_cfgs:
            _cfgs[fn.__name__] = mod.default_cfgs[fn.__name__]
        return fn
    def pretrained_cfg_for(variant):
        return _cfgs.get(variant, {})
  `,
  'zoo/_builder.py': py`
    from ._registry import pretrained_cfg_for

    def build_model_with_cfg(model_cls, variant, pretrained, feature_cfg=None, **kwargs):
        kwargs.setdefault('num_classes', pretrained_cfg_for(variant).get('num_classes', 10))
        features = kwargs.pop('features_only', False)
        if features:
            model = model_cls(**kwargs)
        else:
            model = model_cls(**kwargs)
        model.variant = variant
        return model
  `,
  'zoo/resnet.py': py`
    import torch.nn as nn
    from ._builder import build_model_with_cfg
    from ._registry import register_model

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return self.fc(x)

    class Net(nn.Module):
        def __init__(self, block=Block, layers=(1, 1), width=8, num_classes=10):
            super().__init__()
            self.blocks = nn.Sequential(*[block(width) for _ in range(sum(layers))])
            self.head = nn.Linear(width, num_classes)
        def forward(self, x):
            return self.head(self.blocks(x))

    class Other(Net):
        pass

    default_cfgs = {'net_small': {'num_classes': 5}}

    def _create_net(variant, pretrained=False, **kwargs):
        return build_model_with_cfg(Net, variant, pretrained, feature_cfg=dict(flatten=True), **kwargs)

    def _create_other(variant, pretrained=False, **kwargs):
        model_cls = Other
        model = build_model_with_cfg(model_cls, variant, pretrained, **kwargs)
        return model

    @register_model
    def net_small(pretrained=False, **kwargs):
        model_args = dict(layers=(1, 1), width=8)
        return _create_net('net_small', pretrained, **dict(model_args, **kwargs))

    @register_model
    def net_wide(pretrained=False, **kwargs):
        model_args = {'layers': (2, 2), 'width': 32}
        return _create_net('net_wide', pretrained=pretrained, **model_args, **kwargs)

    @register_model
    def other_small(pretrained=False, **kwargs):
        return _create_other('other_small', pretrained, **dict(width=16, **kwargs))
  `,
};

/**
 * OpenMMLab's shape: a registry whose `register_module()` decorator registers a class, and a `configs/` folder of
 * Python config files whose `dict(type='TinyBackbone', ...)` configure it (one named as no module can be).
 */
export const MM_TREE: Tree = {
  'mm/__init__.py': py`
    from .backbone import TinyBackbone
  `,
  'mm/registry.py': py`
    class Registry:
        def __init__(self, name):
            self.name = name
            self.modules = {}
        def register_module(self, name=None, module=None):
            if module is not None:
                self.modules[name or module.__name__] = module
                return module
            def register(cls):
                self.modules[name or cls.__name__] = cls
                return cls
            return register
        def build(self, cfg):
            cfg = dict(cfg)
            kind = cfg.pop('type')
            return (kind if isinstance(kind, type) else self.modules[kind])(**cfg)

    MODELS = Registry('models')
  `,
  // Builds its parts from config dicts through the registry; it never imports the modules that register them.
  'mm/classifier.py': py`
    import torch.nn as nn
    from .registry import MODELS

    @MODELS.register_module()
    class Classifier(nn.Module):
        def __init__(self, backbone, neck=None, head=None):
            super().__init__()
            self.backbone = MODELS.build(backbone)
            self.neck = MODELS.build(neck) if neck else nn.Identity()
            self.head = MODELS.build(head) if head else nn.Identity()
        def forward(self, x):
            return self.head(self.neck(self.backbone(x)))
  `,
  // A torch class registered by a call under another name: no block of the source stands for it.
  'mm/necks.py': py`
    import torch.nn as nn
    from .registry import MODELS

    MODELS.register_module('Flat', module=nn.Identity)
  `,
  'mm/heads.py': py`
    import torch.nn as nn
    from .registry import MODELS

    @MODELS.register_module()
    class LinearHead(nn.Module):
        def __init__(self, num_classes, in_channels=8):
            super().__init__()
            self.fc = nn.Linear(in_channels, num_classes)
        def forward(self, x):
            return self.fc(x)
  `,
  'mm/backbone.py': py`
    import torch.nn as nn
    from .registry import MODELS

    NORMS = {'BN': nn.BatchNorm1d, 'LN': nn.LayerNorm}

    @MODELS.register_module()
    class TinyBackbone(nn.Module):
        def __init__(self, depth=1, width=8, norm_cfg=dict(type='BN'), init_cfg=None):
            super().__init__()
            if init_cfg is not None:
                raise ValueError('init_cfg would load weights')
            norm = NORMS[norm_cfg['type']]
            self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(width, width), norm(width)) for _ in range(depth)])
        def forward(self, x):
            return self.layers(x)
  `,
  'configs/_base_/models/tiny18.py': py`
    model = dict(
        type='Classifier',
        backbone=dict(type='TinyBackbone', depth=2, width=8, norm_cfg=dict(type='BN')),
        neck=dict(type='Flat'),
        head=dict(type='LinearHead', num_classes=10),
    )
  `,
  'configs/tiny/tiny-wide_8xb32-in1k.py': py`
    _base_ = ['../_base_/models/tiny18.py']
    norm = dict(type='LN')
    model = dict(
        type='Classifier',
        backbone=dict(
            type='TinyBackbone', depth=3, width=16, norm_cfg=norm,
            init_cfg=dict(type='Pretrained', checkpoint='https://example.org/tiny.pth')),
    )
  `,
  // mmengine's pure-Python style: the class imported and named.
  'configs/tiny/tiny_pure.py': py`
    from mm.backbone import TinyBackbone
    model = dict(type='Classifier', backbone=dict(type=TinyBackbone, depth=1, width=4))
  `,
  'configs/tiny/tiny-unknown.py': py`
    depth = 4
    model = dict(type='Classifier', backbone=dict(type='TinyBackbone', depth=depth))
  `,
};
