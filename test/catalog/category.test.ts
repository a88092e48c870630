// Table tests for the category rules (multi-label): for every rule, blocks it fires on (and whose categories it
// adds) and near misses it must not fire on, each with the reason.
import { describe, expect, it } from 'vitest';
import { CATEGORY_RULES, categorize, type CategoryInput } from '../../pipeline/catalog/category.ts';
import { structureOf } from '../../pipeline/catalog/roles.ts';
import type { Feature } from '../../pipeline/catalog/structure/features.ts';
import { matchMethods, taxonomy } from '../../pipeline/catalog/taxonomy.ts';

type Structure = NonNullable<CategoryInput['structure']>;
type Block = string | (Partial<Omit<CategoryInput, 'structure'>> & { structure?: Partial<Structure> });

/** A block by name (bases: just nn.Module, no layers), or with bases, layers, parameters or structure given. */
function input(b: Block): CategoryInput {
  const o = typeof b === 'string' ? { name: b } : b;
  return {
    name: o.name ?? 'Block',
    bases: o.bases ?? ['torch.nn.Module'],
    layers: o.layers ?? [],
    kind: o.kind,
    ...(o.params ? { params: o.params } : {}),
    ...(o.structure ? { structure: { roles: [], features: [], methods: [], ...o.structure } } : {}),
  };
}
/** A neutrally named block with these child roles and forward features (structure/reader.ts). */
const shaped = (roles: Structure['roles'], features: Feature[] = [], extra: Partial<CategoryInput> = {}): Block => ({
  name: 'Unit',
  structure: { roles, features },
  ...extra,
});

const NORM = 'torch.nn.modules.batchnorm.BatchNorm2d';

/** rule id → [blocks it fires on, blocks it must not fire on, why]. */
const table: Record<string, [Block[], Block[], string]> = {
  'kind:transform': [[{ name: 'RandomCrop', kind: 'transform' }], [{ name: 'RandomCrop' }], 'the kind says so'],
  'kind:loss': [[{ name: 'Focal', kind: 'loss' }], [{ name: 'FocalLoss' }], 'the kind decides, not the name'],
  'name:network': [
    [
      'ResNet',
      'VisionTransformer',
      'MaskRCNN',
      'BackboneWithFPN',
      'SSD',
      'SSDLite',
      'YOLOv5',
      'Inception3',
      'MMDetDetector',
    ],
    ['SSDHead', 'SSDClassificationHead', 'YOLOHead', 'InceptionA', 'ResNetBlock'],
    'a whole network by its name ending; heads and blocks of a network are not networks',
  ],
  'name:stage': [['AnyStage', 'ResStage'], ['Stager', 'StageBlock'], 'a stage of a network'],
  'structure:network': [
    [
      shaped(['conv', 'stack', 'pool', 'linear'], [], { name: 'Beit', params: ['img_size', 'num_classes'] }),
      { name: 'ProposalNetwork', params: ['backbone', 'proposal_generator'] },
      { name: 'Sam', params: ['image_encoder', 'prompt_encoder', 'mask_decoder'] },
      { name: 'Cait', structure: { methods: ['forward_features', 'forward'] } },
      { name: 'SwAV', bases: ['mmpretrain.models.selfsup.base.BaseSelfSupervisor', 'torch.nn.Module'] },
      shaped(['embedding', 'stack', 'norm'], [], { name: 'ABIEncoder' }),
      // PyG: Deep Graph Infomax around an encoder; GPSE loads pretrained weights; MetaLayer is assembled from models.
      { name: 'DeepGraphInfomax', params: ['hidden_channels', 'encoder', 'summary', 'corruption'] },
      { name: 'GPSE', structure: { methods: ['forward', 'from_pretrained'] } },
      { name: 'MetaLayer', params: ['edge_model', 'node_model', 'global_model'] },
      // detectron2's TensorMask: `self.backbone = build_backbone(cfg)`, the config the only argument.
      {
        name: 'TensorMask',
        params: ['cfg'],
        structure: {
          children: [
            { name: 'backbone', type: 'build_backbone' },
            { name: 'head', type: 'TensorMaskHead' },
          ],
        },
      },
    ],
    [
      shaped(['linear', 'linear'], [], { name: 'RepVitClassifier', params: ['dim', 'num_classes'] }),
      shaped(['pool', 'linear', 'linear'], [], { name: 'ClsHead', params: ['num_classes'] }),
      { name: 'HybridEmbed', params: ['backbone', 'img_size'] },
      shaped(['linear'], [], { name: 'Tiny', params: ['num_classes'] }),
      { name: 'EncoderHead', params: ['encoder', 'num_classes'] },
      { name: 'Distiller', params: ['model', 'tau'] },
      { name: 'Neck', structure: { children: [{ name: 'body', type: 'ResNet' }] } },
      { name: 'FeatureHead', structure: { children: [{ name: 'backbone', type: 'build_backbone' }] } },
    ],
    'a whole model by what it takes, holds, defines or subclasses; a head or an embedding that takes num_classes or a backbone (or holds one) is not, nor one model part',
  ],
  'structure:stage': [
    [
      shaped(['stack', 'other'], [], { name: 'SwinBlockSequence' }),
      { name: 'ResLayer', bases: ['torch.nn.Sequential', 'torch.nn.Module'], params: ['block', 'num_blocks'] },
      shaped(['other', 'linear'], ['stack'], { name: 'GCN', params: ['in_channels', 'num_layers'] }),
    ],
    [
      shaped(['stack', 'conv'], [], { name: 'MobileVitBlock' }),
      shaped(['conv', 'stack'], [], { name: 'RetinaNetHead' }),
      { name: 'Seq', bases: ['torch.nn.Sequential', 'torch.nn.Module'], params: ['in_channels'] },
    ],
    'a stack of repeated blocks, or a Sequential made of num_blocks blocks; a block or head holding a stack is neither',
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
  'structure:transformer-block': [
    [
      shaped(['norm', 'attention', 'norm', 'mlp'], ['residual']),
      shaped(['attention', 'linear', 'linear'], ['residual']),
    ],
    [shaped(['norm', 'attention', 'norm', 'mlp']), shaped(['norm', 'mlp'], ['residual'])],
    'an attention and an MLP (or linear maps) among its submodules, and a residual add',
  ],
  'structure:attention': [
    [shaped(['linear', 'linear'], ['attention-core']), shaped(['conv', 'activation'], ['channel-gate'])],
    [
      shaped(['linear'], ['residual']),
      shaped(['stack', 'linear'], ['attention-core'], { name: 'BlipRetrieval', params: ['backbone', 'num_classes'] }),
    ],
    'attention computed in its own forward, or a gate; a whole model with a retrieval softmax is not an attention',
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
  'structure:affine': [
    [shaped([], ['param-affine'])],
    [shaped([], ['param-affine', 'param-scale']), shaped(['norm'], [])],
    'the raw input times a learned per-channel parameter; a LayerScale (constant init) is not',
  ],
  'name:pooling': [
    ['RoIPool', 'GemPool', 'MeanAggregation', 'LastAggregator'],
    ['Spool', 'Aggregate'],
    'Pool, capitalized, or an aggregation over a set',
  ],
  'base:pooling': [
    [
      { name: 'Gem', bases: ['torch.nn.AdaptiveAvgPool2d', 'torch.nn.Module'] },
      { name: 'Set2Set', bases: ['torch_geometric.nn.aggr.base.Aggregation', 'torch.nn.Module'] },
      { name: 'FilterEdges', bases: ['torch_geometric.nn.pool.connect.base.Connect', 'torch.nn.Module'] },
    ],
    [
      { name: 'Gem', bases: ['pkg.m.Base', 'torch.nn.Module'] },
      { name: 'Gem', bases: ['pkg.spool.Base', 'torch.nn.Module'] },
      { name: 'Gem', bases: ['pkg.m.Aggregations', 'torch.nn.Module'] },
    ],
    "a pooling layer among the bases, PyG's Aggregation (Set2Set), a class of a `pool` package",
  ],
  'name:activation': [
    ['ReLU6', 'HSwish', 'Hardsigmoid', 'GELUTanh', 'SiLU', 'Mish', 'QuickGELU', 'StarReLU', 'HSigmoid', 'HardMishMe'],
    ['SqueezeExcitation', 'ReactBlock', 'ConvNormAct'],
    'the name starts or ends with an activation',
  ],
  'base:activation': [
    [{ name: 'PReLU', bases: ['torch.nn.PReLU', 'torch.nn.Module'] }],
    [{ name: 'Lin', bases: ['torch.nn.Linear', 'torch.nn.Module'] }],
    'a torch activation among the bases',
  ],
  'structure:activation': [
    [shaped([], ['elementwise'])],
    [shaped([], ['rearrange']), shaped(['linear'])],
    'an activation function of the input, nothing learned per channel',
  ],
  'name:embedding': [
    [
      'PatchEmbed',
      'PositionalEncoding',
      'RelPosEnc',
      'RelPosBias',
      'RelativePositionBias',
      'RopePosEmbed',
      'TemporalEncoding',
    ],
    ['Embargo', 'Biased'],
    'Embed, PosEnc, a relative position bias',
  ],
  'name:recurrent': [['ConvGRU', 'LSTMCell', 'BiRNN'], ['FasterRCNN'], 'LSTM, GRU, RNN; RCNN is not RNN'],
  'name:mlp': [['Mlp', 'MLPBlock', 'PositionwiseFeedForward', 'FFN'], ['Ffn', 'Perceptron'], 'MLP, FeedForward, FFN'],
  'name:convolution': [
    ['BasicConv2d', 'MBConv', 'DeformConv2d', 'ConvBlock', 'DepthwiseConvolution', 'DeconvModule'],
    ['ConvertImageDtype', 'Convex'],
    'Conv as a word: Convert and Convex are not convolutions',
  ],
  'base:convolution': [
    [
      { name: 'Std', bases: ['torch.nn.Conv2d', 'torch.nn.Module'] },
      { bases: ['torch.nn.modules.conv._ConvNd'] },
      { name: 'Sparse', bases: ['torch_geometric.nn.conv.message_passing.MessagePassing', 'torch.nn.Module'] },
      { name: 'MessagePassing', structure: { methods: ['aggregate', 'message', 'propagate', 'update'] } },
    ],
    [
      { name: 'Std', bases: ['torch.nn.Linear', 'torch.nn.Module'] },
      { name: 'Router', structure: { methods: ['forward', 'message'] } },
    ],
    "a torch convolution among the bases, or PyG's MessagePassing (or a class that, like it, propagates messages)",
  ],
  'layer:convolution': [
    [{ layers: ['torch.nn.Conv2d', 'torch.nn.BatchNorm2d', 'torch.nn.ReLU'] }],
    [{ layers: ['torch.nn.Linear', 'torch.nn.ReLU'] }],
    'contains a convolution',
  ],
  'layer:transformer-block': [
    [
      {
        name: 'QFormer',
        layers: [
          'torch.nn.LayerNorm',
          'torch.nn.Linear',
          'torch.nn.TransformerEncoder',
          'torch.nn.TransformerEncoderLayer',
        ],
      },
    ],
    [{ layers: ['torch.nn.Linear', 'torch.nn.LayerNorm'] }, { layers: ['pkg.m.TransformerEncoderStack'] }],
    "holds torch's transformer layers (PyG's QFormer)",
  ],
  'children:recurrent': [
    [
      // PyG's TGNMemory: `self.gru = GRUCell(...)`, imported from torch.nn (no `nn.` prefix for the layer reading).
      { name: 'TGNMemory', structure: { roles: ['other', 'other'], children: [{ name: 'gru', type: 'GRUCell' }] } },
      { name: 'Reader', layers: ['torch.nn.LSTM', 'torch.nn.Linear'] },
    ],
    [
      { name: 'Reader', structure: { children: [{ name: 'proj', type: 'nn.Linear' }] } },
      { name: 'Reader', layers: ['torch.nn.Linear'] },
    ],
    'a recurrent layer or cell among its submodules',
  ],
  'layer:mlp': [
    [{ layers: ['torch.nn.Linear', 'torch.nn.GELU', 'torch.nn.Dropout', 'torch.nn.Linear'] }],
    [{ layers: ['torch.nn.Dropout', 'torch.nn.ReLU'] }, { layers: ['torch.nn.Linear', 'torch.nn.LayerNorm'] }, {}],
    'Linear layers and only activations or dropout besides; no Linear at all is not an MLP',
  ],
  'name:linear': [
    ['Linear', 'HeteroLinear', { name: 'Dense', bases: ['torch.nn.Linear', 'torch.nn.Module'] }],
    ['LinearAttention', 'Linearize'],
    'a fully connected layer, filed with MLPs',
  ],
  'name:residual': [
    ['BasicBlock', 'Bottleneck', 'InvertedResidual', 'ResBlock', 'Shortcut'],
    ['Block', 'Resize', 'ShortcutConv'],
    'residual units; YOLO names its add of two maps Shortcut',
  ],
  'structure:residual': [[shaped(['conv', 'conv'], ['residual'])], [shaped(['conv', 'conv'])], 'a residual add'],
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
  'structure:reshape': [
    [shaped([], ['rearrange'])],
    [shaped([], ['elementwise'])],
    'only views, permutes and concatenations',
  ],
  'name:detection': [
    [
      'RoIAlign',
      'RegionProposalNetwork',
      'AnchorGenerator',
      'DefaultBoxGenerator',
      'KeypointRCNNPredictor',
      'SSDScoringHead',
      'DualDDetect',
      'Segment',
    ],
    ['Roi', 'Predict', 'Head', 'Detector'],
    'parts of detectors and segmenters',
  ],
  'name:utility': [
    [
      'Wrapper',
      'Identity',
      'GeneralizedRCNNTransform',
      'IntermediateLayerGetter',
      'FrozenThing',
      'SSDHead',
      'ImgDataPreprocessor',
      'MMDistributedDataParallel',
      'ExponentialMovingAverage',
      'CosineEMA',
      'PostProcess',
      'AutoShape',
    ],
    ['TransformerEncoder', 'Block', 'Header', 'Schema'],
    'wrappers and helpers (preprocessors, EMA, DDP, post-processing); Transformer is not Transform',
  ],
  'roles:convolution': [[shaped(['conv', 'other'])], [shaped(['linear', 'other'])], 'holds a convolution'],
  'roles:mlp': [
    // PyG's (PaiNN) GatedEquivariantBlock: two vector projections, an update MLP, an activation.
    [shaped(['linear', 'activation', 'linear']), shaped(['linear', 'linear', 'mlp', 'activation'])],
    [shaped(['linear', 'conv']), shaped(['activation']), shaped(['mlp', 'activation'])],
    'linear maps, MLPs, activations and norms only, a linear map at least',
  ],
  'roles:embedding': [
    [shaped(['embedding', 'embedding'])],
    [shaped(['embedding', 'linear']), shaped([])],
    'embedding tables only (a knowledge-graph model)',
  ],
  'roles:pooling': [[shaped(['pool', 'pool'])], [shaped(['pool', 'conv']), shaped([])], 'poolings only'],
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

  it('a block named neutrally (`Block`) that is a pre-norm attention + MLP residual block is a transformer block', () => {
    const t = 'torch.nn.modules';
    const lin = (name: string) => ({ name, type: `${t}.linear.Linear` });
    const children = [
      { name: 'norm1', type: `${t}.normalization.LayerNorm` },
      { name: 'attn', type: 'vision_transformer.Attention', children: [lin('qkv'), lin('proj')] },
      { name: 'norm2', type: `${t}.normalization.LayerNorm` },
      { name: 'mlp', type: 'vision_transformer.Mlp', children: [lin('fc1'), lin('fc2')] },
    ];
    const layers = children.map((c) => c.type);
    // The built module's children give the roles; the forward (`x = x + self.attn(self.norm1(x))`) the residual.
    const of = (kids: typeof children, features: Feature[]) => {
      const structure = { roles: structureOf(kids), features, childFeatures: [], methods: [] };
      return categorize({
        ...input({ name: 'Block', layers }),
        structure,
        methods: matchMethods({ name: 'Block', module: 'vision_transformer', bases: [], layers, structure }).map(
          (m) => ({ slug: m.slug, categories: taxonomy().methods.find((x) => x.slug === m.slug)!.categories }),
        ),
      });
    };
    expect(of(children, ['residual']).categories).toEqual(['transformer-block', 'attention', 'residual']);
    expect(of(children, ['residual']).rules.slice(0, 2)).toEqual([
      { category: 'transformer-block', rule: 'method:transformer-encoder-block' },
      { category: 'attention', rule: 'method:transformer-encoder-block' },
    ]);
    // Without its MLP it is no encoder block, and its name says nothing: just a residual unit.
    expect(of(children.slice(0, 3), ['residual']).categories).toEqual(['residual']);
    // Without the residual add (and no name, no MLP), other.
    expect(of(children.slice(0, 3), []).categories).toEqual(['other']);
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
