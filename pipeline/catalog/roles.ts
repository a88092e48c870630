// What each direct submodule of a block does, read from the module tree validation built (its type's class name and
// its own submodules): the facts a structural taxonomy rule (`children`, docs/taxonomy.md) matches. A ViT block is
// named `Block` in DINO and Segment Anything; what makes it a transformer encoder block is its children, in order:
//   norm1: LayerNorm, attn: Attention, drop_path: DropPath, norm2: LayerNorm, mlp: Mlp   ->  norm attention norm mlp
// Types are the built module's own report (`pkg.mod.Class`); only the last segment, the class name, is read.

/** A submodule as the module tree records it: attribute name, type, and its own submodules in order. */
export interface ChildFact {
  name: string;
  type: string;
  children?: ChildFact[];
}

/**
 * `norm`, `attention`, `mlp`; `neutral` for what changes no shape and learns nothing structural (dropout, drop path,
 * identity, layer scale), which a structural rule steps over; `other` for anything else.
 */
export type ChildRole = 'norm' | 'attention' | 'mlp' | 'neutral' | 'other';

export const CHILD_ROLES: readonly ChildRole[] = ['norm', 'attention', 'mlp', 'neutral', 'other'];

const className = (type: string) => type.slice(type.lastIndexOf('.') + 1);

const NEUTRAL = /^(\w*Dropout\w*|DropPath\w*|StochasticDepth|Identity|LayerScale\w*)$/;
const NORM = /^(\w*LayerNorm\w*|RMSNorm|GroupNorm|BatchNorm[123]d|\w*Norm(2d)?)$/;
const ATTENTION_NAME = /Attention|Attn/i;
const MLP_NAME = /^\w*(MLP|Mlp|FeedForward|FFN)\w*$/;
/** What an MLP is made of, structurally: linear maps (or 1 x 1 convolutions), activations, dropout. */
const MLP_PART = /^(Linear|Conv1d|GELU|ReLU\d?|SiLU|Tanh|QuickGELU|Hardswish|Mish|\w*Dropout\w*|Identity)$/;

/** Every type below a child (not the child itself), depth first. */
function descendants(c: ChildFact): string[] {
  return (c.children ?? []).flatMap((x) => [className(x.type), ...descendants(x)]);
}

/**
 * A child's role: by its class name first (`LayerNorm`, `Attention`, `MultiheadAttention`, `Mlp`, `MLPBlock`), else by
 * what it holds: projections named `qkv`, or `q`/`k`/`v` (`query`/`key`/`value`), make an attention (however the class
 * is named); only linear maps, activations and dropout, two linear maps at least, make an MLP
 * (`nn.Sequential(Linear, GELU, Linear)`).
 */
export function roleOf(c: ChildFact): ChildRole {
  const cls = className(c.type);
  if (NEUTRAL.test(cls)) return 'neutral';
  if (NORM.test(cls)) return 'norm';
  if (ATTENTION_NAME.test(cls)) return 'attention';
  if (MLP_NAME.test(cls)) return 'mlp';
  const names = new Set((c.children ?? []).map((x) => x.name));
  if (
    names.has('qkv') ||
    ['q', 'k', 'v'].every((n) => names.has(n)) ||
    ['query', 'key', 'value'].every((n) => names.has(n))
  )
    return 'attention';
  const below = descendants(c);
  if (below.filter((t) => t === 'Linear').length >= 2 && below.every((t) => MLP_PART.test(t))) return 'mlp';
  return 'other';
}

/** The roles of a block's children in registration order, neutral ones left out: what a `children` rule compares. */
export function structureOf(children: ChildFact[]): ChildRole[] {
  return children.map(roleOf).filter((r) => r !== 'neutral');
}
