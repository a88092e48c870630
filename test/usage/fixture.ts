// A tiny inline package for the usage-mining tests: blocks built directly, through an alias, a module object,
// `partial`, a parameter, a registry (a dict of classes, `@MODELS.register_module()` with config dicts), builder
// functions (direct, through a private helper, zero-argument), and forward calls with several inputs and keywords.
import { py, type Tree } from '../helpers/tree.ts';

export const USAGE_TREE: Tree = {
  'pkg/__init__.py': py`
    from .blocks import Bottleneck
  `,
  'pkg/blocks.py': py`
    import torch.nn as nn

    class Bottleneck(nn.Module):
        expansion = 4
        def __init__(self, inplanes, planes, stride=1, groups=1):
            super().__init__()
            self.conv = nn.Conv2d(inplanes, planes, 1, stride=stride, groups=groups)
        def forward(self, x):
            return self.conv(x)

    class Basic(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv = nn.Conv2d(inplanes, planes, 3, stride=stride)
        def forward(self, x):
            return self.conv(x)

    class Norm(nn.Module):
        def __init__(self, num_features, eps=1e-5):
            super().__init__()
            self.bn = nn.BatchNorm2d(num_features, eps=eps)
        def forward(self, x):
            return self.bn(x)

    class Wide(Basic):
        def __init__(self, inplanes, planes):
            super().__init__(inplanes, planes * 2, stride=1)
  `,
  'pkg/net.py': py`
    from functools import partial
    import torch
    import torch.nn as nn
    from .blocks import Bottleneck as B, Basic, Norm
    from . import blocks

    class Encoder(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
        def forward(self, flow, corr, mask=None):
            return self.proj(flow)

    class Net(nn.Module):
        def __init__(self, block, layers, norm_layer=None, encoder=None):
            super().__init__()
            if norm_layer is None:
                norm_layer = partial(Norm, eps=1e-3)
            self.inplanes = 64
            self.stem = B(3, 64, stride=2)
            self.layer1 = self._make_layer(block, 64, layers[0])
            self.layer2 = blocks.Basic(64, 128, stride=2)
            self.encoder = encoder
            self.norm = norm_layer(64)
        def _make_layer(self, block, planes, n):
            layers = [block(self.inplanes, planes, stride=1)]
            return nn.Sequential(*layers)
        def forward(self, x):
            y = self.stem(x)
            return self.encoder(y, torch.zeros(1, 8, 4, 4), mask=None)

    def _net(block, layers, **kwargs):
        model = Net(block, layers, **kwargs)
        return model

    def net50(*, pretrained=False, **kwargs):
        return _net(B, [3, 4, 6, 3], encoder=Encoder(16), **kwargs)

    def net_custom(block, depth=2):
        return Net(block, [depth] * 4)

    def make_basic():
        return Net(block=Basic, layers=[2, 2])

    def demo():
        model = net50()
        inp = torch.randn(2, 3, 32, 32)
        return model(inp)
  `,
  'pkg/registry.py': py`
    import torch.nn as nn
    from mm.registry import MODELS
    from .blocks import Basic, Bottleneck

    @MODELS.register_module()
    class Head(nn.Module):
        def __init__(self, in_channels, num_classes=10):
            super().__init__()
            self.fc = nn.Linear(in_channels, num_classes)
        def forward(self, x):
            return self.fc(x)

    @MODELS.register_module(name='FancyHead')
    class Head2(Head):
        pass

    BLOCKS = {'basic': Basic, 'bottleneck': Bottleneck}

    def build(name):
        return BLOCKS[name](64, 64)

    def build_basic():
        return BLOCKS['basic'](32, 32, stride=2)
  `,
  'pkg/configs.py': py`
    from mm.registry import MODELS

    model = dict(type='Head', in_channels=256, num_classes=80)
    head2 = {'type': 'FancyHead', 'in_channels': 128}
    built = MODELS.build(dict(type='Head', in_channels=3))
  `,
};
