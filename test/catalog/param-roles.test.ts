// Table tests for the parameter-role rules: for every role, parameter names that get it and near misses that must
// not, each with the reason. Names come from real signatures (torchvision, timm, torch.nn).
import { describe, expect, it } from 'vitest';
import type { LiteralValue } from '../../pipeline/contract/common.ts';
import { KNOWN_PARAM_ROLES } from '../../pipeline/contract/vocabulary.ts';
import { PARAM_ROLE_RULES, roleOf } from '../../pipeline/catalog/param-roles.ts';

const role = (name: string, defaultLiteral?: LiteralValue) => roleOf({ name, kind: 'positional', defaultLiteral });

/** role → [names that get it, names that must not, why]. */
const table: Record<string, [string[], string[], string]> = {
  channels: [
    ['in_channels', 'out_channels', 'hidden_channels', 'planes', 'inplanes', 'ch', 'in_chans', 'squeeze_channels'],
    ['channel_last', 'in_channels_list'],
    'channel counts, not flags or lists about channels',
  ],
  features: [['in_features', 'out_features', 'num_features'], ['features_only', 'feature_maps'], 'feature counts'],
  dimension: [
    ['dim', 'embed_dim', 'd_model', 'hidden_size', 'head_dim', 'width'],
    ['dim_reduced', 'width_mult'],
    'widths',
  ],
  heads: [
    ['num_heads', 'nhead', 'n_heads', 'heads'],
    ['roi_heads', 'box_head', 'heads_first'],
    'attention head counts; `roi_heads` is a module, not a count',
  ],
  'kernel-size': [['kernel_size', 'kernel', 'k'], ['k_max', 'kernel_init'], 'kernel sizes'],
  stride: [['stride', 'strides', 'stride_q'], ['step'], 'strides'],
  padding: [['padding', 'pad', 'padding_mode'], ['pad_if_needed'], 'padding, not the `pad_if_needed` flag'],
  dilation: [['dilation', 'dilation_rate'], ['atrous_rates'], 'dilations'],
  groups: [['groups', 'num_groups'], ['group_width'], 'group counts'],
  dropout: [
    ['dropout', 'drop_rate', 'attn_drop', 'drop_path_rate', 'attention_dropout', 'stochastic_depth_prob'],
    ['p', 'prob'],
    'dropout and drop-path rates (stochastic depth is a drop-path rate, not a depth)',
  ],
  bias: [['bias'], ['qkv_bias', 'bias_init'], 'the bias switch itself; `qkv_bias` is a flag'],
  epsilon: [['eps', 'epsilon', 'layer_norm_eps', 'bn_eps'], ['steps', 'reps'], 'numerical epsilons'],
  momentum: [['momentum', 'bn_momentum'], ['moment'], 'momentum'],
  activation: [
    ['act_layer', 'activation', 'act', 'activation_layer', 'scale_activation', 'act_fn'],
    ['positive_fraction', 'expansion_factor', 'sharpness_factor', 'exact', 'impact'],
    'activations; `fraction` and `factor` merely contain "act"',
  ],
  'norm-layer': [
    ['norm_layer', 'norm', 'layer_norm', 'normalization'],
    ['normalize_by_size', 'norm_before_pool', 'normalized_shape', 'layer_norm_eps'],
    'normalization layers; flags and shapes that mention norm are not layers',
  ],
  depth: [
    ['depth', 'depths', 'num_layers', 'layers', 'num_blocks', 'n_layers', 'num_encoder_layers', 'conv_depth'],
    ['extra_blocks', 'return_layers', 'inception_blocks', 'conv_layers', 'depth_mult'],
    'layer or block counts; module arguments and layer-name maps are not depths',
  ],
  size: [
    ['img_size', 'patch_size', 'size', 'window_size', 'resolution'],
    ['batch_size_per_image', 'max_size_ratio'],
    'sizes',
  ],
};

describe('parameter-role rules', () => {
  it('has a table row for every rule, and every rule gives a known role', () => {
    const roles = PARAM_ROLE_RULES.map((r) => r.role);
    expect(Object.keys(table).sort()).toEqual([...roles].sort());
    for (const r of roles) expect(KNOWN_PARAM_ROLES).toContain(r);
    // flag is the only known role without a name rule: it comes from the default.
    expect(KNOWN_PARAM_ROLES.filter((r) => !roles.includes(r))).toEqual(['flag']);
  });

  for (const rule of PARAM_ROLE_RULES) {
    const row = table[rule.role];
    if (!row) continue;
    const [positives, negatives, why] = row;
    it(`${rule.role} — ${why}`, () => {
      expect(positives.length).toBeGreaterThan(0);
      expect(negatives.length).toBeGreaterThan(0);
      for (const n of positives) expect(role(n), n).toBe(rule.role);
      for (const n of negatives) expect(role(n), n).not.toBe(rule.role);
    });
  }

  it('flag — a True/False default when no name rule matched', () => {
    expect(role('inplace', false)).toBe('flag');
    expect(role('norm_before_pool', true)).toBe('flag');
    expect(role('inplace', 0)).toBeUndefined();
    expect(role('inplace')).toBeUndefined();
    // A name rule wins over the default: `bias=True` is the bias switch.
    expect(role('bias', true)).toBe('bias');
  });

  it('no role for names no rule knows', () => {
    for (const n of ['num_classes', 'weights', 'x', 'mode']) expect(role(n), n).toBeUndefined();
  });
});
