// Builder idioms of real model zoos, mined statically (docs/usage.md, "Builders"): timm's registered model functions,
// which pass a class to a helper that constructs its parameter, and spread their configuration as `**dict(...)`.
// Each case: the upstream shape in a tiny inline package, what is mined, and why.
import { beforeAll, describe, expect, it } from 'vitest';
import type { UsageArg, UsageValue } from '../../pipeline/usage/types.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { indexTree } from '../helpers/corpus.ts';
import { py, type Tree } from '../helpers/tree.ts';

/** timm's shape: `@register_model` functions → `_create_x` → `build_model_with_cfg(model_cls, ...)`. */
export const TIMM_TREE: Tree = {
  'zoo/__init__.py': py`
    from .resnet import *
  `,
  'zoo/_registry.py': py`
    _models = {}
    def register_model(fn):
        _models[fn.__name__] = fn
        return fn
  `,
  'zoo/_builder.py': py`
    def build_model_with_cfg(model_cls, variant, pretrained, feature_cfg=None, **kwargs):
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

let index: UsageIndex;
const value = (v: UsageValue): string =>
  v.kind === 'literal'
    ? JSON.stringify(v.value)
    : v.kind === 'list'
      ? `[${v.items.map(value).join(', ')}]`
      : `${v.kind}:${'name' in v ? v.name : ''}`;
const arg = (a: UsageArg) => `${'*'.repeat(a.star ?? 0)}${a.name !== undefined ? `${a.name}=` : ''}${value(a.value)}`;
const builders = (id: string) =>
  index
    .usageOf(`fx:zoo.${id}`)
    .builders.map(
      (b) =>
        `${b.name}${b.zeroArg ? ' (no arguments)' : ''}: (${b.args.map(arg).join(', ')}) via ${b.through.join(', ')}`,
    );

beforeAll(async () => {
  const first = await indexTree(TIMM_TREE);
  index = buildUsageIndex(first.program, first.discovered.blocks);
});

describe("timm's registered model functions", () => {
  it('follows a helper that constructs the class its caller passes (`model = model_cls(**kwargs)`)', () => {
    // _create_net passes Net for build_model_with_cfg's model_cls; `**dict(model_args, **kwargs)` opens up.
    expect(builders('resnet.Net')).toContain(
      'net_small (no arguments): (layers=[1,1], width=8, **param:kwargs) via _create_net, build_model_with_cfg',
    );
  });

  it('opens a spread of a local dict display (`**model_args`)', () => {
    expect(builders('resnet.Net')).toContain(
      'net_wide (no arguments): (layers=[2,2], width=32, **param:kwargs) via _create_net, build_model_with_cfg',
    );
  });

  it('follows a class bound to a local before it is passed (`model_cls = Other`)', () => {
    expect(builders('resnet.Other')).toContain(
      'other_small (no arguments): (width=16, **param:kwargs) via _create_other, build_model_with_cfg',
    );
  });

  it("keeps the helper that builds its parameter out of any class's builders", () => {
    const all = ['resnet.Net', 'resnet.Other', 'resnet.Block'].flatMap(builders);
    expect(all.filter((b) => b.startsWith('build_model_with_cfg'))).toEqual([]);
  });
});
