// What a class's structure says it does, read from its static reading (read-class.ts, read-flow.ts): a small,
// documented vocabulary of *features* the taxonomy's `flow` rules match (docs/taxonomy.md, "Structure"). Each is a
// pattern of the forward's data flow, never a name:
//
//   residual            x + self.branch(x): the input (or its shortcut) added to what submodules made of it
//   channel-gate        x * sigmoid(f(pool_hw(x))): a gate from a spatially pooled descriptor (SE, its variants)
//   channel-gate-1d     ... whose f is a 1-d convolution across channels (ECA)
//   spatial-gate        x * sigmoid(f(pool_c(x))): a gate from channel-pooled maps (CBAM's spatial half)
//   param-scale         x * self.gamma: the input scaled by a learned per-channel parameter (LayerScale)
//   branch-scale        x + self.gamma * self.branch(x): a branch scaled by one (a block using layer scale)
//   attention-core      softmax over a matrix product, or scaled_dot_product_attention
//   pairwise-attention  attention-core with two products (affinity, then aggregation): non-local style
//   window-partition    tokens cut into windows (window_partition / window_reverse, or helpers so named)
//   shift               torch.roll: the shifted windows of Swin
//   stack               a submodule list built by a comprehension or a loop: a stack of repeated blocks
//   rearrange           nothing learned, nothing computed: views, permutes, concatenations, slices (Concat, Flatten)
//   elementwise         nothing learned per channel: an activation function of the input (QuickGELU, HardMish)
//   param-affine        the raw input scaled by a learned per-channel parameter, whatever its init (ResMLP's Affine)
import type { ClassReading, ReadChild, ReadParameter } from './read-class.ts';
import type { FlowEvent, Operand } from './read-flow.ts';

export const FEATURES = [
  'residual',
  'channel-gate',
  'channel-gate-1d',
  'spatial-gate',
  'param-scale',
  'branch-scale',
  'attention-core',
  'pairwise-attention',
  'window-partition',
  'shift',
  'stack',
  'rearrange',
  'elementwise',
  'param-affine',
] as const;
export type Feature = (typeof FEATURES)[number];

const SIGMOID = /sigmoid|^gate$|hsigm|hard_?sigmoid/i;
const SPATIAL_POOL_TYPE = /adaptive\w*pool|global\w*pool|selectadaptivepool|avgpool|gap\b|global_pool/i;
const SOFTMAX = /(^|[.:])softmax\(|^self-method:softmax$/i;
const WINDOWS =
  /window_?partition|window_?reverse|img2windows?|windows?2img|window_?unpartition|grid_partition|partition_windows/i;

/** Tensor calls that only move values around. */
const REARRANGE =
  /^(m:(view|reshape|permute|transpose|contiguous|flatten|unflatten|unsqueeze|squeeze|expand|expand_as|view_as|reshape_as|chunk|split|unbind|repeat|flip|roll|movedim|narrow|t|to|type|type_as|float|half|clone|detach|size|dim|pad)\(|fn:(torch\.)?(cat|concat|stack|split|chunk|flatten|reshape|permute|transpose|roll|unsqueeze|squeeze|movedim|narrow|unbind|pixel_shuffle|pixel_unshuffle)\(|fn:(F|nn\.functional|torch\.nn\.functional)\.(pixel_shuffle|pixel_unshuffle|pad)\(|fn:(einops\.)?rearrange\()/;
/** Python builtins a forward may call on shapes and lists. */
const BUILTIN =
  /^fn:(len|int|float|range|isinstance|list|tuple|zip|enumerate|min|max|sum|getattr|hasattr|print|str|math\.\w+)\(|^m:(append|extend|insert|items|keys|values|get)\(/;
const ACTIVATION_FN =
  /^(fn|m):(\w+\.)*(relu6?|relu_|sigmoid|sigmoid_|tanh|tanh_|gelu|silu|mish|softplus|hardtanh|hardswish|hardsigmoid|hard_sigmoid|hard_swish|hard_mish|clamp|clamp_|clamp_min|clamp_max|leaky_relu|leaky_relu_|elu|celu|selu|erf|softmax|log_softmax|glu|prelu|threshold|swish|where)\(/i;
const ARITHMETIC =
  /^(fn|m):(\w+\.)*(pow|square|sqrt|exp|log|abs|neg|add|add_|mul|mul_|div|div_|sub|sub_|sign|maximum|minimum|tensor|as_tensor|zeros_like|ones_like)\(|^m:\w+\(\)$/;

/** The features a reading shows, in FEATURES order. */
export function featuresOf(r: ClassReading): Feature[] {
  const found = new Set<Feature>();
  const child = new Map(r.children.map((c) => [c.name, c]));
  const params = new Map(r.parameters.map((p) => [p.name, p]));
  if (r.children.some((c) => c.repeated && (c.parts?.length ?? 0) > 0)) found.add('stack');
  const flow = r.flow;
  if (flow) {
    const softmax =
      flow.calls.some((c) => SOFTMAX.test(c)) || [...child.values()].some((c) => /(^|\.)Softmax$/.test(c.type));
    const products = flow.events.filter((e) => e.op === 'matmul').length;
    const sdpa = flow.calls.some((c) => /scaled_dot_product_attention|multi_head_attention_forward/.test(c));
    if ((softmax && products >= 1) || sdpa) found.add('attention-core');
    if ((softmax && products >= 2) || sdpa) found.add('pairwise-attention');
    if (flow.calls.some((c) => WINDOWS.test(c))) found.add('window-partition');
    if (flow.calls.some((c) => /^(fn:torch\.roll|m:roll)\(/.test(c))) found.add('shift');
    for (const e of flow.events) for (const f of eventFeatures(e, child, params)) found.add(f);
    const leaf = r.children.length === 0;
    const calls = flow.calls.filter((c) => !BUILTIN.test(c));
    // `s * s` with `s = self.gain` is arithmetic on a setting, not on the data.
    const data = (o: Operand) =>
      o.stream || o.via.some((v) => !v.startsWith('attr:') || params.has(v.slice(5)) || child.has(v.slice(5)));
    const computes = flow.events.some((e) => e.op !== 'cat' && data(e.a) && data(e.b));
    if (leaf && r.parameters.length === 0 && !computes && calls.length > 0 && calls.every((c) => REARRANGE.test(c)))
      found.add('rearrange');
    const activationOnly = r.children.every((c) =>
      /(ReLU|GELU|SiLU|Sigmoid|Tanh|Mish|Softplus|Hardswish|ELU)\w*$/i.test(typeOf(c)),
    );
    if (
      activationOnly &&
      r.parameters.every((p) => !p.perChannel) &&
      flow.events.every((e) => e.op !== 'matmul') &&
      calls.some((c) => ACTIVATION_FN.test(c) || (c.startsWith('self.') && r.children.length > 0)) &&
      calls.every((c) => ACTIVATION_FN.test(c) || ARITHMETIC.test(c) || c.startsWith('self.'))
    )
      found.add('elementwise');
  }
  return FEATURES.filter((f) => found.has(f));
}

function eventFeatures(e: FlowEvent, child: Map<string, ReadChild>, params: Map<string, ReadParameter>): Feature[] {
  const pairs: [Operand, Operand][] = [
    [e.a, e.b],
    [e.b, e.a],
  ];
  const out: Feature[] = [];
  for (const [input, other] of pairs) {
    if (other.stream) continue;
    const branch = other.via.some((s) => s.startsWith('self.') || s.startsWith('self-method:'));
    // The input, or a value saved on the way (`identity = x` after a positional encoding), added to what submodules
    // made of it: everything the saved value went through, the branch went through too, and more.
    const saved = input.via.some((s) => s.startsWith('self.')) && input.via.every((s) => other.via.includes(s));
    const more = other.via.some(
      (s) => (s.startsWith('self.') || s.startsWith('self-method:')) && !input.via.includes(s),
    );
    if (e.op === 'add' && ((input.stream && branch) || (saved && more))) out.push('residual');
    // A learned per-channel scale initialised to a constant (`init_values * torch.ones(dim)`), times the raw input
    // (the module is the scale) or times a branch (a block applying one). A norm's weight times normalised values
    // (`x` already transformed) or an init drawn at random (YOLOR's ImplicitM) is neither.
    const scale = other.via.length > 0 && other.via.every((s) => s.startsWith('attr:') || s.startsWith('m:'));
    const learned = (s: string) => s.startsWith('attr:') && params.get(s.slice(5))?.perChannel;
    // Only a scale: adding a learned tensor to the input is as often a position embedding or a bias.
    if (scale && input.stream && input.via.length === 0 && e.op === 'mul' && other.via.some(learned))
      out.push('param-affine');
    if (e.op !== 'mul') continue;
    const param = (s: string) => learned(s) && params.get(s.slice(5))?.constantInit;
    if (scale && other.via.some(param)) {
      if (input.stream && input.via.length === 0) out.push('param-scale');
      else if (!input.stream && input.via.some((s) => s.startsWith('self.'))) out.push('branch-scale');
      continue;
    }
    if (!input.stream || !other.via.some((s) => isSigmoid(s, child))) continue;
    // Attention pooling (a softmax over positions, GCNet's context) is not a plain squeeze.
    if (other.via.some((s) => SOFTMAX.test(s))) continue;
    // The gate's own path: what it went through that the gated input had not (CBAM's spatial gate comes after its
    // channel gate, whose pooling the input already carries).
    const own = other.via.filter((s) => !input.via.includes(s));
    if (globalPool(own, child)) {
      const conv1d = own.some(
        (s) => /^fn:conv1d\(/.test(s) || (s.startsWith('self.') && isConv1d(child.get(s.slice(5)))),
      );
      out.push(conv1d ? 'channel-gate-1d' : 'channel-gate');
    } else if (own.some((s) => isChannelPool(s, child))) out.push('spatial-gate');
  }
  return out;
}

const typeOf = (c: ReadChild): string => c.type.slice(c.type.lastIndexOf('.') + 1);

function isSigmoid(step: string, child: Map<string, ReadChild>): boolean {
  if (/^(fn|m):\w*(sigmoid|hard_sigmoid|hsigmoid)\w*\(/i.test(step)) return true;
  if (!step.startsWith('self.')) return false;
  const c = child.get(step.slice(5));
  if (!c) return SIGMOID.test(step.slice(5));
  return (
    SIGMOID.test(c.name) ||
    SIGMOID.test(typeOf(c)) ||
    /sigmoid/.test(c.hint) ||
    (c.parts ?? []).some((p) => SIGMOID.test(typeOf(p)))
  );
}

/** Dimensions of a reduction's literal arguments: `m:mean(2,3)` → ['2', '3']. */
const dims = (step: string) => /\(([^)]*)\)$/.exec(step)?.[1].split(',').filter(Boolean) ?? [];

/**
 * A global pool over the positions on the gate's path: `x.mean((2, 3))`, `F.adaptive_avg_pool2d(x, 1)`, an adaptive
 * pool submodule; a single-axis mean counts (on a flattened map, `x.view(b, c, -1).mean(2)`) unless the path also
 * pools another single axis (`x.mean(2)` and `x.mean(3)`: coordinate attention keeps each axis apart).
 */
function globalPool(via: string[], child: Map<string, ReadChild>): boolean {
  if (via.some((s) => isSpatialPool(s, child))) return true;
  const single = new Set(
    via
      .filter((s) => /^(fn|m):(mean|amax|max|sum)\(/.test(s) && dims(s).length === 1 && dims(s)[0] !== '1')
      .map((s) => dims(s)[0]),
  );
  return single.size === 1;
}

function isSpatialPool(step: string, child: Map<string, ReadChild>): boolean {
  const m = /^(fn|m):(\w+)\(/.exec(step);
  if (m) {
    if (
      /^(adaptive_(avg|max)_pool[123]d|avg_pool[23]d|max_pool[23]d|adaptive_avgmax_pool2d|select_adaptive_pool2d)$/.test(
        m[2],
      )
    )
      return true;
    if (/^(mean|amax|max|sum|avg)$/.test(m[2])) {
      const d = dims(step);
      return (d.includes('2') && d.includes('3')) || (d.includes('-1') && d.includes('-2'));
    }
    return false;
  }
  if (!step.startsWith('self.')) return false;
  const c = child.get(step.slice(5));
  if (!c) return /pool/i.test(step);
  return (
    SPATIAL_POOL_TYPE.test(typeOf(c)) ||
    /pool/i.test(c.name) ||
    (c.parts ?? []).some((p) => SPATIAL_POOL_TYPE.test(typeOf(p)))
  );
}

/** A pool over channels: `x.mean(1)`, `torch.max(x, 1)`, or a submodule that does it (CBAM's `ChannelPool`). */
function isChannelPool(step: string, child: Map<string, ReadChild>): boolean {
  const m = /^(fn|m):(mean|amax|max|sum)\(/.exec(step);
  if (m) return dims(step).length === 1 && dims(step)[0] === '1';
  const c = step.startsWith('self.') ? child.get(step.slice(5)) : undefined;
  return c !== undefined && /ChannelPool/i.test(typeOf(c));
}

function isConv1d(c: ReadChild | undefined): boolean {
  return c !== undefined && (/Conv1d$/.test(c.type) || (c.parts ?? []).some((p) => /Conv1d$/.test(p.type)));
}
