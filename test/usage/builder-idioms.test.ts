// Builder idioms of real model zoos, mined statically (docs/usage.md, "Builders"): timm's registered model functions,
// which pass a class to a helper that constructs its parameter, and spread their configuration as `**dict(...)`.
// Each case: the upstream shape in a tiny inline package, what is mined, and why.
import { beforeAll, describe, expect, it } from 'vitest';
import type { UsageArg, UsageValue } from '../../pipeline/usage/types.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { indexTree } from '../helpers/corpus.ts';
import { TIMM_TREE } from './idioms-fixture.ts';

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
