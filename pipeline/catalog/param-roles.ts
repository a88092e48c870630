// Parameter roles: an ordered list of documented rules over a parameter's name (and, last, its default). The first
// rule that matches gives the role published on the parameter (`ParamSpec.role`). The same table is rendered in
// docs/catalog.md (see `paramRolesMarkdown`); a test keeps the two in sync.
import type { ParamFact } from '../parse/facts.ts';
import type { KNOWN_PARAM_ROLES } from '../contract/vocabulary.ts';

export type ParamRole = (typeof KNOWN_PARAM_ROLES)[number];

interface RoleRule {
  role: ParamRole;
  /** What the rule means, with typical names. */
  description: string;
  /** Tested against the parameter name. */
  name: RegExp;
}

export const PARAM_ROLE_RULES: RoleRule[] = [
  {
    role: 'channels',
    description: 'channel counts: `in_channels`, `out_channels`, `hidden_channels`, `planes`, `inplanes`, `ch`',
    name: /^(in|out|hidden|mid|inner)?_?(channels?|chans|planes|ch)$|_channels$|^inplanes$|^planes$/,
  },
  {
    role: 'features',
    description: 'feature counts: `in_features`, `out_features`, `num_features`',
    name: /(^|_)(features|in_features|out_features)$/,
  },
  {
    role: 'dimension',
    description: 'widths: `dim`, `embed_dim`, `d_model`, `hidden_dim`, `hidden_size`, `width`',
    name: /(^|_)(dim|dims|embed_dim|d_model|hidden_dim|hidden_size|width)$/,
  },
  {
    role: 'heads',
    description: 'attention head counts: `num_heads`, `nhead`, `n_heads`, `heads` (not `roi_heads`, a module)',
    name: /(^|_)(num_heads|num_attention_heads|nhead|n_heads)$|^heads$/,
  },
  {
    role: 'kernel-size',
    description: '`kernel_size`, `kernel`, `k`',
    name: /kernel_size|^kernel$|^k$/,
  },
  { role: 'stride', description: 'contains `stride`', name: /stride/ },
  { role: 'padding', description: 'contains `padding`, or `pad`', name: /padding|^pad$/ },
  { role: 'dilation', description: 'contains `dilation`', name: /dilation/ },
  { role: 'groups', description: 'contains `groups`', name: /groups/ },
  {
    role: 'dropout',
    description: 'dropout and drop-path rates: `dropout`, `drop_rate`, `attn_drop`, `stochastic_depth_prob`',
    name: /drop|stochastic_depth/,
  },
  { role: 'bias', description: '`bias`', name: /^bias$/ },
  { role: 'epsilon', description: '`eps`, `epsilon`, `layer_norm_eps`', name: /(^|_)eps$|epsilon/ },
  { role: 'momentum', description: 'contains `momentum`', name: /momentum/ },
  {
    role: 'activation',
    description: 'activations: `act`, `act_layer`, `activation` (not `fraction`, `factor`)',
    name: /(^|_)act(_|$)|activation/,
  },
  {
    role: 'norm-layer',
    description: 'normalization layers: `norm`, `norm_layer`, `layer_norm` (not `normalize_*` flags)',
    name: /(^|_)norm(_layer|_cfg|_fn|_type)?$|normalization/,
  },
  {
    role: 'depth',
    description: 'layer or block counts: `depth`, `depths`, `num_layers`, `layers`, `num_blocks`',
    name: /(^|_)depths?$|^(num|n)_(\w+_)?(layers|blocks)$|^(layers|blocks)$/,
  },
  {
    role: 'size',
    description: 'sizes: `img_size`, `patch_size`, `size`, `resolution`',
    name: /size$|^size|resolution/,
  },
];

/** The role of a parameter: the first name rule that matches, else `flag` for a True/False default. */
export function roleOf(p: ParamFact): ParamRole | undefined {
  for (const r of PARAM_ROLE_RULES) if (r.name.test(p.name)) return r.role;
  if (p.defaultLiteral === true || p.defaultLiteral === false) return 'flag';
  return undefined;
}

/** The rule table for docs/catalog.md: order, role, what it matches, the name pattern. */
export function paramRolesMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = PARAM_ROLE_RULES.map(
    (r, i) => `| ${i + 1} | ${r.role} | ${cell(r.description)} | \`${cell(r.name.source)}\` |`,
  );
  const flag = `| ${rows.length + 1} | flag | no name rule matched and the default is \`True\` or \`False\` | |`;
  return ['| # | role | matches | name pattern |', '| --- | --- | --- | --- |', ...rows, flag].join('\n');
}
