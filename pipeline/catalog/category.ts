// Category assignment (multi-label): an ordered list of documented rules over a block's kind, the taxonomy methods it
// implements, its name, bases and composition. Every *strong* rule that fires adds its category; the *weak* ones
// (composition alone) only speak when no strong rule fired, so a squeeze-and-excitation block is attention, not
// "convolution" because it holds a Conv2d. Every rule that fired is recorded on the block (`categoryRules`), so every
// verdict can be reviewed. The table is in docs/catalog.md ("Categories"), checked against `categoryRulesMarkdown`.
import type { CategoryHit } from '../contract/block.ts';
import type { BlockKind, Category } from '../contract/vocabulary.ts';

export interface CategoryInput {
  name: string;
  /** Qualified base chain, nearest first (`torch.nn.modules.conv.Conv2d`, `torch.nn.Module`). */
  bases: string[];
  /** Layer types the block contains (`torch.nn.Conv2d`), from validation or static reading. */
  layers: string[];
  /** From kind.ts; absent means `block`. */
  kind?: BlockKind;
  /** Taxonomy methods the block implements, with their categories (taxonomy.ts). */
  methods?: { slug: string; categories: Category[] }[];
}

interface Rule {
  id: string;
  category: Category;
  description: string;
  /** Weak rules (composition) fire only when no strong rule did. */
  weak?: boolean;
  test: (b: CategoryInput) => boolean;
}

const name = (re: RegExp) => (b: CategoryInput) => re.test(b.name);
const base = (re: RegExp) => (b: CategoryInput) => b.bases.some((x) => re.test(x));
const layer = (re: RegExp) => (b: CategoryInput) => b.layers.some((x) => re.test(x));

export const CATEGORY_RULES: Rule[] = [
  {
    id: 'kind:transform',
    category: 'transform',
    description: 'the kind is `transform`',
    test: (b) => b.kind === 'transform',
  },
  { id: 'kind:loss', category: 'loss', description: 'the kind is `loss`', test: (b) => b.kind === 'loss' },
  {
    id: 'name:network',
    category: 'network',
    description: 'name is a whole network (Net, ResNet, VGG, ViT, Transformer, RCNN, FPN, UNet, Backbone, *Model...)',
    test: name(
      /(Net|VGG|ViT|VisionTransformer|Transformer|RCNN|R_CNN|FPN|Backbone|AlexNet|Inception\d+|Swin|ConvNeXt|RegNet|DenseNet|SqueezeNet|MNASNet|GoogLeNet|RetinaNet|SSD|SSDLite|FCOS|DETR|YOLO(v\d+|X)?|Raft|RAFT|MaxVit|MViT|S3D|Model)$/,
    ),
  },
  {
    id: 'name:stage',
    category: 'network',
    description: 'name is a stage of a network (`AnyStage`, `ResStage`)',
    test: name(/Stage$/),
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
    description: 'contains nn.MultiheadAttention (weak)',
    weak: true,
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
    description: 'contains convolutions (weak)',
    weak: true,
    test: layer(/Conv[123]d$/),
  },
  {
    id: 'layer:mlp',
    category: 'mlp',
    description: 'contains Linear layers and otherwise only activations, dropout or identity (weak)',
    weak: true,
    test: (b) =>
      b.layers.some((l) => /Linear$/.test(l)) &&
      b.layers.every((l) => /Linear$|Dropout$|ReLU$|GELU$|SiLU$|Identity$/.test(l)),
  },
  {
    id: 'name:residual',
    category: 'residual',
    description: 'name is a residual unit (Residual, Bottleneck, BasicBlock, ResBlock)',
    test: name(/Residual|Bottleneck|BasicBlock|ResBlock/),
  },
  {
    id: 'name:regularization',
    category: 'regularization',
    description: 'name is a regularizer (Dropout, DropPath, DropBlock, StochasticDepth)',
    test: name(/^\w*(Dropout|DropPath|DropBlock|StochasticDepth)\w*$/),
  },
  {
    id: 'name:reshape',
    category: 'reshape',
    description: 'name reshapes a tensor (Permute, SwapAxes, Reshape, Flatten, WindowPartition, PatchMerging)',
    test: name(/Permute|SwapAxes|Reshape|Flatten|Window(De)?[Pp]artition|PatchMerging|PixelShuffle/),
  },
  {
    id: 'name:detection',
    category: 'detection',
    description:
      'name is a detection or segmentation part (RoI, RPN, Anchor, BoxGenerator, Predictor, detection heads)',
    test: name(
      /RoI|ROI|RPN|RegionProposal|Anchor|Box(Coder|Generator)|Predictor|RCNNHeads?$|(Detection|Segmentation|Classification|Regression|Scoring)Head$|Matcher|Sampler/,
    ),
  },
  {
    id: 'name:utility',
    category: 'utility',
    description: 'name is a wrapper or helper (Wrapper, Identity, Sequential, Lambda, Frozen, *Getter, *Head...)',
    test: name(/Wrapper|Identity|Sequential|Lambda|Frozen|Transform(?!er)|Getter|Head$/),
  },
  { id: 'fallback', category: 'other', description: 'no rule above fired', test: () => true },
];

/** Where taxonomy methods enter the order: after the kind rules, before the name rules. */
const METHOD_AT = 2;

/**
 * Every category rule that fires, in order: kind rules, then `method:<slug>` (the categories the taxonomy gives a
 * method the block implements), then the name and base rules, then, only if none of those fired, the weak
 * composition rules, and `fallback` (other) when nothing did. Categories keep the order of their first rule.
 */
export function categorize(b: CategoryInput): { categories: Category[]; rules: CategoryHit[] } {
  const strong = CATEGORY_RULES.filter((r) => !r.weak && r.id !== 'fallback');
  const kindRule = strong.slice(0, METHOD_AT).find((r) => r.test(b));
  // A transform or a loss is that and nothing else: `Normalize` is not a normalization layer.
  if (kindRule) return { categories: [kindRule.category], rules: [{ category: kindRule.category, rule: kindRule.id }] };
  const hits: CategoryHit[] = [];
  for (const [i, r] of strong.entries()) {
    if (i === METHOD_AT)
      for (const m of b.methods ?? [])
        for (const c of m.categories) hits.push({ category: c, rule: `method:${m.slug}` });
    if (r.test(b)) hits.push({ category: r.category, rule: r.id });
  }
  if (hits.length === 0)
    for (const r of CATEGORY_RULES) if (r.weak && r.test(b)) hits.push({ category: r.category, rule: r.id });
  if (hits.length === 0) hits.push({ category: 'other', rule: 'fallback' });
  return { categories: [...new Set(hits.map((h) => h.category))], rules: hits };
}

/** The rule table for docs/catalog.md: order, id, category, condition. */
export function categoryRulesMarkdown(): string {
  const rows = CATEGORY_RULES.map((r, i) => `| ${i + 1} | \`${r.id}\` | ${r.category} | ${r.description} |`);
  rows.splice(
    METHOD_AT,
    0,
    "| – | `method:<slug>` | the method's categories | the block implements a taxonomy method ([taxonomy.md](taxonomy.md)) |",
  );
  return ['| # | rule | category | fires when |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
