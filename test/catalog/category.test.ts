// Table tests for the category rules: for every rule, blocks it decides (it is the first rule to fire) and near
// misses it must not fire on, each with the reason.
import { describe, expect, it } from 'vitest';
import { CATEGORY_RULES, categorize, type CategoryInput } from '../../pipeline/catalog/category.ts';

type Block = string | Partial<CategoryInput>;

/** A block by name (bases: just nn.Module, no layers), or with bases/layers given. */
function input(b: Block): CategoryInput {
  const o = typeof b === 'string' ? { name: b } : b;
  return { name: o.name ?? 'Block', bases: o.bases ?? ['torch.nn.Module'], layers: o.layers ?? [] };
}

const NORM = 'torch.nn.modules.batchnorm.BatchNorm2d';

/** rule id → [blocks it decides, blocks it must not fire on, why]. */
const table: Record<string, [Block[], Block[], string]> = {
  'name:loss': [['FocalLoss', 'SetCriterion'], ['Gloss', 'Glossary'], 'Loss or Criterion, case-sensitive'],
  'base:loss': [
    [{ name: 'Focal', bases: ['torch.nn.modules.loss._Loss', 'torch.nn.Module'] }, { bases: ['pkg.m.BaseLoss'] }],
    [{ bases: ['pkg.m.LossHelper', 'torch.nn.Module'] }],
    'a base named *Loss or _Loss',
  ],
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
  'name:network': [
    ['ResNet', 'VisionTransformer', 'MaskRCNN', 'BackboneWithFPN', 'SSD', 'SSDLite', 'YOLOv5', 'Inception3'],
    ['SSDHead', 'SSDClassificationHead', 'YOLOHead', 'InceptionA', 'ResNetBlock'],
    'a whole network by its name ending; heads and blocks of a network are not networks',
  ],
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
  'name:utility': [
    ['Wrapper', 'Identity', 'Permute', 'AnchorGenerator', 'RPNHead', 'GeneralizedRCNNTransform', 'SSDHead'],
    ['TransformerEncoder', 'Block'],
    'wrappers and helpers; Transformer is not Transform',
  ],
  fallback: [['BasicBlock', 'TransformerEncoder', 'Bottleneck'], [], 'every block gets a category'],
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
      for (const b of positives)
        expect(categorize(input(b)), JSON.stringify(b)).toEqual({ category: rule.category, rule: rule.id });
      if (rule.id !== 'fallback') expect(negatives.length, 'at least one negative case').toBeGreaterThan(0);
      for (const b of negatives)
        expect(rule.test(input(b)), `${rule.id} must not fire on ${JSON.stringify(b)}`).toBe(false);
    });
  }

  it('the first rule that fires wins', () => {
    // A loss named like an attention block is a loss (rule 1 before rule 4).
    expect(categorize(input('AttentionLoss')).rule).toBe('name:loss');
    // A block both named Norm and built of convolutions is normalization (name rules before layer rules).
    expect(categorize(input({ name: 'PreNormAct', layers: ['torch.nn.Conv2d'] })).rule).toBe('name:normalization');
  });
});
