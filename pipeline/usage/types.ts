// The usage index's records: how the corpus builds and calls each block, as plain JSON (no tree-sitter objects, no
// IndexedModule), for the validate step to draw constructor arguments and forward inputs from. docs/usage.md.
import type { LiteralValue } from '../contract/common.ts';
import type { ParamKind, UsedByVia } from '../contract/vocabulary.ts';

/** What an argument is, as far as static reading of the corpus says. */
export type UsageValue =
  | { kind: 'literal'; value: LiteralValue }
  /** A class or function named where a value goes (a layer factory: `block=Bottleneck`); `blockId` when a block. */
  | { kind: 'ref'; name: string; blockId?: string }
  /** `partial(Cls, ...)`: the callable and the arguments it binds. */
  | { kind: 'partial'; name: string; blockId?: string; args: UsageArg[] }
  /** An instance built elsewhere and passed on (`motion_encoder = MotionEncoder(...)`, then `motion_encoder`). */
  | { kind: 'instance'; name: string; blockId?: string }
  /** A parameter of the enclosing function, not known at this site (`block` in `ResNet(block, layers)`). */
  | { kind: 'param'; name: string }
  /** A variable known only by its name: a local, `self.inplanes`, a forward input `flow`. */
  | { kind: 'name'; name: string }
  /** A list or tuple display of names and literals: `[BasicConv2d, InceptionA]`. */
  | { kind: 'list'; items: UsageValue[] }
  /**
   * A config dict naming a registered class, `dict(type='ResNet', depth=50)` (or `{'type': 'ResNet', ...}`): the
   * class it names (`blockId` when a block of the corpus registered under that name) and its other entries.
   */
  | { kind: 'config'; type: string; blockId?: string; args: UsageArg[] }
  /** A tensor made with a literal shape: `torch.randn(1, 3, 224, 224)` (`factory` is `torch.randn`). */
  | { kind: 'tensor'; factory: string; shape: number[] }
  /** Anything else: its source text, capped at 80 characters. Never published (docs/usage.md). */
  | { kind: 'expr'; text: string };

export interface UsageArg {
  /** Keyword name; absent for a positional argument. */
  name?: string;
  /** `*value` (1) or `**value` (2). */
  star?: 1 | 2;
  value: UsageValue;
}

/** Where a site is: its file, line and the definition around it. */
export interface UsageLocation {
  sourceId: string;
  module: string;
  /** Path relative to the source root. */
  path: string;
  line: number;
  /** Qualname of the enclosing function, method or class body (`ResNet._make_layer`); '' at module level. */
  scope: string;
  /** The block whose method or class body holds the site, when the enclosing class is a block. */
  inBlock?: string;
}

/**
 * How a construction site reaches the block (the catalog's `usedBy[].via`, less `builder`):
 *   call       `Bottleneck(64, 64)`, also through an alias (`import ... as B`) or a module (`resnet.Bottleneck(...)`)
 *   partial    `partial(Bottleneck, groups=32)`
 *   registry   `BLOCKS['basic'](...)` over a dict of classes, or a config `dict(type='Bottleneck', ...)` when the
 *              block registers itself (`@MODELS.register_module()`)
 *   super      a subclass's initialiser calls the block's: `super().__init__(in_channels, out_channels, ...)`
 *   parameter  a parameter the block is passed to is called: `block(...)` in `ResNet._make_layer`
 *   variable   a local bound to the block is called: `layer = Bottleneck; layer(...)`
 *   reference  the block is passed where a callable goes or is bound to a name: `_resnet(Bottleneck, ...)`,
 *              `block=Bottleneck`, `if block is None: block = CNBlock`
 */
export type ConstructionVia = Exclude<UsedByVia, 'builder'>;

export interface ConstructionSite extends UsageLocation {
  blockId: string;
  via: ConstructionVia;
  /** The name called at the site (`Bottleneck`, `partial`, `block`, `BLOCKS`; for a reference, what receives it). */
  callee: string;
  /** For a reference: the keyword (`block`) or position (0) the block is passed as. */
  as?: string | number;
  /** The call's arguments (for a reference: none). */
  args: UsageArg[];
  /** What the result is bound to: `self.layer1`, `model`. */
  assign?: string;
}

/** A module-level function that returns a new instance of the block, directly or through helpers. */
export interface BuilderFn extends UsageLocation {
  blockId: string;
  /** The function's name (`resnet50`); `scope` is the same for a module-level function. */
  name: string;
  params: { name: string; kind: ParamKind; hasDefault: boolean }[];
  /** Callable with no arguments: every parameter has a default or is `*args` / `**kwargs`. */
  zeroArg: boolean;
  /**
   * The block's constructor arguments when the builder runs, the builder's own arguments substituted through its
   * helpers: `resnet50` → `ResNet(Bottleneck, [3, 4, 6, 3], **kwargs)`.
   */
  args: UsageArg[];
  /** Helpers between the builder and the constructor call, outermost first: `['_resnet']`. */
  through: string[];
}

/**
 * A zero-argument builder whose model may hold a block as a part (a detector builder for its
 * RegionProposalNetwork): `blockId` is the model's class, `depth` how many levels up from the block it was found
 * (`parts.ts`). A composite recipe's candidate (docs/validate.md, "Recipes").
 */
export interface PartBuilder extends BuilderFn {
  depth: number;
}

/** A call of a block instance's forward: `self.motion_encoder(flow, corr)` where `self.motion_encoder` is one. */
export interface ForwardCall extends UsageLocation {
  blockId: string;
  /** The callee as written: `self.motion_encoder`, `encoder`. */
  callee: string;
  args: UsageArg[];
  /** Positional arguments (not counting `*args`). */
  arity: number;
  /** Keyword arguments' names, in order. */
  keywords: string[];
}

/** A value of a config file's dict: literals, lists, and nested dicts (which OpenMMLab classes build from). */
export type ConfigValue = LiteralValue | ConfigValue[] | { [key: string]: ConfigValue };

/**
 * A configuration of a registered class read from a config file (source `configs`, `configs.ts`): the
 * `dict(type='ResNet', depth=50, ...)` of `configs/_base_/models/resnet50.py`, less `type`, `init_cfg`, `pretrained`.
 */
export interface ConfigUse extends UsageLocation {
  blockId: string;
  /** The config file's name without `.py` (`resnet50`, `vit-base-p16`). */
  label: string;
  kwargs: Record<string, ConfigValue>;
}

export interface BlockUsage {
  constructions: ConstructionSite[];
  builders: BuilderFn[];
  forwardCalls: ForwardCall[];
  /** Configurations from the source's config files, in file order. */
  configs: ConfigUse[];
}
