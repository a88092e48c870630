// Category assignment (multi-label): an ordered list of documented rules over a block's kind, the taxonomy methods it
// implements, its name, bases and composition. Every *strong* rule that fires adds its category; the *weak* ones
// (composition alone) only speak when no strong rule fired, so a squeeze-and-excitation block is attention, not
// "convolution" because it holds a Conv2d. Every rule that fired is recorded on the block (`categoryRules`), so every
// verdict can be reviewed. The table is in docs/catalog.md ("Categories"), checked against `categoryRulesMarkdown`.
import type { CategoryHit } from '../contract/block.ts';
import type { BlockKind, Category } from '../contract/vocabulary.ts';
import type { ChildRole } from './roles.ts';
import type { Feature } from './structure/features.ts';
import type { StructureFacts } from './structure/reader.ts';

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
  /** The static structure (structure/reader.ts): roles of the children, forward features, method names. */
  structure?: Pick<StructureFacts, 'roles' | 'features' | 'methods'> & Partial<Pick<StructureFacts, 'children'>>;
  /** Constructor parameter names. */
  params?: string[];
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
const feature =
  (...fs: Feature[]) =>
  (b: CategoryInput) =>
    fs.some((f) => b.structure?.features.includes(f) ?? false);
const role = (r: ChildRole) => (b: CategoryInput) => b.structure?.roles.includes(r) ?? false;
/** Parts of a model that take `num_classes` or a `backbone` without being one. */
const PART_OF_MODEL =
  /Head$|Classifier$|Predictor$|Decoder$|Output(Layers?)?$|Neck$|Aux$|Preprocessor$|Embed\w*$|Module$/i;

/**
 * A whole model, by what it is built from and for: a `num_classes` argument with a stack of blocks or three
 * submodules at least (not a head's), a `backbone` or `encoder` argument or a `backbone` submodule (a detector,
 * classifier or self-supervised model around one), `forward_features` (timm's networks) or `from_pretrained`, or a
 * base that is a model's.
 */
function wholeNetwork(b: CategoryInput): boolean {
  const params = new Set(b.params ?? []);
  const roles = b.structure?.roles ?? [];
  const part = PART_OF_MODEL.test(b.name);
  if (!part && params.has('num_classes') && (roles.includes('stack') || roles.length >= 3)) return true;
  if (!part && (params.has('backbone') || params.has('encoder'))) return true;
  // detectron2's meta-architectures build their backbone from the config: `self.backbone = build_backbone(cfg)`.
  if (!part && (b.structure?.children ?? []).some((c) => c.name === 'backbone')) return true;
  // Assembled from parts it is given: `Sam(image_encoder, prompt_encoder, mask_decoder)`.
  if ([...params].filter((p) => MODEL_PART_PARAM.test(p)).length >= 2) return true;
  // An encoder or decoder made of a stack of layers (mmocr's decoders, DETR's TransformerEncoder).
  if (/(Encoder|Decoder)$/.test(b.name) && (roles.includes('stack') || roles.length >= 3)) return true;
  if (b.structure?.methods.some((m) => m === 'forward_features' || m === 'from_pretrained')) return true;
  return b.bases.some((x) => NETWORK_BASE.test(x));
}
/**
 * `image_encoder`, `mask_decoder`; PyG's `MetaLayer(edge_model, node_model, global_model)`, a word before `_model`
 * (a transformer's `d_model` is a width).
 */
const MODEL_PART_PARAM = /(^|_)(backbone|encoder|decoder|neck|head|detector)$|^[a-z]{3,}_model$/;
const NETWORK_BASE =
  /\.(Base)?(Backbone|Classifier|Detector|SelfSupervisor|Segmentor|Retriever|Recognizer|TextRecognizer|TextDetector|Pose(Estimator|Detector))$|\.BaseModel$|\.(ImageClassifier|VisionTransformer|ResNet|BaseBackbone)$/;

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
    description:
      'name is a whole network (Net, ResNet, VGG, ViT, Transformer, RCNN, FPN, UNet, Backbone, *Model, *Detector...)',
    test: name(
      /(Net|VGG|ViT|VisionTransformer|Transformer|RCNN|R_CNN|FPN|Backbone|AlexNet|Inception\d+|Swin|ConvNeXt|RegNet|DenseNet|SqueezeNet|MNASNet|GoogLeNet|RetinaNet|SSD|SSDLite|FCOS|DETR|YOLO(v\d+|X)?|Raft|RAFT|MaxVit|MViT|S3D|Model|Detector|Segmentor|Recognizer)$/,
    ),
  },
  {
    id: 'name:stage',
    category: 'network',
    description: 'name is a stage of a network (`AnyStage`, `ResStage`)',
    test: name(/Stage$/),
  },
  {
    id: 'structure:network',
    category: 'network',
    description:
      'a whole model: takes `num_classes` (not a head) or a `backbone`, or two parts (encoder, decoder, head...); an Encoder/Decoder with a stack of layers; defines `forward_features`; or subclasses a model base (`BaseBackbone`, `BaseClassifier`, `BaseModel`...)',
    test: wholeNetwork,
  },
  {
    id: 'structure:stage',
    category: 'network',
    description:
      'holds a stack of repeated blocks (a comprehension or loop of one block class; a list filled in a loop over `num_layers`), or is a Sequential that builds `num_blocks` of a `block`: a stage or a network (not a head, nor a block or layer holding one)',
    test: (b) =>
      // PyG's BasicGNN: `self.convs.append(self.init_conv(...))` for each of `num_layers`.
      (feature('stack')(b) && (b.params ?? []).some((p) => /^(num_layers|num_blocks|depth)$/.test(p))) ||
      (role('stack')(b) && !/Head$|Block\d*$|(Transformer|Encoder|Decoder)Layer$|Neck$/i.test(b.name)) ||
      // mmpretrain's `ResLayer(nn.Sequential)`: a Sequential subclass that builds `num_blocks` of `block`.
      (b.bases.some((x) => /\.(Sequential|ModuleList)$/.test(x)) &&
        (b.params ?? []).some((p) => /^(block|num_blocks|depth|num_layers|blocks)$/.test(p))),
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
    id: 'structure:transformer-block',
    category: 'transformer-block',
    description: 'an attention and an MLP among its submodules, with a residual add in its forward',
    test: (b) => role('attention')(b) && (role('mlp')(b) || role('linear')(b)) && feature('residual')(b),
  },
  {
    id: 'structure:attention',
    category: 'attention',
    description:
      'its forward computes attention (softmax of a product, scaled_dot_product_attention) or gates the input (SE, ECA, CBAM); not a whole model (a retrieval softmax)',
    test: (b) => feature('attention-core', 'channel-gate', 'channel-gate-1d', 'spatial-gate')(b) && !wholeNetwork(b),
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
    id: 'structure:affine',
    category: 'normalization',
    description:
      "its forward scales or shifts the raw input by learned per-channel parameters and nothing else (ResMLP's Affine, YOLOR's implicit knowledge); not LayerScale",
    test: (b) => feature('param-affine')(b) && !feature('param-scale')(b),
  },
  {
    id: 'base:normalization',
    category: 'normalization',
    description: 'a base is a torch normalization layer',
    test: base(/(BatchNorm|LayerNorm|GroupNorm|InstanceNorm|_NormBase)/),
  },
  {
    id: 'name:pooling',
    category: 'pooling',
    description: 'name contains Pool, or is an aggregation over a set (PyG `MeanAggregation`, `LastAggregator`)',
    test: name(/Pool|Aggregat(ion|or)$/),
  },
  {
    id: 'base:pooling',
    category: 'pooling',
    description:
      "a base is a torch pooling layer, PyG's `Aggregation` (`Set2Set`), or a class of a `pool` package (PyG's `Connect`)",
    test: base(/Pool|\.Aggregation$|(^|\.)pool\./),
  },
  {
    id: 'name:activation',
    category: 'activation',
    description:
      'name is an activation (ReLU, GELU, SiLU, Swish, Sigmoid, Softmax, Mish, Hardswish...), or ends with one (QuickGELU, StarReLU, HSigmoid)',
    test: name(
      /^(h?Swish|Hardswish|Hardsigmoid|Mish|GELU|SiLU|ReLU\d*|Sigmoid|Softmax|Tanh|LeakyReLU|Activation)\w*$|(ReLU\d*|GELU|SiLU|Swish|Mish|Sigmoid|Tanh|Softplus)(Me|V\d)?$/i,
    ),
  },
  {
    id: 'base:activation',
    category: 'activation',
    description: 'a base is a torch activation (`torch.nn.PReLU`, `torch.nn.GELU`)',
    test: base(
      /^torch\.nn\.(modules\.activation\.)?(\w*ReLU\d?|GELU|SiLU|Sigmoid|Tanh|Softmax|Mish|Hardswish|Hardsigmoid|ELU|Softplus|GLU)$/,
    ),
  },
  {
    id: 'structure:activation',
    category: 'activation',
    description:
      'learns nothing per channel and its forward applies activation functions to the input (QuickGELU, HardMish)',
    test: feature('elementwise'),
  },
  {
    id: 'name:embedding',
    category: 'embedding',
    description:
      'name contains Embed or PositionalEncoding, ends with Encoding, or is a position bias or rotary encoding (RelPosBias, RoPE)',
    test: name(
      /Embed|PositionalEncoding|PosEnc|Pos(ition)?(al)?Bias|RelPos|RelativePosition|RoPE|Rope[A-Z\d]|^Rope$|Rotary|Encoding$/,
    ),
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
    description: 'name contains Conv as a word, Convolution or Deconv (not Convert, Convex)',
    test: name(/Conv(?![a-z])|Convolution|Deconv/),
  },
  {
    id: 'base:convolution',
    category: 'convolution',
    description:
      "a base is a torch convolution, or PyG's `MessagePassing` (a graph convolution); or the class defines `propagate` and `message` (`MessagePassing` itself)",
    test: (b) =>
      base(/Conv[123]d|_ConvNd|\.MessagePassing$/)(b) ||
      ((b.structure?.methods.includes('propagate') && b.structure.methods.includes('message')) ?? false),
  },
  {
    id: 'layer:convolution',
    category: 'convolution',
    description: 'contains convolutions (weak)',
    weak: true,
    test: layer(/Conv[123]d$/),
  },
  {
    id: 'layer:transformer-block',
    category: 'transformer-block',
    description: 'contains torch transformer layers (`nn.TransformerEncoderLayer`, `nn.TransformerDecoder`) (weak)',
    weak: true,
    test: layer(/\.Transformer(Encoder|Decoder)(Layer)?$/),
  },
  {
    id: 'children:recurrent',
    category: 'recurrent',
    description: 'a direct submodule is a recurrent layer or cell (`LSTM`, `GRUCell`, `RNN`) (weak)',
    weak: true,
    test: (b) =>
      layer(/\.(LSTM|GRU|RNN)(Cell)?$/)(b) ||
      (b.structure?.children ?? []).some((c) => /(^|\.)(LSTM|GRU|RNN)(Cell)?$/.test(c.type)),
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
    id: 'name:linear',
    category: 'mlp',
    description:
      'a fully connected layer: named `Linear` (`HeteroLinear`, not `LinearAttention`) or a `torch.nn.Linear` subclass',
    test: (b) => /Linear$/.test(b.name) || base(/^torch\.nn\.(modules\.linear\.)?Linear$/)(b),
  },
  {
    id: 'name:residual',
    category: 'residual',
    description: 'name is a residual unit (Residual, Bottleneck, BasicBlock, ResBlock, YOLO `Shortcut`)',
    test: name(/Residual|Bottleneck|BasicBlock|ResBlock|^Shortcut$/),
  },
  {
    id: 'structure:residual',
    category: 'residual',
    description: 'its forward adds the input (or its shortcut) to what its submodules made of it',
    test: feature('residual'),
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
    id: 'structure:reshape',
    category: 'reshape',
    description:
      'holds and learns nothing; its forward only views, permutes, concatenates or slices (Concat, SpaceToDepth)',
    test: feature('rearrange'),
  },
  {
    id: 'name:detection',
    category: 'detection',
    description:
      'name is a detection or segmentation part (RoI, RPN, Anchor, BoxGenerator, Predictor, detection heads, YOLO `Detect`/`Segment`)',
    test: name(
      /RoI|ROI|RPN|RegionProposal|Anchor|Box(Coder|Generator)|Predictor|RCNNHeads?$|(Detection|Segmentation|Classification|Regression|Scoring)Head$|Matcher|Sampler|^(Dual|Triple)?D?(Detect|Segment)$|^Panoptic$/,
    ),
  },
  {
    id: 'name:utility',
    category: 'utility',
    description:
      'name is a wrapper or helper (Wrapper, Identity, Sequential, Lambda, Frozen, *Getter, *Head, *DataPreprocessor, DataParallel, EMA, Ensemble...)',
    test: name(
      /Wrapper|Identity|Sequential|Lambda|Frozen|Transform(?!er)|Getter|Head$|Preprocessor|Processor$|PostProcess|DataParallel|Distributed|MovingAverage|WeightAverage|EMA$|Ensemble|[Aa]utoShape|MultiBackend|End2End|ONNX|Silence|^NMS$/,
    ),
  },
  {
    id: 'roles:convolution',
    category: 'convolution',
    description: 'a direct submodule is a convolution, read from its constructor or the built module (weak)',
    weak: true,
    test: role('conv'),
  },
  {
    id: 'roles:mlp',
    category: 'mlp',
    description: 'its direct submodules are linear maps, MLPs, activations and norms, a linear map at least (weak)',
    weak: true,
    test: (b) =>
      role('linear')(b) &&
      (b.structure?.roles.every((r) => ['linear', 'mlp', 'activation', 'norm'].includes(r)) ?? false),
  },
  {
    id: 'roles:embedding',
    category: 'embedding',
    description: 'its direct submodules are embeddings (a knowledge-graph model of entity and relation tables) (weak)',
    weak: true,
    test: (b) => (b.structure?.roles.length ?? 0) > 0 && (b.structure?.roles.every((r) => r === 'embedding') ?? false),
  },
  {
    id: 'roles:pooling',
    category: 'pooling',
    description: 'its direct submodules are poolings (weak)',
    weak: true,
    test: (b) => (b.structure?.roles.length ?? 0) > 0 && (b.structure?.roles.every((r) => r === 'pool') ?? false),
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
