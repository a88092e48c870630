// What each direct submodule of a block does: the facts a structural taxonomy rule (`children`, `roles`,
// docs/taxonomy.md) matches. Children come from the module tree validation built (each child's type and its own
// children), else from the static reading of `__init__` (structure/read-class.ts: the class or factory each
// assignment calls). A ViT block is named `Block` in DINO and Segment Anything; what makes it a transformer encoder
// block is its children, in order:
//   norm1: LayerNorm, attn: Attention, drop_path: DropPath, norm2: LayerNorm, mlp: Mlp   ->  norm attention norm mlp
// Types are read by their last segment, the class name (`pkg.mod.Class`, `nn.Conv2d`), case-insensitively; a
// factory (`build_norm_layer`, `create_act_layer`) by what it builds. A class of the corpus is also read by what it
// does (structure/features.ts): an attention whatever its name (`XCA`, `GPSA`) when its forward has the core.
import type { Feature } from './structure/features.ts';

/** A submodule: attribute name, type, its own submodules in order, and (static reading) its constructor text. */
export interface ChildFact {
  name: string;
  type: string;
  children?: ChildFact[];
  /** Lower-cased text of the call that made it (static reading only): `create_act_layer 'sigmoid'`. */
  hint?: string;
  /** Built by a comprehension or a loop (static reading only). */
  repeated?: boolean;
}

/**
 * `norm`, `attention`, `mlp`, `conv`, `linear`, `activation`, `pool`, `embedding`, `stack` (a list of repeated
 * blocks); `neutral` for what changes no shape and learns nothing structural (dropout, drop path, identity, layer
 * scale), which a structural rule steps over; `other` for anything else.
 */
export type ChildRole =
  | 'norm'
  | 'attention'
  | 'mlp'
  | 'conv'
  | 'linear'
  | 'activation'
  | 'pool'
  | 'embedding'
  | 'stack'
  | 'neutral'
  | 'other';

export const CHILD_ROLES: readonly ChildRole[] = [
  'norm',
  'attention',
  'mlp',
  'conv',
  'linear',
  'activation',
  'pool',
  'embedding',
  'stack',
  'neutral',
  'other',
];

/** The features of a class of the corpus a child's type names, when it is one (structure/reader.ts). */
export type FeatureLookup = (type: string) => readonly Feature[] | undefined;

const className = (type: string) => type.slice(type.lastIndexOf('.') + 1);

const NEUTRAL =
  /^(\w*dropout\w*|\w*drop_?path\w*|stochasticdepth|identity|layerscale\w*|build_dropout|none|\w*drop_?block\w*)$/i;
const NORM =
  /^(\w*LayerNorm\w*|RMSNorm|GroupNorm|BatchNorm[123]d|\w*Norm(\dd|Act\w*)?|\w*BatchNorm\w*|build_norm_layer|get_norm_layer|create_norm\w*|(\w+_)?norm(_layer|_fn)?|FrozenBN\w*|\w*BN)$/i;
const ATTENTION_NAME = /Attention|Attn|(^|[a-z_])(W|SW|MH|MHS|X)?MSA$|^MHA$|^X?CA$|^GPSA$|^MHSA\w*$|^SHSA$/i;
const MLP_NAME = /^\w*(MLP|FeedForward|FFN)\w*$|^(build_feedforward_network|mlp_layer)$/i;
const CONV = /conv|^(create_conv\w*|build_conv_layer)$/i;
const NOT_A_CONV = /block|layer|stage|net$|mixer|former|next|bottleneck|transformer|residual|stem|encoder|decoder/i;
const LINEAR = /^(\w*Linear(Quant|Fp\d+)?|Dense|build_linear_layer)$/i;
const ACTIVATION =
  /^(\w*(ReLU\d*|GELU|SiLU|Swish|Mish|Sigmoid|Tanh|Hardswish|Softplus|ELU|GLU|Softmax|Act)\w*|create_act_layer|get_act_layer|build_activation_layer|act(_layer|_fn)?)$/i;
const POOL = /pool/i;
const EMBED = /embed|posenc|positional/i;
const CONTAINER = /^(Sequential|ModuleList|ModuleDict|list)$/;
/** What an MLP is made of, structurally: linear maps (or 1 x 1 convolutions), activations, dropout. */
const MLP_PART = /^(Linear|Conv1d|GELU|ReLU\d?|SiLU|Tanh|QuickGELU|Hardswish|Mish|\w*Dropout\w*|Identity)$/;

const LAYER_ROLES = new Set<ChildRole>(['conv', 'linear', 'norm', 'pool', 'activation', 'neutral']);

const FACTORY_ROLES: [RegExp, ChildRole][] = [
  [/drop/, 'neutral'],
  [/norm/, 'norm'],
  [/attn|attention/, 'attention'],
  [/mlp|ffn|feedforward/, 'mlp'],
  [/conv/, 'conv'],
  [/pool/, 'pool'],
  [/linear/, 'linear'],
  [/act/, 'activation'],
];

/** Every type below a child (not the child itself), depth first. */
function descendants(c: ChildFact): string[] {
  return (c.children ?? []).flatMap((x) => [className(x.type), ...descendants(x)]);
}

/**
 * A child's role: by its class name first (`LayerNorm`, `Attention`, `MultiheadAttention`, `Mlp`, `MLPBlock`, `WindowMSA`),
 * else by what it holds: projections named `qkv`, or `q`/`k`/`v` (`query`/`key`/`value`), make an attention (however
 * the class is named); only linear maps, activations and dropout, two linear maps at least, make an MLP
 * (`nn.Sequential(Linear, GELU, Linear)`); a list of one repeated block type, a stack. Then by what its class does
 * (`lookup`): an attention core in its forward makes an attention.
 */
export function roleOf(c: ChildFact, lookup?: FeatureLookup): ChildRole {
  const cls = className(c.type);
  const named = roleByName(cls);
  if (named) return named;
  const held = roleByParts(c);
  if (held) return held;
  if (CONTAINER.test(cls)) return containerRole(c);
  const features = lookup?.(c.type);
  // An attention core in its forward, or shifted windows around an attention it holds (mmpretrain's ShiftWindowMSA).
  if (features?.includes('attention-core') || (features?.includes('shift') && features.includes('window-partition')))
    return 'attention';
  return layerRole(cls);
}

/** The roles a class name says outright: what holds no shape (neutral), norms, attentions, MLPs. */
function roleByName(cls: string): ChildRole | undefined {
  if (NEUTRAL.test(cls)) return 'neutral';
  // `ConvNorm`, `Conv2d_BN`: a convolution with its norm, read below as a convolution.
  if (NORM.test(cls) && !/conv|linear/i.test(cls)) return 'norm';
  if (ATTENTION_NAME.test(cls)) return 'attention';
  if (MLP_NAME.test(cls)) return 'mlp';
  return undefined;
}

/** By what it holds: q/k/v projections make an attention, only linear maps and activations an MLP. */
function roleByParts(c: ChildFact): ChildRole | undefined {
  const names = new Set((c.children ?? []).map((x) => x.name));
  const qkv = ['q', 'k', 'v'].every((n) => names.has(n)) || ['query', 'key', 'value'].every((n) => names.has(n));
  if (names.has('qkv') || qkv) return 'attention';
  const below = descendants(c);
  if (below.filter((t) => t === 'Linear').length >= 2 && below.every((t) => MLP_PART.test(t))) return 'mlp';
  return undefined;
}

/**
 * A list of layers (`nn.Sequential(conv, bn, act)`, a ModuleList of convs) reads as its main layer; a list of blocks
 * repeated (a comprehension, a loop, or two or more of one class) is a stack: a stage of a network.
 */
function containerRole(c: ChildFact): ChildRole {
  const parts = (c.children ?? []).filter((x) => !NEUTRAL.test(className(x.type)));
  const roles = parts.map((x) => roleOf(x));
  for (const layer of ['conv', 'linear', 'norm', 'pool', 'activation'] as const)
    if (roles.includes(layer) && roles.every((r) => LAYER_ROLES.has(r))) return layer;
  const kinds = new Set(parts.map((x) => className(x.type)));
  if (parts.length > 0 && (c.repeated || (parts.length >= 2 && kinds.size === 1))) return 'stack';
  return 'other';
}

/** A single layer by its class (or factory) name: embedding, pooling, convolution, linear map, activation. */
function layerRole(cls: string): ChildRole {
  // A factory by what its name says it builds: `get_norm_act_layer` a norm, `create_conv2d` a convolution.
  if (/^_*[a-z][a-z\d_]*$/.test(cls)) {
    for (const [re, role] of FACTORY_ROLES) if (re.test(cls)) return role;
  }
  if (EMBED.test(cls)) return 'embedding';
  if (POOL.test(cls)) return 'pool';
  // Before activations: `ConvNormAct` is a convolution with its norm and activation.
  if (CONV.test(cls) && !NOT_A_CONV.test(cls)) return 'conv';
  if (LINEAR.test(cls)) return 'linear';
  if (ACTIVATION.test(cls)) return 'activation';
  return 'other';
}

/** The roles of a block's children in registration order, neutral ones left out: what a structural rule compares. */
export function structureOf(children: ChildFact[], lookup?: FeatureLookup): ChildRole[] {
  return children.map((c) => roleOf(c, lookup)).filter((r) => r !== 'neutral');
}
