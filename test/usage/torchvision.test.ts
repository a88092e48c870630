// Usage mining on the installed torchvision (a `python` source, through the real sources, index and discovery
// stages): the builders and forward calls named below, found statically, without running torchvision.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunContext } from '../../pipeline/run/prepare.ts';
import type { UsageValue } from '../../pipeline/usage/types.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { debianPython, describeOnDebianTorchvision } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';

const tv = (name: string) => `torchvision:torchvision.${name}`;

describeOnDebianTorchvision('usage mining on the installed torchvision', () => {
  let ctx: RunContext;
  let index: UsageIndex;
  let blockIds: string[];

  beforeAll(async () => {
    // Debian's torchvision 0.14.1 (the figures below are its code's); the managed 0.29.1 is mined the same way.
    const config = writeConfig(
      [{ id: 'torchvision', kind: 'python', distribution: 'torchvision', include: ['torchvision/**/*.py'] }],
      { python: debianPython() },
    );
    const run = await prepareRun(config);
    ctx = run.ctx;
    const blocks = run.p.discovered.blocks.filter((b) => !b.abstract);
    blockIds = blocks.map((b) => b.id);
    index = buildUsageIndex(run.p.program, blocks);
  }, 120_000);
  afterAll(() => ctx?.store.close());

  it('finds resnet50 as a zero-argument builder of ResNet with Bottleneck and [3, 4, 6, 3]', () => {
    const b = index.usageOf(tv('models.resnet.ResNet')).builders.find((x) => x.name === 'resnet50')!;
    expect(b).toMatchObject({ path: 'torchvision/models/resnet.py', zeroArg: true, through: ['_resnet'] });
    expect(b.args.slice(0, 2).map((a) => a.value)).toEqual<UsageValue[]>([
      { kind: 'ref', name: 'torchvision.models.resnet.Bottleneck', blockId: tv('models.resnet.Bottleneck') },
      { kind: 'literal', value: [3, 4, 6, 3] },
    ]);
  });

  it.each([
    ['efficientnet_b0', 'models.efficientnet.EfficientNet'],
    ['mobilenet_v3_large', 'models.mobilenetv3.MobileNetV3'],
    ['swin_t', 'models.swin_transformer.SwinTransformer'],
    ['vgg16', 'models.vgg.VGG'],
    ['convnext_tiny', 'models.convnext.ConvNeXt'],
    ['retinanet_resnet50_fpn', 'models.detection.retinanet.RetinaNet'],
    ['ssd300_vgg16', 'models.detection.ssd.SSD'],
    ['raft_large', 'models.optical_flow.raft.RAFT'],
  ])('finds %s as a zero-argument builder of %s', (name, block) => {
    const builders = index.usageOf(tv(block)).builders;
    expect(builders.find((b) => b.name === name)).toMatchObject({ zeroArg: true, blockId: tv(block) });
  });

  it("substitutes swin_t's keywords through _swin_transformer into SwinTransformer(...)", () => {
    const b = index.usageOf(tv('models.swin_transformer.SwinTransformer')).builders.find((x) => x.name === 'swin_t')!;
    expect(b.through).toEqual(['_swin_transformer']);
    const byName = new Map(b.args.map((a) => [a.name, a.value]));
    expect(byName.get('patch_size')).toEqual({ kind: 'literal', value: [4, 4] });
    expect(byName.get('depths')).toEqual({ kind: 'literal', value: [2, 2, 6, 2] });
  });

  it("finds RAFT's MotionEncoder called with 2 arguments: self.motion_encoder(flow, corr_features)", () => {
    const calls = index.usageOf(tv('models.optical_flow.raft.MotionEncoder')).forwardCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      scope: 'UpdateBlock.forward',
      inBlock: tv('models.optical_flow.raft.UpdateBlock'),
      callee: 'self.motion_encoder',
      arity: 2,
      keywords: [],
    });
    expect(calls[0].args.map((a) => a.value)).toEqual([
      { kind: 'name', name: 'flow' },
      { kind: 'name', name: 'corr_features' },
    ]);
  });

  it('finds Bottleneck constructed by ResNet._make_layer, through the block parameter', () => {
    const sites = index.usageOf(tv('models.resnet.Bottleneck')).constructions;
    const made = sites.filter((s) => s.scope === 'ResNet._make_layer');
    expect(made.length).toBeGreaterThanOrEqual(2); // the first block of a layer, then the rest
    expect(
      made.every((s) => s.via === 'parameter' && s.callee === 'block' && s.inBlock === tv('models.resnet.ResNet')),
    ).toBe(true);
    // The builders pass it by reference: `_resnet(Bottleneck, [3, 4, 6, 3], ...)` in resnet50.
    expect(
      sites.some((s) => s.via === 'reference' && s.scope === 'resnet50' && s.callee === '_resnet' && s.as === 0),
    ).toBe(true);
  });

  it('covers most blocks: a construction site for 3 in 4, a zero-argument builder for the networks', () => {
    const used = blockIds.filter((id) => index.usageOf(id).constructions.length > 0);
    const zeroArg = blockIds.filter((id) => index.usageOf(id).builders.some((b) => b.zeroArg));
    const forward = blockIds.filter((id) => index.usageOf(id).forwardCalls.length > 0);
    expect(used.length / blockIds.length).toBeGreaterThan(0.75);
    expect(zeroArg.length).toBeGreaterThanOrEqual(35);
    expect(forward.length).toBeGreaterThanOrEqual(60);
  });
});
