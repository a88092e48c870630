// Synthetic corpora for the dedup benchmark: random 40-80 line PyTorch blocks, some in families of mutated
// variants (copies, reformatted, renamed, other literals, a statement added or removed), the rest unique.
import { mulberry32 } from '../../pipeline/dedup/hash32.ts';
import type { DedupItem } from '../../pipeline/dedup/types.ts';

export type Mutation = 'copy' | 'reformat' | 'rename' | 'literals' | 'insert' | 'delete';
const MUTATIONS: Mutation[] = ['copy', 'reformat', 'rename', 'literals', 'insert', 'delete'];

export interface SyntheticBlock {
  item: DedupItem;
  /** The family's base id (its own id for unique blocks and family bases). */
  family: string;
  mutation: Mutation | null;
}

type Rand = {
  int: (lo: number, hi: number) => number;
  pick: <T>(xs: readonly T[]) => T;
  chance: (p: number) => boolean;
};

function rand(seed: number): Rand {
  const next = mulberry32(seed);
  const unit = () => (next() >>> 0) / 2 ** 32;
  return {
    int: (lo, hi) => lo + Math.floor(unit() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(unit() * xs.length)],
    chance: (p) => unit() < p,
  };
}

// Large API vocabularies and a small expression grammar, so unrelated blocks differ the way real ones do
// (torchvision's classes mostly share under 20% of their shingles) instead of all drawing on a few templates.
const LAYERS = [
  'Conv1d',
  'Conv2d',
  'Conv3d',
  'ConvTranspose2d',
  'Linear',
  'Bilinear',
  'BatchNorm1d',
  'BatchNorm2d',
  'GroupNorm',
  'LayerNorm',
  'InstanceNorm2d',
  'Dropout',
  'Dropout2d',
  'ReLU',
  'GELU',
  'SiLU',
  'Tanh',
  'Sigmoid',
  'Hardswish',
  'Mish',
  'ELU',
  'PReLU',
  'LeakyReLU',
  'Softmax',
  'MaxPool2d',
  'AvgPool2d',
  'AdaptiveAvgPool2d',
  'AdaptiveMaxPool2d',
  'Upsample',
  'PixelShuffle',
  'Embedding',
  'MultiheadAttention',
  'LSTM',
  'GRU',
  'Identity',
  'Flatten',
  'Unflatten',
  'ZeroPad2d',
  'ReflectionPad2d',
  'Hardsigmoid',
  'Softplus',
  'GLU',
  'CELU',
  'SELU',
];
const FNS = [
  'relu',
  'gelu',
  'silu',
  'tanh',
  'sigmoid',
  'softplus',
  'elu',
  'mish',
  'softmax',
  'log_softmax',
  'dropout',
  'interpolate',
  'pad',
  'normalize',
  'layer_norm',
  'group_norm',
  'avg_pool2d',
  'max_pool2d',
  'adaptive_avg_pool2d',
  'conv2d',
  'linear',
  'embedding',
  'one_hot',
  'pixel_shuffle',
  'unfold',
  'fold',
  'hardswish',
  'leaky_relu',
  'glu',
  'cross_entropy',
  'mse_loss',
  'cosine_similarity',
  'grid_sample',
];
const TORCH = [
  'cat',
  'stack',
  'matmul',
  'bmm',
  'einsum',
  'sigmoid',
  'tanh',
  'exp',
  'log',
  'sqrt',
  'softmax',
  'zeros_like',
  'ones_like',
  'randn_like',
  'where',
  'clamp',
  'flatten',
  'chunk',
  'split',
  'roll',
  'mean',
  'sum',
  'max',
  'min',
  'topk',
  'gather',
  'arange',
  'linspace',
  'meshgrid',
  'cumsum',
  'norm',
  'rsqrt',
  'erf',
];
const METHODS = [
  'view',
  'reshape',
  'permute',
  'transpose',
  'flatten',
  'mean',
  'sum',
  'softmax',
  'chunk',
  'contiguous',
  'unsqueeze',
  'squeeze',
  'expand',
  'repeat',
  'masked_fill',
  'clamp',
  'pow',
  'abs',
  'size',
];
const OPS = ['+', '-', '*', '/', '@', '**', '//', '%'];
const WORDS = [
  'conv',
  'norm',
  'proj',
  'fc',
  'gate',
  'attn',
  'mix',
  'pool',
  'embed',
  'head',
  'stem',
  'branch',
  'skip',
  'drop',
  'q',
  'k',
  'v',
  'scale',
  'bias',
  'alpha',
  'beta',
  'tau',
  'mask',
  'pos',
  'ctx',
  'tok',
];

function literal(r: Rand): string {
  return r.pick([
    () => String(r.int(0, 512)),
    () => r.pick(['0.1', '0.5', '1e-5', '1e-6', '2.0', '-1', '-0.5']),
    () => r.pick(['True', 'False', 'None']),
    () => `"${r.pick(['bilinear', 'nearest', 'mean', 'sum', 'zeros'])}"`,
  ])();
}

function expr(r: Rand, vars: string[], attrs: string[], depth: number): string {
  const leaf = () => r.pick([() => r.pick(vars), () => `self.${r.pick(attrs)}`, () => literal(r)])();
  if (depth <= 0) return leaf();
  const sub = () => expr(r, vars, attrs, depth - 1);
  const args = (n: number) => Array.from({ length: n }, sub).join(', ');
  return r.pick([
    leaf,
    () => `${sub()} ${r.pick(OPS)} ${sub()}`,
    () =>
      `F.${r.pick(FNS)}(${args(r.int(1, 2))}${r.chance(0.4) ? `, ${r.pick(['dim', 'p', 'inplace', 'eps'])}=${literal(r)}` : ''})`,
    () => `torch.${r.pick(TORCH)}(${r.chance(0.3) ? `[${args(2)}]` : args(r.int(1, 3))})`,
    () => `${r.pick(vars)}.${r.pick(METHODS)}(${args(r.int(0, 2))})`,
    () => `self.${r.pick(attrs)}(${args(r.int(1, 2))})`,
    () => `${r.pick(vars)}[${r.pick([':', '0', '..., None', ':, 1:', '-1'])}]`,
    () => `(${sub()} if ${sub()} else ${sub()})`,
  ])();
}

function statements(r: Rand, vars: string[], attrs: string[], count: number, indent: string, nest: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = nest > 0 ? r.int(0, 9) : r.int(0, 6);
    if (kind <= 5) out.push(`${indent}${r.pick(vars)} = ${expr(r, vars, attrs, r.int(1, 3))}`);
    else if (kind === 6) out.push(`${indent}${r.pick(vars)} ${r.pick(['+=', '*=', '-='])} ${expr(r, vars, attrs, 1)}`);
    else if (kind === 7) {
      out.push(`${indent}if ${expr(r, vars, attrs, 1)} ${r.pick(['>', '<', '==', 'is not'])} ${literal(r)}:`);
      out.push(...statements(r, vars, attrs, r.int(1, 3), indent + '    ', nest - 1));
    } else if (kind === 8) {
      out.push(
        `${indent}for ${r.pick(['i', 'blk', 'layer'])} in ${r.pick(['range(self.depth)', 'self.blocks', `range(${r.int(2, 6)})`])}:`,
      );
      out.push(...statements(r, vars, attrs, r.int(1, 3), indent + '    ', nest - 1));
    } else {
      out.push(`${indent}with torch.no_grad():`);
      out.push(...statements(r, vars, attrs, r.int(1, 2), indent + '    ', nest - 1));
    }
  }
  return out;
}

/** A random block as lines of code; `names` are the user identifiers a rename mutation may rewrite. */
function randomBlock(r: Rand, name: string): { lines: string[]; names: string[] } {
  const attrs: string[] = [];
  const init: string[] = [];
  const nLayers = r.int(6, 14);
  for (let i = 0; i < nLayers; i++) {
    const attr = `${r.pick(WORDS)}${i}`;
    attrs.push(attr);
    const layer = () => `nn.${r.pick(LAYERS)}(${Array.from({ length: r.int(0, 3) }, () => literal(r)).join(', ')})`;
    const value = r.pick([
      layer,
      layer,
      layer,
      () => `nn.Sequential(${layer()}, ${layer()})`,
      () => `nn.Parameter(torch.${r.pick(['zeros', 'ones', 'randn'])}(${r.int(1, 256)}))`,
      () => literal(r),
    ]);
    init.push(`        self.${attr} = ${value()}`);
  }
  const vars = ['x', ...['h', 'y', 'z', 'u', 'v', 'w', 'attn', 'feat', 'out', 'res'].filter(() => r.chance(0.5))];
  const params = ['x', ...['mask', 'context', 'pos', 'size'].filter(() => r.chance(0.3))];
  const lines = [
    `class ${name}(nn.Module):`,
    `    def __init__(self, dim=${r.int(8, 512)}, depth=${r.int(1, 12)}):`,
    '        super().__init__()',
    ...init,
    '',
    `    def forward(self, ${params.join(', ')}):`,
    ...statements(r, [...new Set([...vars, ...params])], attrs, r.int(10, 24), '        ', 2),
    `        return ${r.pick(vars)}`,
  ];
  if (r.chance(0.4)) {
    lines.push(
      '',
      `    def ${r.pick(['extra_repr', 'reset_parameters', 'init_weights', '_forward_features'])}(self${r.chance(0.5) ? ', x' : ''}):`,
    );
    lines.push(...statements(r, ['x', 'y'], attrs, r.int(3, 8), '        ', 1), '        return x');
  }
  return { lines, names: [name, ...attrs, ...vars.slice(1), ...params.slice(1)] };
}

function mutate(r: Rand, lines: string[], names: string[], m: Mutation): string[] {
  switch (m) {
    case 'copy':
      return lines;
    case 'reformat':
      return lines.flatMap((l, i) => (i % 7 === 3 ? [`${l}  # note ${i}`, ''] : [l.replace(/, /g, ',  ')]));
    case 'rename': {
      const map = new Map(names.map((n, i) => [n, `${n}_r${i}`]));
      return lines.map((l) => l.replace(/\b[A-Za-z_][A-Za-z0-9_]*\b/g, (w) => map.get(w) ?? w));
    }
    case 'literals':
      return lines.map((l) => l.replace(/\b\d+\b/g, (d) => String(Number(d) * 2 + 1)));
    case 'insert': {
      const at = lines.findIndex((l) => l.startsWith('        return'));
      return [...lines.slice(0, at), '        x = F.layer_norm(x, x.shape[-1:])', ...lines.slice(at)];
    }
    case 'delete': {
      const at = lines.findIndex((l) => l.startsWith('    def forward')) + 1 + r.int(0, 3);
      return /^ {8}\S/.test(lines[at]) && !lines[at].endsWith(':')
        ? [...lines.slice(0, at), ...lines.slice(at + 1)]
        : lines;
    }
  }
}

/** `n` blocks over 3 sources: about half in families of 2-10 variants, the rest unique. Deterministic in `seed`. */
export function syntheticCorpus(n: number, seed = 1): SyntheticBlock[] {
  const r = rand(seed);
  const out: SyntheticBlock[] = [];
  let serial = 0;
  while (out.length < n) {
    const base = `Block${serial++}`;
    const { lines, names } = randomBlock(r, base);
    const size = r.chance(0.5) ? 1 : Math.min(r.int(2, 10), n - out.length);
    const family = `s${serial % 3}:synthetic.m${serial}.${base}`;
    for (let k = 0; k < size; k++) {
      const mutation = k === 0 ? null : r.pick(MUTATIONS);
      const code = (mutation === null ? lines : mutate(r, lines, names, mutation)).join('\n') + '\n';
      const sourceId = k === 0 ? `s${serial % 3}` : `s${(serial + k) % 3}`;
      out.push({
        item: {
          id: k === 0 ? family : `${sourceId}:synthetic.m${serial}_${k}.${base}`,
          sourceId,
          path: `synthetic/m${serial}_${k}.py`,
          priority: sourceId === 's2' ? 2 : 1,
          validated: r.chance(0.7),
          code,
        },
        family,
        mutation,
      });
    }
  }
  return out;
}
