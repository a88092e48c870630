// Every structural taxonomy rule on a tiny package (fixtures.ts) read through the real index: the class, the methods
// it must land in (by structure: the fixtures are renamed so no name rule fires), the features its forward shows,
// and why. Near misses beside them. Real repositories are not in CI: test/bench/taxonomy.bench.ts measures the same
// rules on them (docs/taxonomy.md, "Figures").
import { beforeAll, describe, expect, it } from 'vitest';
import { StructureReader, type StructureFacts } from '../../../pipeline/catalog/structure/reader.ts';
import { matchMethods } from '../../../pipeline/catalog/taxonomy.ts';
import type { Block } from '../../../pipeline/discover/discover.ts';
import { indexTree } from '../../helpers/corpus.ts';
import { STRUCTURE_FIXTURE } from './fixtures.ts';

let facts: (name: string) => StructureFacts;
let methods: (name: string) => string[];

beforeAll(async () => {
  const { program, discovered, store } = await indexTree(STRUCTURE_FIXTURE);
  store.close();
  const reader = new StructureReader(program, discovered.blocks);
  const byName = new Map<string, Block>(discovered.blocks.map((b) => [b.name, b]));
  facts = (name) => reader.factsOf(byName.get(name)!);
  methods = (name) => {
    const b = byName.get(name)!;
    return matchMethods({ name: b.name, module: b.module, bases: b.baseChain, layers: [], structure: facts(name) }).map(
      (m) => `${m.slug} ${m.rule}`,
    );
  };
}, 60_000);

const slugs = (name: string) => methods(name).map((m) => m.split(' ')[0]);

/** [class, methods it lands in (by a structure rule), why]. */
const table: [string, string[], string][] = [
  ['GateA', ['squeeze-and-excitation'], 'timm: mean over H, W; two 1x1 convs; a gate the factory makes from "sigmoid"'],
  ['GateB', ['squeeze-and-excitation'], 'detectron2: an adaptive pool, a Sequential ending in nn.Sigmoid'],
  ['GateC', ['squeeze-and-excitation'], 'mmpretrain: the sigmoid is in the act_cfg default of the second ConvModule'],
  ['ChannelMixA', ['efficient-channel-attention'], 'ECA-Net: a 1-d conv across the pooled channels'],
  ['ChannelMixB', ['efficient-channel-attention'], 'torch.mean over (-1, -2), F.sigmoid, a 1-d conv'],
  ['AxisGate', [], 'coordinate attention pools H and W apart: no squeeze'],
  ['ContextGate', [], 'GCNet-style context from a softmax over positions: no squeeze'],
  ['DualGate', ['cbam'], 'channel gate then spatial gate (channel-pooled maps) in one forward'],
  ['TwoGates', ['cbam'], 'ultralytics: a channel-gate child and a spatial-gate child'],
  ['GatePair', ['cbam'], "attention-module (CBAM's authors): two gate children named like their classes"],
  ['PooledGate', ['squeeze-and-excitation'], 'attention-module: F.avg_pool2d / F.max_pool2d in a loop, then F.sigmoid'],
  ['MixedGates', ['cbam'], 'the channel gate inline, the spatial gate a child'],
  ['OneGate', [], 'the channel half alone'],
  ['ChannelPart', ['squeeze-and-excitation'], "CBAM's channel half is itself a squeeze-and-excitation gate"],
  ['ScaleA', ['layer-scale'], 'timm: x * gamma (or in place), gamma = init_values * ones(dim), nothing else held'],
  ['ScaleB', ['layer-scale'], 'mmcv: ones(dim) * init value'],
  ['Knowledge', [], 'per-channel, but initialised at random: YOLOR implicit knowledge, not a layer scale'],
  ['Scalar', [], 'one scalar, not a scale per channel'],
  [
    'GlobalMixA',
    ['non-local-block'],
    'mmcv: pairwise softmax(theta phi) weighting g, conv projections, x + conv_out(y)',
  ],
  ['GlobalMixB', ['non-local-block'], 'timm: two bmm products, softmax, a norm, the shortcut'],
  ['Attention', ['multi-head-attention'], 'a ViT attention: no residual, linear projections (matched by its name)'],
  ['ShiftedMixer', ['shifted-window-attention'], 'mmpretrain: roll, partition, a window attention child'],
  ['ShiftedMixer2', ['shifted-window-attention'], 'torchvision: a module function rolls, partitions, attends'],
  [
    'WindowLayer',
    ['shifted-window-attention', 'transformer-encoder-block'],
    'mmpretrain: norm attention norm mlp with residuals inside _inner_forward; its attention child shifts windows',
  ],
  [
    'ShiftedLayer',
    ['shifted-window-attention', 'transformer-encoder-block'],
    "Swin's own block (microsoft/Swin-Transformer, timm): roll and partition in the block, the attention a child",
  ],
  ['ShiftOnly', [], 'ShiftViT: rolled, but nothing attends'],
  ['PlainWindows', [], 'windows without a shift'],
  ['Layer', ['transformer-encoder-block'], 'timm: pre-norm attention and MLP, each added back, whatever the name'],
  ['PostNormUnit', ['transformer-encoder-block'], 'DETR: post-norm, the MLP as two linear maps'],
  ['CrossUnit', ['transformer-decoder-block'], 'DETR: self-attention, cross-attention, MLP'],
  ['NoSkip', [], 'attention and MLP with no residual add'],
  ['TokenChannel', ['mlp-mixer-block'], 'norm, token MLP, norm, channel MLP, residual'],
  ['Foldable', ['structural-reparameterization'], 'defines the kernel arithmetic that folds branches'],
  ['ConvUnit', ['conv-norm-activation'], 'conv, norm, activation and a Conv in its name'],
];

describe('structural taxonomy rules on a tiny package', () => {
  it.each(table)('%s → %j: %s', (name, expected) => {
    const structural = methods(name)
      .filter((m) => /structure#|composition#/.test(m))
      .map((m) => m.split(' ')[0]);
    expect(structural.sort(), methods(name).join(', ')).toEqual(
      expected.filter((s) => s !== 'multi-head-attention').sort(),
    );
    for (const s of expected) expect(slugs(name)).toContain(s);
  });

  it('records structure rules as such: `structure#<index>`', () => {
    expect(methods('GateA')).toEqual([expect.stringMatching(/^squeeze-and-excitation structure#\d+$/)]);
  });
});

describe('features the forwards show', () => {
  it.each([
    ['GateA', ['channel-gate']],
    ['ChannelMixA', ['channel-gate-1d']],
    ['DualGate', ['channel-gate', 'spatial-gate']],
    ['ScaleA', ['param-scale', 'param-affine']],
    ['Knowledge', ['param-affine']],
    ['GlobalMixA', ['residual', 'attention-core', 'pairwise-attention']],
    ['ShiftedMixer', ['window-partition', 'shift']],
    ['ShiftedMixer2', ['attention-core', 'pairwise-attention', 'window-partition', 'shift']],
    ['WindowLayer', ['residual']],
    ['Layer', ['residual']],
    ['NoSkip', []],
    ['CompressGate', ['spatial-gate']],
    ['ShiftedLayer', ['residual', 'window-partition', 'shift']],
    ['ShiftOnly', ['residual', 'shift']],
    ['ResPlusLayer', ['residual']],
  ])('%s: %j', (name, features) => {
    expect([...facts(name).features].sort()).toEqual([...features].sort());
  });

  it('reads the roles of the children, neutral ones (identity, layer scale, drop path) left out', () => {
    expect(facts('Layer').roles).toEqual(['norm', 'attention', 'norm', 'mlp']);
    expect(facts('PostNormUnit').roles).toEqual(['attention', 'linear', 'linear', 'norm', 'norm']);
    expect(facts('WindowLayer').roles).toEqual(['norm', 'attention', 'norm', 'mlp']);
  });

  it("reads a child's class where the corpus defines it: the features of its children", () => {
    expect(facts('TwoGates').childFeatures).toEqual(['channel-gate', 'spatial-gate']);
    expect(facts('WindowLayer').childFeatures).toEqual(expect.arrayContaining(['shift', 'window-partition']));
  });
});
