// Table tests for the taxonomy (pipeline/catalog/data/taxonomy.json): a row per method with the real torchvision
// classes (name and module as torchvision 0.14 defines them) that must land there and near misses that must not,
// each with the reason; then the file's own checks, the synonyms search reads, and the derived BibTeX.
import { describe, expect, it } from 'vitest';
import {
  bibtexOf,
  checkTaxonomy,
  matchMethods,
  taxonomy,
  taxonomySynonyms,
  type MethodInput,
  type Taxonomy,
} from '../../pipeline/catalog/taxonomy.ts';
import { structureOf } from '../../pipeline/catalog/roles.ts';
import type { Feature } from '../../pipeline/catalog/structure/features.ts';

type Cls = string | (Partial<MethodInput> & { features?: Feature[]; childFeatures?: Feature[]; defines?: string[] });

/**
 * `Name@module.tail` → a class of `torchvision.<module.tail>`; an object gives bases, layers or children too, and the
 * forward's `features` (structure/features.ts): the roles of its children are read from them as the build does.
 */
function cls(c: Cls): MethodInput {
  if (typeof c !== 'string') {
    const { features, childFeatures, defines, ...rest } = c;
    const structured = features || childFeatures || defines || c.children;
    return {
      name: 'Block',
      module: 'pkg.m',
      bases: [],
      layers: [],
      ...rest,
      ...(structured
        ? {
            structure: {
              roles: structureOf(c.children ?? []),
              features: features ?? [],
              childFeatures: childFeatures ?? [],
              methods: defines ?? [],
            },
          }
        : {}),
    };
  }
  const [name, mod] = c.split('@');
  return { name, module: mod ? `torchvision.${mod}` : 'torchvision.ops.misc', bases: ['torch.nn.Module'], layers: [] };
}

const CBR = ['torch.nn.Conv2d', 'torch.nn.BatchNorm2d', 'torch.nn.ReLU'];

// Module trees as validation records them (direct children in registration order), for structural rules.
const T = 'torch.nn.modules';
const leaf = (name: string, type: string) => ({ name, type });
const LN = (name: string) => leaf(name, `${T}.normalization.LayerNorm`);
const LINEAR = (name: string) => leaf(name, `${T}.linear.Linear`);
const attention = (type: string) => ({
  name: 'attn',
  type,
  children: [LINEAR('qkv'), leaf('attn_drop', `${T}.dropout.Dropout`), LINEAR('proj')],
});
const mlp = (type: string) => ({
  name: 'mlp',
  type,
  children: [LINEAR('fc1'), leaf('act', `${T}.activation.GELU`), LINEAR('fc2')],
});
/** DINO's ViT `Block`: norm1, attn, drop_path, norm2, mlp (its own Attention and Mlp classes). */
const VIT_BLOCK: Cls = {
  name: 'Block',
  module: 'vision_transformer',
  features: ['residual'],
  children: [
    LN('norm1'),
    attention('vision_transformer.Attention'),
    leaf('drop_path', 'vision_transformer.DropPath'),
    LN('norm2'),
    mlp('vision_transformer.Mlp'),
  ],
};
/** Segment Anything's image-encoder `Block`: the attention and MLP classes named otherwise (`MLPBlock`). */
const SAM_BLOCK: Partial<MethodInput> & { features: Feature[] } = {
  name: 'Block',
  module: 'segment_anything.modeling.image_encoder',
  features: ['residual'],
  children: [
    LN('norm1'),
    attention('segment_anything.modeling.image_encoder.Attention'),
    LN('norm2'),
    mlp('segment_anything.modeling.common.MLPBlock'),
  ],
};
/** Known by what its parts hold, not their names: an attention with q, k, v projections, an nn.Sequential MLP. */
const SEQUENTIAL_MLP_BLOCK: Cls = {
  name: 'Layer',
  features: ['residual'],
  children: [
    LN('ln_1'),
    { name: 'mix', type: 'pkg.m.Mixer', children: [LINEAR('q'), LINEAR('k'), LINEAR('v'), LINEAR('o')] },
    leaf('ls1', 'pkg.m.LayerScale'),
    LN('ln_2'),
    { ...mlp(`${T}.container.Sequential`), name: 'ff' },
  ],
};
/** Norms and linear maps but no attention (a gated MLP block). */
const NO_ATTENTION: Cls = {
  name: 'Block',
  features: ['residual'],
  children: [LN('norm1'), LINEAR('proj'), LN('norm2'), mlp('pkg.m.Mlp')],
};
/** Attention without an MLP after it. */
const NO_MLP: Cls = {
  name: 'Block',
  features: ['residual'],
  children: [LN('norm1'), attention('pkg.m.Attention'), LN('norm2')],
};
/** The right children, but no residual add in its forward. */
const NO_RESIDUAL: Cls = { ...(VIT_BLOCK as object), features: [] };
/** A decoder-style block: self-attention, then cross-attention, then the MLP. */
const CROSS_ATTENTION: Cls = {
  name: 'Block',
  features: ['residual'],
  children: [
    LN('norm1'),
    attention('pkg.m.Attention'),
    LN('norm2'),
    { ...attention('pkg.m.CrossAttention'), name: 'cross' },
    LN('norm3'),
    mlp('pkg.m.Mlp'),
  ],
};
/** A whole ViT holds such blocks, but its own children are an embedding, a list of blocks and a norm. */
const VIT_STACK: Cls = {
  name: 'VisionTransformer',
  features: ['stack'],
  children: [
    leaf('patch_embed', 'pkg.m.PatchEmbed'),
    {
      name: 'blocks',
      type: `${T}.container.ModuleList`,
      children: [{ name: '0', type: 'pkg.m.Block', children: SAM_BLOCK.children }],
    },
    LN('norm'),
  ],
};

/** A block holding a LayerScale child: it uses one, it is not one. */
const CHILD_SCALE: Cls = { name: 'Block', children: [leaf('ls1', 'pkg.m.LayerScale'), LINEAR('fc')] };
const CONV = (name: string) => leaf(name, `${T}.conv.Conv2d`);

/** slug → [torchvision classes that land there, classes that must not, why]. */
const table: Record<string, [Cls[], Cls[], string]> = {
  'squeeze-and-excitation': [
    [
      'SqueezeExcitation@ops.misc',
      'QuantizableSqueezeExcitation@models.quantization.mobilenetv3',
      'SELayer',
      'SE',
      'SEModule',
      'EffectiveSEModule',
      'EseModule',
      'seblock',
      { name: 'Gate', features: ['channel-gate'] },
    ],
    [
      'Squeeze@models.x',
      'SEResNet',
      'SEBottleneck',
      { name: 'Gate', features: ['channel-gate', 'spatial-gate'] },
      { name: 'Gate', features: ['channel-gate'], childFeatures: ['spatial-gate'] },
    ],
    'SE by any of its names (any case) or a SqueezeExcitation base, or a channel gate; an SE network is not the block, nor a channel gate with a spatial one (CBAM), inline or a child',
  ],
  'shifted-window-attention': [
    [
      'ShiftedWindowAttention@models.swin_transformer',
      'ShiftedWindowAttentionV2',
      'SwinTransformerBlockV2',
      'ShiftWindowMSA',
      { name: 'Mixer', features: ['shift', 'attention-core'] },
      // Swin's own block: it rolls and partitions, the attention is its WindowAttention child's.
      { name: 'Mixer', features: ['residual', 'window-partition', 'shift'], childFeatures: ['attention-core'] },
    ],
    [
      'SwinTransformer@models.swin_transformer',
      'WindowAttention',
      { name: 'Mixer', features: ['window-partition', 'attention-core'] },
      { name: 'Mixer', features: ['residual', 'window-partition'], childFeatures: ['attention-core'] },
      { name: 'Mixer', features: ['shift'] },
    ],
    'Swin attention and its block (the shift and the attention in one forward or split), not the whole network nor unshifted windows',
  ],
  'window-attention': [
    ['PartitionAttentionLayer@models.maxvit', 'WindowPartition@models.maxvit', 'WindowDepartition@models.maxvit'],
    ['ShiftedWindowAttention', 'MaxVit@models.maxvit'],
    'window and grid partitions of MaxViT',
  ],
  'multi-head-attention': [
    [
      'RelativePositionalMultiHeadAttention@models.maxvit',
      'MultiHeadSelfAttention',
      { name: 'Attn2', bases: ['torch.nn.MultiheadAttention'] },
    ],
    ['MultiscaleAttention@models.video.mvit', 'CrossAttentionPool'],
    'named multi-head, or an nn.MultiheadAttention subclass',
  ],
  'transformer-encoder-block': [
    ['EncoderBlock@models.vision_transformer', 'TransformerEncoderLayer', VIT_BLOCK, SAM_BLOCK, SEQUENTIAL_MLP_BLOCK],
    [
      'Encoder@models.vision_transformer',
      'DecoderBlock',
      NO_ATTENTION,
      NO_MLP,
      CROSS_ATTENTION,
      VIT_STACK,
      NO_RESIDUAL,
    ],
    'one encoder block, not the stack; by name, base, or an attention + MLP residual structure whatever its name',
  ],
  'multiscale-attention': [
    [
      'MultiscaleAttention@models.video.mvit',
      'MultiscaleBlock@models.video.mvit',
      'Pool@models.video.mvit',
      { name: 'MultiScaleAttention', module: 'timm.models.mvitv2' },
    ],
    ['Pool@models.other', 'MViT@models.video.mvit', { name: 'MultiScaleBlock', module: 'timm.models.crossvit' }],
    'MViT pooling attention, any case; CrossViT names another idea MultiScaleBlock',
  ],
  'patch-embedding': [['PatchEmbed', 'PatchEmbedding3d'], ['PatchMerging', 'Embedding'], 'patches to tokens'],
  'patch-merging': [['PatchMerging@models.swin_transformer', 'PatchMergingV2'], ['PatchEmbed'], 'Swin downsampling'],
  'inverted-residual': [
    [
      'InvertedResidual@models.mobilenetv2',
      'InvertedResidual@models.mobilenetv3',
      '_InvertedResidual@models.mnasnet',
      'MBConv@models.efficientnet',
      'MBConv@models.maxvit',
      'QuantizableInvertedResidual@models.quantization.mobilenetv2',
    ],
    ['InvertedResidual@models.shufflenetv2', 'FusedMBConv@models.efficientnet'],
    'MobileNetV2-style blocks; ShuffleNet names its unit InvertedResidual too, and Fused-MBConv has no depthwise conv',
  ],
  'fused-mbconv': [['FusedMBConv@models.efficientnet'], ['MBConv'], 'EfficientNetV2 fused block'],
  'shufflenet-unit': [
    ['InvertedResidual@models.shufflenetv2', 'QuantizableInvertedResidual@models.quantization.shufflenetv2'],
    ['InvertedResidual@models.mobilenetv2'],
    'decided by the module: same class name, different idea',
  ],
  'depthwise-separable-convolution': [
    ['DepthwiseSeparableConv', 'SeparableConv2d', 'DWConv'],
    ['TemporalSeparableConv@models.video.s3d', 'Conv2d'],
    'named depthwise-separable; S3D separates time from space instead',
  ],
  'separable-3d-convolution': [
    [
      'TemporalSeparableConv@models.video.s3d',
      'SepInceptionBlock3D@models.video.s3d',
      'Conv2Plus1D@models.video.resnet',
    ],
    ['Conv3DSimple@models.video.resnet'],
    'space-time factored convolutions',
  ],
  'residual-bottleneck': [
    [
      'Bottleneck@models.resnet',
      'Bottleneck@models.video.resnet',
      'QuantizableBottleneck@models.quantization.resnet',
      'ResBottleneckBlock@models.regnet',
      'BottleneckBlock@models.optical_flow.raft',
    ],
    ['BasicBlock@models.resnet', 'BottleneckLSTM'],
    'ResNet bottlenecks under every name torchvision uses',
  ],
  'residual-basic-block': [
    [
      'BasicBlock@models.resnet',
      'BasicBlock@models.video.resnet',
      'QuantizableBasicBlock@models.quantization.resnet',
      'ResidualBlock@models.optical_flow.raft',
    ],
    ['Bottleneck@models.resnet', 'BasicConv2d'],
    'two 3x3 convolutions and a shortcut',
  ],
  'conv-norm-activation': [
    [
      'Conv2dNormActivation@ops.misc',
      'Conv3dNormActivation@ops.misc',
      'ConvNormActivation@ops.misc',
      'BasicConv2d@models.inception',
      'QuantizableBasicConv2d@models.quantization.googlenet',
      'ConvBNReLU',
      { name: 'ASPPConv', layers: CBR },
    ],
    ['ConvTranspose2d', { name: 'ASPPConv', layers: [...CBR, 'torch.nn.Linear'] }, { name: 'Block', layers: CBR }],
    'by name, or a Conv-named block made only of conv, norm and activation',
  ],
  'drop-path': [
    ['StochasticDepth@ops.stochastic_depth', 'DropPath'],
    ['Dropout', 'DropBlock2d'],
    'drops whole branches',
  ],
  dropblock: [['DropBlock2d@ops.drop_block', 'DropBlock3d@ops.drop_block'], ['StochasticDepth'], 'drops regions'],
  'mlp-block': [
    [
      'MLP@ops.misc',
      'MLPBlock@models.vision_transformer',
      'TwoMLPHead@models.detection.faster_rcnn',
      'Mlp',
      'FeedForward',
    ],
    ['MLPMixer', 'Multilayer'],
    'MLPs and FFNs; an MLP network is not the block',
  ],
  'feature-pyramid-network': [
    [
      'FeaturePyramidNetwork@ops.feature_pyramid_network',
      'LastLevelMaxPool@ops.feature_pyramid_network',
      'ExtraFPNBlock@ops.feature_pyramid_network',
      'BackboneWithFPN@models.detection.backbone_utils',
    ],
    ['RetinaNet@models.detection.retinanet', 'Pyramid'],
    'FPN by name or by its module',
  ],
  'deformable-convolution': [
    ['DeformConv2d@ops.deform_conv', 'ModulatedDeformConv2d'],
    ['Conv2d', 'Deform'],
    'deformable conv',
  ],
  'roi-pooling': [
    ['RoIPool@ops.roi_pool', 'PSRoIPool@ops.ps_roi_pool'],
    ['RoIAlign@ops.roi_align', 'RoIHeads'],
    'max-pooled RoIs',
  ],
  'roi-align': [
    ['RoIAlign@ops.roi_align', 'PSRoIAlign@ops.ps_roi_align', 'MultiScaleRoIAlign@ops.poolers'],
    ['RoIPool@ops.roi_pool'],
    'bilinear RoIs',
  ],
  'region-proposal-network': [
    [
      'RegionProposalNetwork@models.detection.rpn',
      'RPNHead@models.detection.rpn',
      'AnchorGenerator@models.detection.anchor_utils',
      'RPN',
      'StandardRPNHead',
      'DefaultAnchorGenerator',
    ],
    ['RoIHeads@models.detection.roi_heads', 'DefaultBoxGenerator', 'ProposalNetwork'],
    'RPN and its anchors (detectron2 names them RPN, StandardRPNHead); SSD default boxes are not RPN',
  ],
  'atrous-spatial-pyramid-pooling': [
    [
      'ASPP@models.segmentation.deeplabv3',
      'ASPPConv@models.segmentation.deeplabv3',
      'ASPPPooling@models.segmentation.deeplabv3',
      'DeepLabHead@models.segmentation.deeplabv3',
    ],
    ['LRASPP@models.segmentation.lraspp', 'FCNHead'],
    'DeepLabv3 ASPP; LR-ASPP is its own idea',
  ],
  'lite-reduced-aspp': [
    ['LRASPP@models.segmentation.lraspp', 'LRASPPHead@models.segmentation.lraspp'],
    ['ASPP'],
    'MobileNetV3 head',
  ],
  'inception-module': [
    [
      'Inception@models.googlenet',
      'InceptionA@models.inception',
      'InceptionE@models.inception',
      'InceptionAux@models.googlenet',
      'QuantizableInceptionB@models.quantization.inception',
    ],
    ['Inception3@models.inception', 'GoogLeNet@models.googlenet'],
    'modules, not the networks',
  ],
  'dense-block': [
    ['_DenseBlock@models.densenet', '_DenseLayer@models.densenet', '_Transition@models.densenet'],
    ['DenseNet@models.densenet', '_Transition@models.other'],
    'DenseNet blocks and their transitions',
  ],
  'fire-module': [['Fire@models.squeezenet'], ['FireNet'], 'SqueezeNet fire'],
  'convnext-block': [['CNBlock@models.convnext'], ['ConvNeXt@models.convnext', 'CNBlockConfig'], 'ConvNeXt block'],
  'raft-update-operator': [
    [
      'ConvGRU@models.optical_flow.raft',
      'UpdateBlock@models.optical_flow.raft',
      'MotionEncoder@models.optical_flow.raft',
      'FlowHead@models.optical_flow.raft',
    ],
    ['ConvGRU@models.other', 'RAFT@models.optical_flow.raft'],
    'RAFT update operator, by its module',
  ],
  // Methods added for catalogs beyond torchvision: class names from timm, mmcv, mmpretrain, detectron2, Mask2Former
  // and YOLO, and the structures test/catalog/structure/rules.test.ts reads from real code forms.
  'layer-scale': [
    ['LayerScale', 'LayerScale2d', { name: 'Scale', features: ['param-scale', 'param-affine'] }],
    ['LayerScaleBlock', { name: 'Scale', features: ['param-affine'] }, { ...CHILD_SCALE, features: ['param-scale'] }],
    'the per-channel scale itself: a block that uses one, or a scale drawn at random, is not one',
  ],
  'efficient-channel-attention': [
    [
      'EcaModule',
      'CecaModule',
      'ECA',
      'EfficientChannelAttention',
      'eca_layer',
      { name: 'Gate', features: ['channel-gate-1d'] },
    ],
    ['EcaNet', 'Decay', { name: 'Gate', features: ['channel-gate'] }],
    "a 1-d conv across the pooled channels (ECA-Net's own `eca_layer` too); a 2-d projection is SE",
  ],
  cbam: [
    [
      'CbamModule',
      'LightCbamModule',
      'CBAM',
      { name: 'Gate', features: ['channel-gate', 'spatial-gate'] },
      { name: 'Gate', childFeatures: ['channel-gate', 'spatial-gate'] },
      { name: 'Gate', features: ['channel-gate'], childFeatures: ['spatial-gate'] },
    ],
    ['CbamResNet', { name: 'Gate', features: ['channel-gate'] }, { name: 'Gate', childFeatures: ['spatial-gate'] }],
    'a channel gate and a spatial gate, in one forward, as two children, or one of each',
  ],
  'non-local-block': [
    [
      'NonLocal2d',
      '_NonLocalNd',
      'NonLocalAttn',
      'NONLocalBlock2D',
      { name: 'Mix', features: ['residual', 'attention-core', 'pairwise-attention'], children: [CONV('g'), CONV('z')] },
    ],
    [
      'BatNonLocalAttn',
      { name: 'Mix', features: ['residual', 'attention-core', 'pairwise-attention'], children: [LINEAR('qkv')] },
      { name: 'Mix', features: ['attention-core', 'pairwise-attention'], children: [CONV('g')] },
    ],
    'pairwise attention added back over conv projections; a transformer attention (linear maps) is not one',
  ],
  'global-context-block': [['ContextBlock', 'GlobalContext', 'GCBlock'], ['Context'], 'GCNet, by its class names'],
  'transformer-decoder-block': [
    ['TransformerDecoderLayer', 'DecoderLayer', 'DetrTransformerDecoderLayer', CROSS_ATTENTION],
    ['TransformerDecoder', VIT_BLOCK],
    'self-attention, cross-attention and an MLP: one layer, not the stack',
  ],
  'mlp-mixer-block': [
    [
      'MixerBlock',
      { name: 'Unit', features: ['residual'], children: [LN('n1'), mlp('pkg.Mlp'), LN('n2'), mlp('pkg.Mlp')] },
    ],
    ['MlpMixer', { name: 'Unit', children: [LN('n1'), mlp('pkg.Mlp'), LN('n2'), mlp('pkg.Mlp')] }],
    'token MLP and channel MLP, each a residual branch; the network is not the block',
  ],
  'structural-reparameterization': [
    ['RepVGGBlock', 'MobileOneBlock', 'RepConvN', { name: 'Fold', defines: ['_fuse_bn_tensor', 'forward'] }],
    ['RepVGG', { name: 'Net', defines: ['switch_to_deploy', 'forward'] }],
    'defines the kernel arithmetic that folds branches; a network that only calls it is not the block',
  ],
  'cross-stage-partial': [
    ['CSPStage', 'CrossStage', 'RepNCSP', 'BottleneckCSP', 'C3'],
    ['CSPNet', 'CspNet', 'CSPDarkNet'],
    'the stage or block, not the network',
  ],
  'spatial-pyramid-pooling': [['SPP', 'SPPF', 'SPPCSPC', 'SPPELAN'], ['SPPNet', 'Spp2'], 'SPP and its YOLO variants'],
  'split-attention': [
    ['SplitAttn', 'SplitAttentionConv2d', 'RadixSoftmax', 'RSoftmax'],
    ['ResNeSt', 'SplitAttnBlock'],
    'ResNeSt split attention, not the network',
  ],
  'deformable-attention': [
    ['MSDeformAttn', 'MultiScaleDeformableAttention', 'MultiScaleDeformableAttnFunction'],
    ['MSDeformAttnTransformerEncoder', 'DeformConv2d'],
    'the attention, not the encoder built from it',
  ],
  // Methods of graph and molecular networks: PyG's torch_geometric.nn (the bench's `fresh` corpus); NequIP and MACE
  // (`BesselBasis`, `PolynomialCutoff`) and SchNetPack (`GaussianRBF`, `CosineCutoff`) use the other names.
  'jumping-knowledge': [
    ['JumpingKnowledge', 'HeteroJumpingKnowledge'],
    ['JKNetModel', 'Knowledge'],
    'the layer aggregation, by its name',
  ],
  'radial-basis-expansion': [
    ['GaussianSmearing', 'ExpNormalSmearing', 'GaussianRBF', 'GaussianExpansion'],
    ['GaussianBlur', 'GaussianFilter', 'SchNet', 'Smear'],
    "Gaussian expansions of distances; a blur is not, and `GaussianFilter` can be either (GNNFF's is an expansion)",
  ],
  'spherical-bessel-basis': [
    ['BesselBasisLayer', 'SphericalBasisLayer', 'BesselBasis', 'BesselRBF'],
    ['DimeNet', 'Bessel', 'SphericalHarmonics'],
    "DimeNet's bases, not the network",
  ],
  'cutoff-function': [
    ['Envelope', 'PolynomialEnvelope', 'CosineCutoff', 'PolynomialCutoff', 'CutoffFunction'],
    ['EnvelopeNet', 'Cutout', 'CutoffLayer'],
    'smooth cutoffs of a distance; Cutout is an augmentation',
  ],
};

const slugsOf = (c: Cls) => matchMethods(cls(c)).map((m) => m.slug);

describe('taxonomy: which torchvision classes land in each method', () => {
  it('has a row for every method, and no row for a method that does not exist', () => {
    expect(Object.keys(table).sort()).toEqual(
      taxonomy()
        .methods.map((m) => m.slug)
        .sort(),
    );
  });
  for (const [slug, [yes, no, why]] of Object.entries(table)) {
    it(`${slug} — ${why}`, () => {
      for (const c of yes) expect(slugsOf(c), JSON.stringify(c)).toContain(slug);
      for (const c of no) expect(slugsOf(c), `${slug} must not match ${JSON.stringify(c)}`).not.toContain(slug);
    });
  }
  it('records the rule that matched, by kind of evidence and index', () => {
    expect(matchMethods(cls('SqueezeExcitation'))).toEqual([{ slug: 'squeeze-and-excitation', rule: 'name#0' }]);
    expect(matchMethods(cls({ name: 'X', bases: ['torchvision.ops.misc.SqueezeExcitation'] }))).toEqual([
      { slug: 'squeeze-and-excitation', rule: 'base#2' },
    ]);
    expect(matchMethods(cls({ name: 'MyConv', layers: CBR }))).toEqual([
      { slug: 'conv-norm-activation', rule: 'composition#2' },
    ]);
    expect(matchMethods(cls(VIT_BLOCK))).toEqual([{ slug: 'transformer-encoder-block', rule: 'structure#2' }]);
    // anyFlow reads the block's forward and its children's together: still structure.
    expect(matchMethods(cls({ name: 'Gate', childFeatures: ['channel-gate', 'spatial-gate'] }))).toEqual([
      { slug: 'cbam', rule: 'structure#1' },
    ]);
  });
});

describe('taxonomy file checks', () => {
  it('the shipped file is sound', () => {
    expect(checkTaxonomy(taxonomy())).toEqual([]);
  });
  const base = (): Taxonomy => JSON.parse(JSON.stringify(taxonomy())) as Taxonomy;
  it.each([
    ['a duplicate slug', (t: Taxonomy) => t.methods.push({ ...t.methods[0] }), /duplicate slug/],
    ['a slug that is not URL-safe', (t: Taxonomy) => (t.methods[0].slug = 'Bad Slug'), /slug does not match/],
    [
      'a pattern that is not a regex',
      (t: Taxonomy) => (t.methods[0].match = [{ name: '(' }]),
      /not a regular expression/,
    ],
    [
      'a structural rule with a role roles.ts does not know',
      (t: Taxonomy) => (t.methods[0].match = [{ children: ['norm', 'gate' as never] }]),
      /child role 'gate' is not one of/,
    ],
    [
      'a structural rule with a feature features.ts does not know',
      (t: Taxonomy) => (t.methods[0].match = [{ flow: ['gating' as never] }]),
      /feature 'gating' is not one of/,
    ],
    [
      'an anyFlow rule with a feature features.ts does not know',
      (t: Taxonomy) => (t.methods[0].match = [{ anyFlow: ['shift', 'rolling' as never] }]),
      /feature 'rolling' is not one of/,
    ],
    [
      'a rule with only a negative condition',
      (t: Taxonomy) => (t.methods[0].match = [{ notModule: 'x' }]),
      /no positive/,
    ],
    ['an unknown category', (t: Taxonomy) => (t.methods[0].categories = ['nope' as never]), /unknown category/],
    [
      'a paper not in the list',
      (t: Taxonomy) => (t.methods[0].papers = ['arxiv:2401.00001']),
      /not in the papers list/,
    ],
    ['a hostile paper id', (t: Taxonomy) => (t.papers[0].id = 'arxiv:1709.01507"><script>'), /strict patterns/],
    [
      'an alias twice in one method',
      (t: Taxonomy) => t.methods[0].aliases.push(t.methods[0].aliases[0].toUpperCase()),
      /listed twice/,
    ],
  ])('refuses %s', (_, spoil, message) => {
    const t = base();
    spoil(t);
    expect(checkTaxonomy(t).join('\n')).toMatch(message);
  });
});

describe('taxonomy synonyms (for search)', () => {
  const syn = taxonomySynonyms();
  const expands = (term: string) => syn.find((r) => r.term === term)?.expands ?? [];
  it.each([
    ['se', 'squeeze-and-excitation'],
    ['mha', 'multi-head-attention'],
    ['dwconv', 'depthwise-separable-convolution'],
    ['conv-bn-act', 'conv-norm-activation'],
    ['drop path', 'drop-path'],
    ['dropout path', 'drop-path'],
    ['fpn', 'feature-pyramid-network'],
    ['mbconv', 'inverted-residual'],
  ])('%s expands to %s', (term, slug) => {
    expect(expands(term)).toContain(slug);
  });
  it('a term two methods share expands to both', () => {
    expect(expands('depthwise')).toEqual(
      expect.arrayContaining(['inverted-residual', 'depthwise-separable-convolution']),
    );
  });
});

describe('BibTeX of a taxonomy paper', () => {
  it('is an arXiv @misc with a short key, title braced, authors joined by and', () => {
    const p = taxonomy().papers.find((x) => x.id === 'arxiv:1709.01507')!;
    expect(bibtexOf(p)).toBe(
      [
        '@misc{hu2018squeeze,',
        '  title = {{Squeeze-and-Excitation Networks}},',
        '  author = {Jie Hu and Li Shen and Samuel Albanie and Gang Sun and Enhua Wu},',
        '  year = {2018},',
        '  eprint = {1709.01507},',
        '  archivePrefix = {arXiv},',
        '  url = {https://arxiv.org/abs/1709.01507}',
        '}',
      ].join('\n'),
    );
  });
  it('gives every paper a distinct key', () => {
    const keys = taxonomy().papers.map((p) => /^@\w+\{([^,]+),/.exec(bibtexOf(p))![1]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
