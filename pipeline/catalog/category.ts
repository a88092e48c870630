// Category assignment: an ordered list of documented rules over a block's name, bases and composition. The first
// rule that fires wins and its id is recorded on the block (`categoryRule`), so every verdict can be reviewed.
// The same table is in docs/catalog.md ("Categories"), checked against `categoryRulesMarkdown` by a test.
import type { Category } from './contract.ts';

export interface CategoryInput {
  name: string;
  /** Qualified base chain, nearest first (`torch.nn.modules.conv.Conv2d`, `torch.nn.Module`). */
  bases: string[];
  /** Layer types the block contains (`torch.nn.Conv2d`), from validation or static reading. */
  layers: string[];
}

interface Rule {
  id: string;
  category: Category;
  description: string;
  test: (b: CategoryInput) => boolean;
}

const name = (re: RegExp) => (b: CategoryInput) => re.test(b.name);
const base = (re: RegExp) => (b: CategoryInput) => b.bases.some((x) => re.test(x));
const layer = (re: RegExp) => (b: CategoryInput) => b.layers.some((x) => re.test(x));

export const CATEGORY_RULES: Rule[] = [
  { id: 'name:loss', category: 'loss', description: 'name contains Loss or Criterion', test: name(/Loss|Criterion/) },
  {
    id: 'base:loss',
    category: 'loss',
    description: 'a base is a torch loss (`_Loss`, `*Loss`)',
    test: base(/\._?Loss$|Loss$/),
  },
  {
    id: 'name:transformer-block',
    category: 'transformer-block',
    description: 'name contains Transformer/Encoder/Decoder + Layer or Block',
    test: name(/(Transformer|Encoder|Decoder)(Layer|Block)|TransformerBlock|SwinTransformerBlock/),
  },
  {
    id: 'name:attention',
    category: 'attention',
    description: 'name contains Attention, Attn or MultiHead',
    test: name(/Attention|Attn|MultiHead|SelfAttn/i),
  },
  {
    id: 'layer:attention',
    category: 'attention',
    description: 'contains nn.MultiheadAttention',
    test: layer(/MultiheadAttention$/),
  },
  { id: 'name:normalization', category: 'normalization', description: 'name contains Norm', test: name(/Norm/) },
  {
    id: 'base:normalization',
    category: 'normalization',
    description: 'a base is a torch normalization layer',
    test: base(/(BatchNorm|LayerNorm|GroupNorm|InstanceNorm|_NormBase)/),
  },
  { id: 'name:pooling', category: 'pooling', description: 'name contains Pool', test: name(/Pool/) },
  { id: 'base:pooling', category: 'pooling', description: 'a base is a torch pooling layer', test: base(/Pool/) },
  {
    id: 'name:activation',
    category: 'activation',
    description: 'name is an activation (ReLU, GELU, SiLU, Swish, Sigmoid, Softmax, Mish, Hardswish...)',
    test: name(
      /^(h?Swish|Hardswish|Hardsigmoid|Mish|GELU|SiLU|ReLU\d*|Sigmoid|Softmax|Tanh|LeakyReLU|Activation)\w*$/i,
    ),
  },
  {
    id: 'name:embedding',
    category: 'embedding',
    description: 'name contains Embed or PositionalEncoding',
    test: name(/Embed|PositionalEncoding|PosEnc/),
  },
  {
    id: 'name:recurrent',
    category: 'recurrent',
    description: 'name contains LSTM, GRU or RNN',
    test: name(/LSTM|GRU|RNN/),
  },
  {
    id: 'name:mlp',
    category: 'mlp',
    description: 'name contains MLP, FeedForward or FFN',
    test: name(/MLP|Mlp|FeedForward|FFN/),
  },
  {
    id: 'name:network',
    category: 'network',
    description: 'name is a whole network (Net, ResNet, VGG, ViT, Transformer, RCNN, FPN, UNet, Backbone...)',
    test: name(
      /(Net|VGG|ViT|VisionTransformer|Transformer|RCNN|R_CNN|FPN|Backbone|AlexNet|Inception\d*|Swin|ConvNeXt|RegNet|DenseNet|SqueezeNet|MNASNet|GoogLeNet|RetinaNet|SSD|SSDLite|FCOS|DETR|YOLO(v\d+|X)?|Raft|RAFT)$/,
    ),
  },
  {
    id: 'name:convolution',
    category: 'convolution',
    description: 'name contains Conv as a word or Convolution (not Convert, Convex)',
    test: name(/Conv(?![a-z])|Convolution/),
  },
  {
    id: 'base:convolution',
    category: 'convolution',
    description: 'a base is a torch convolution',
    test: base(/Conv[123]d|_ConvNd/),
  },
  {
    id: 'layer:convolution',
    category: 'convolution',
    description: 'contains convolutions and no attention',
    test: layer(/Conv[123]d$/),
  },
  {
    id: 'layer:mlp',
    category: 'mlp',
    description: 'contains Linear layers and otherwise only activations, dropout or identity',
    test: (b) =>
      b.layers.some((l) => /Linear$/.test(l)) &&
      b.layers.every((l) => /Linear$|Dropout$|ReLU$|GELU$|SiLU$|Identity$/.test(l)),
  },
  {
    id: 'name:utility',
    category: 'utility',
    description: 'name is a wrapper or helper (Wrapper, Identity, Permute, Reshape, Flatten, Sequential, Lambda...)',
    test: name(
      /Wrapper|Identity|Permute|Reshape|Flatten|Sequential|Lambda|Frozen|Transform(?!er)|Matcher|Sampler|Anchor|Head/,
    ),
  },
  { id: 'fallback', category: 'other', description: 'no rule above fired', test: () => true },
];

export function categorize(b: CategoryInput): { category: Category; rule: string } {
  const rule = CATEGORY_RULES.find((r) => r.test(b))!;
  return { category: rule.category, rule: rule.id };
}

/** The rule table for docs/catalog.md: order, id, category, condition. */
export function categoryRulesMarkdown(): string {
  const rows = CATEGORY_RULES.map((r, i) => `| ${i + 1} | \`${r.id}\` | ${r.category} | ${r.description} |`);
  return ['| # | rule | category | fires when |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
