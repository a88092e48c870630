// Table tests for the category rules (multi-label): for every rule, blocks it fires on (and whose categories it
// adds) and near misses it must not fire on, each with the reason.
import { describe, expect, it } from 'vitest';
import { CATEGORY_RULES, categorize, type CategoryInput } from '../../pipeline/catalog/category.ts';
import { matchMethods, taxonomy } from '../../pipeline/catalog/taxonomy.ts';

type Block = string | Partial<CategoryInput>;

/** A block by name (bases: just nn.Module, no layers), or with bases/layers given. */
function input(b: Block): CategoryInput {
  const o = typeof b === 'string' ? { name: b } : b;
  return { name: o.name ?? 'Block', bases: o.bases ?? ['torch.nn.Module'], layers: o.layers ?? [], kind: o.kind };
}

const NORM = 'torch.nn.modules.batchnorm.BatchNorm2d';

/** rule id → [blocks it fires on, blocks it must not fire on, why]. */
const table: Record<string, [Block[], Block[], string]> = {
  'kind:transform': [[{ name: 'RandomCrop', kind: 'transform' }], [{ name: 'RandomCrop' }], 'the kind says so'],
  'kind:loss': [[{ name: 'Focal', kind: 'loss' }], [{ name: 'FocalLoss' }], 'the kind decides, not the name'],
  'name:network': [
    ['ResNet', 'VisionTransformer', 'MaskRCNN', 'BackboneWithFPN', 'SSD', 'SSDLite', 'YOLOv5', 'Inception3'],
    ['SSDHead', 'SSDClassificationHead', 'YOLOHead', 'InceptionA', 'ResNetBlock'],
    'a whole network by its name ending; heads and blocks of a network are not networks',
  ],
  'name:stage': [['AnyStage', 'ResStage'], ['Stager', 'StageBlock'], 'a stage of a network'],
  'name:transformer-block': [
    ['TransformerEncoderLayer', 'SwinTransformerBlock', 'DecoderBlock', 'EncoderLayer'],
    ['Transformer', 'TransformerEncoder', 'BasicBlock'],
    'a layer or block of a transformer, not the whole stack',
  ],
  'name:attention': [
    ['WindowAttention', 'MultiHeadSelfAttn', 'attnPool', 'MultiHead'],
    ['Attend', 'Scatter'],
    'Attention, Attn, MultiHead in any case',
  ],
  'layer:attention': [
    [{ name: 'Mixer', layers: ['torch.nn.Linear', 'torch.nn.MultiheadAttention'] }],
    [{ name: 'Mixer', layers: ['torch.nn.Linear'] }],
    'contains nn.MultiheadAttention',
  ],
  'name:normalization': [['LayerNorm2d', 'FrozenBatchNorm2d', 'RMSNorm'], ['Nominal', 'Enormous'], 'Norm, capitalized'],
  'base:normalization': [
    [{ name: 'Frozen2d', bases: [NORM, 'torch.nn.Module'] }, { bases: ['torch.nn.GroupNorm'] }],
    [{ bases: ['pkg.m.Normalizer', 'torch.nn.Module'] }],
    'a torch normalization layer among the bases',
  ],
  'name:pooling': [['RoIPool', 'GemPool'], ['Spool'], 'Pool, capitalized'],
  'base:pooling': [
    [{ name: 'Gem', bases: ['torch.nn.AdaptiveAvgPool2d', 'torch.nn.Module'] }],
    [{ name: 'Gem', bases: ['pkg.m.Base', 'torch.nn.Module'] }],
    'a pooling layer among the bases',
  ],
  'name:activation': [
    ['ReLU6', 'HSwish', 'Hardsigmoid', 'GELUTanh', 'SiLU', 'Mish'],
    ['SqueezeExcitation', 'ReactBlock'],
    'the name starts with an activation',
  ],
  'name:embedding': [['PatchEmbed', 'PositionalEncoding', 'RelPosEnc'], ['Embargo'], 'Embed, PosEnc'],
  'name:recurrent': [['ConvGRU', 'LSTMCell', 'BiRNN'], ['FasterRCNN'], 'LSTM, GRU, RNN; RCNN is not RNN'],
  'name:mlp': [['Mlp', 'MLPBlock', 'PositionwiseFeedForward', 'FFN'], ['Ffn', 'Perceptron'], 'MLP, FeedForward, FFN'],
  'name:convolution': [
    ['BasicConv2d', 'MBConv', 'DeformConv2d', 'ConvBlock', 'DepthwiseConvolution'],
    ['ConvertImageDtype', 'Convex'],
    'Conv as a word: Convert and Convex are not convolutions',
  ],
  'base:convolution': [
    [{ name: 'Std', bases: ['torch.nn.Conv2d', 'torch.nn.Module'] }, { bases: ['torch.nn.modules.conv._ConvNd'] }],
    [{ name: 'Std', bases: ['torch.nn.Linear', 'torch.nn.Module'] }],
    'a torch convolution among the bases',
  ],
  'layer:convolution': [
    [{ layers: ['torch.nn.Conv2d', 'torch.nn.BatchNorm2d', 'torch.nn.ReLU'] }],
    [{ layers: ['torch.nn.Linear', 'torch.nn.ReLU'] }],
    'contains a convolution',
  ],
  'layer:mlp': [
    [{ layers: ['torch.nn.Linear', 'torch.nn.GELU', 'torch.nn.Dropout', 'torch.nn.Linear'] }],
    [{ layers: ['torch.nn.Dropout', 'torch.nn.ReLU'] }, { layers: ['torch.nn.Linear', 'torch.nn.LayerNorm'] }, {}],
    'Linear layers and only activations or dropout besides; no Linear at all is not an MLP',
  ],
  'name:residual': [
    ['BasicBlock', 'Bottleneck', 'InvertedResidual', 'ResBlock'],
    ['Block', 'Resize'],
    'residual units',
  ],
  'name:regularization': [
    ['StochasticDepth', 'DropPath', 'DropBlock2d', 'SpatialDropout'],
    ['Droplet', 'Drop'],
    'drop-style regularizers',
  ],
  'name:reshape': [
    ['Permute', 'SwapAxes', 'WindowPartition', 'WindowDepartition', 'PatchMerging'],
    ['Merge', 'Partition'],
    'tensor reshapes',
  ],
  'name:detection': [
    [
      'RoIAlign',
      'RegionProposalNetwork',
      'AnchorGenerator',
      'DefaultBoxGenerator',
      'KeypointRCNNPredictor',
      'SSDScoringHead',
    ],
    ['Roi', 'Predict', 'Head'],
    'parts of detectors and segmenters',
  ],
  'name:utility': [
    ['Wrapper', 'Identity', 'GeneralizedRCNNTransform', 'IntermediateLayerGetter', 'FrozenThing', 'SSDHead'],
    ['TransformerEncoder', 'Block', 'Header'],
    'wrappers and helpers; Transformer is not Transform',
  ],
  fallback: [['Block', 'TransformerEncoder', 'Scale'], [], 'every block gets a category'],
};

describe('category rules', () => {
  it('has a table row for every rule, and no row for a rule that does not exist', () => {
    expect(Object.keys(table).sort()).toEqual(CATEGORY_RULES.map((r) => r.id).sort());
  });

  for (const rule of CATEGORY_RULES) {
    const row = table[rule.id];
    if (!row) continue;
    const [positives, negatives, why] = row;
    it(`${rule.id} — ${why}`, () => {
      expect(positives.length, 'at least one positive case').toBeGreaterThan(0);
      for (const b of positives) {
        const got = categorize(input(b));
        expect(rule.test(input(b)), `${rule.id} fires on ${JSON.stringify(b)}`).toBe(true);
        // A weak rule is recorded only when no strong one fired; the positives here are chosen so that none does.
        expect(got.rules, JSON.stringify(b)).toContainEqual({ category: rule.category, rule: rule.id });
        expect(got.categories).toContain(rule.category);
      }
      if (rule.id !== 'fallback') expect(negatives.length, 'at least one negative case').toBeGreaterThan(0);
      for (const b of negatives)
        expect(rule.test(input(b)), `${rule.id} must not fire on ${JSON.stringify(b)}`).toBe(false);
    });
  }

  it('is multi-label: every strong rule that fires adds its category, in rule order', () => {
    const got = categorize(input('Conv2dNormActivation'));
    expect(got.categories).toEqual(['normalization', 'convolution']);
    expect(got.rules.map((r) => r.rule)).toEqual(['name:normalization', 'name:convolution']);
  });

  it('takes the categories of the taxonomy methods a block implements, first', () => {
    const got = categorize({
      ...input({ name: 'SqueezeExcitation', layers: ['torch.nn.Conv2d', 'torch.nn.Sigmoid'] }),
      methods: [{ slug: 'squeeze-and-excitation', categories: ['attention'] }],
    });
    // Holding a Conv2d does not make SE a convolution: composition rules are weak and a method rule fired.
    expect(got).toEqual({
      categories: ['attention'],
      rules: [{ category: 'attention', rule: 'method:squeeze-and-excitation' }],
    });
  });

  it('a block named neutrally (`Block`) that is a pre-norm attention + MLP block is a transformer block, not other', () => {
    const t = 'torch.nn.modules';
    const lin = (name: string) => ({ name, type: `${t}.linear.Linear` });
    const children = [
      { name: 'norm1', type: `${t}.normalization.LayerNorm` },
      { name: 'attn', type: 'vision_transformer.Attention', children: [lin('qkv'), lin('proj')] },
      { name: 'norm2', type: `${t}.normalization.LayerNorm` },
      { name: 'mlp', type: 'vision_transformer.Mlp', children: [lin('fc1'), lin('fc2')] },
    ];
    const layers = children.map((c) => c.type);
    const of = (kids: typeof children) =>
      categorize({
        ...input({ name: 'Block', layers }),
        methods: matchMethods({ name: 'Block', module: 'vision_transformer', bases: [], layers, children: kids }).map(
          (m) => ({ slug: m.slug, categories: taxonomy().methods.find((x) => x.slug === m.slug)!.categories }),
        ),
      });
    expect(of(children)).toEqual({
      categories: ['transformer-block', 'attention'],
      rules: [
        { category: 'transformer-block', rule: 'method:transformer-encoder-block' },
        { category: 'attention', rule: 'method:transformer-encoder-block' },
      ],
    });
    // Without its MLP it is no encoder block, and its name says nothing: other, as before.
    expect(of(children.slice(0, 3)).categories).toEqual(['other']);
  });

  it('a transform or a loss is that alone, whatever its name says', () => {
    expect(categorize({ ...input('Normalize'), kind: 'transform' }).categories).toEqual(['transform']);
    expect(categorize({ ...input('AttentionLoss'), kind: 'loss' }).categories).toEqual(['loss']);
  });

  it('weak composition rules speak only when no strong rule fired', () => {
    expect(categorize(input({ name: 'PreNormAct', layers: ['torch.nn.Conv2d'] })).categories).toEqual([
      'normalization',
    ]);
    expect(categorize(input({ name: 'Stem', layers: ['torch.nn.Conv2d'] })).categories).toEqual(['convolution']);
  });
});
