// The labelled dedup fixture shared by test/dedup and test/bench/dedup.bench.ts: blocks with the group they
// belong to at each level, so every pair's expected verdict is "same label" at that level.
import type { DedupItem, ModuleTreeNode } from '../../pipeline/dedup/types.ts';
import { BLOCKS } from './fixture-code.ts';

export type Level = 'exact' | 'lexical' | 'structural' | 'architecture';
export const LEVELS: Level[] = ['exact', 'lexical', 'structural', 'architecture'];

export interface LabelledBlock {
  item: DedupItem;
  /** Group label per level; `architecture` is null for blocks without a module tree. */
  labels: Record<Level, string | null>;
  /** Why the block is labelled so, read when a verdict fails. */
  why: string;
}

// Module trees as validation would record them (qualified type names, direct parameters only).
const T = 'torch.nn.modules.';
const node = (
  type: string,
  params: [string, number[]][] = [],
  children: [string, ModuleTreeNode][] = [],
): ModuleTreeNode => ({
  type,
  params: params.map(([name, shape]) => ({ name, shape })),
  children: children.map(([name, child]) => ({ name, ...child })),
});
const linear = (i: number, o: number) =>
  node(`${T}linear.Linear`, [
    ['weight', [o, i]],
    ['bias', [o]],
  ]);
const gelu = () => node(`${T}activation.GELU`);
const conv = (i: number, o: number, k: number) => node(`${T}conv.Conv2d`, [['weight', [o, i, k, k]]]);
const bn = (c: number) =>
  node(`${T}batchnorm.BatchNorm2d`, [
    ['weight', [c]],
    ['bias', [c]],
  ]);
const resTree = (root: string, names: string[]) =>
  node(
    root,
    [],
    [
      [names[0], conv(64, 64, 3)],
      [names[1], bn(64)],
      [names[2], conv(64, 64, 3)],
      [names[3], bn(64)],
      [names[4], node(`${T}linear.Identity`)],
    ],
  );

let counter = 0;
function block(
  sourceId: string,
  name: string,
  code: string,
  labels: [string, string, string, string | null],
  why: string,
  extra: Partial<DedupItem> = {},
): LabelledBlock {
  counter++;
  return {
    item: {
      id: `${sourceId}:blocks.m${counter}.${name}`,
      sourceId,
      path: `blocks/m${counter}.py`,
      priority: 1,
      validated: extra.moduleTree !== undefined,
      code,
      ...extra,
    },
    labels: { exact: labels[0], lexical: labels[1], structural: labels[2], architecture: labels[3] },
    why,
  };
}

export const FIXTURE: LabelledBlock[] = [
  block('a', 'ResidualBlock', BLOCKS.res, ['res', 'res', 'res', 'res'], 'the original residual block', {
    moduleTree: resTree('blocks.m1.ResidualBlock', ['conv1', 'bn1', 'conv2', 'bn2', 'shortcut']),
  }),
  block('b', 'ResidualBlock', BLOCKS.res, ['res', 'res', 'res', null], 'an exact copy in another source'),
  block(
    'b',
    'ResidualBlock',
    BLOCKS.resReformatted,
    ['res', 'res', 'res', null],
    'same tokens: layout, comments, docstring and quotes differ',
  ),
  block(
    'c',
    'ResBlock',
    BLOCKS.resRenamed,
    ['res-renamed', 'res', 'res', 'res'],
    'every user identifier renamed: same abstract token stream',
    {
      moduleTree: resTree('blocks.m4.ResBlock', ['c1', 'n1', 'c2', 'n2', 'skip']),
    },
  ),
  block(
    'c',
    'ResidualBlock',
    BLOCKS.resLiterals,
    ['res-literals', 'res', 'res', null],
    'other numbers and booleans: literals are abstracted',
  ),
  block(
    'c',
    'ResidualBlock1d',
    BLOCKS.resApiSwap,
    ['res-1d', 'res-1d', 'res', null],
    'other torch APIs in the same tree shape: lexically far, structurally equal',
  ),
  block('a', 'MultiHeadSelfAttention', BLOCKS.attn, ['attn', 'attn', 'attn', null], 'the original attention block'),
  block(
    'b',
    'Attention',
    BLOCKS.attnEdited,
    ['attn-edited', 'attn', 'attn', null],
    'renamed, plus one added statement: shingle Jaccard still >= 0.90',
  ),
  block('a', 'Mlp', BLOCKS.mlp, ['mlp', 'mlp', 'mlp', 'mlp'], 'an MLP written with explicit layers', {
    moduleTree: node(
      'blocks.Mlp',
      [],
      [
        ['fc1', linear(64, 128)],
        ['act', gelu()],
        ['fc2', linear(128, 64)],
      ],
    ),
  }),
  block(
    'b',
    'FeedForward',
    BLOCKS.mlpSequential,
    ['mlp-seq', 'mlp-seq', 'mlp-seq', 'mlp'],
    'the same network through nn.Sequential: only the architecture matches',
    {
      moduleTree: node(
        'blocks.FeedForward',
        [],
        [
          [
            'net',
            node(
              `${T}container.Sequential`,
              [],
              [
                ['0', linear(64, 128)],
                ['1', gelu()],
                ['2', linear(128, 64)],
              ],
            ),
          ],
        ],
      ),
    },
  ),
  block(
    'b',
    'WideMlp',
    BLOCKS.mlpWide,
    ['mlp-wide', 'mlp', 'mlp', 'mlp-wide'],
    'the explicit MLP with a wider hidden layer: same code up to literals, other network',
    {
      moduleTree: node(
        'blocks.WideMlp',
        [],
        [
          ['fc1', linear(64, 256)],
          ['act', gelu()],
          ['fc2', linear(256, 64)],
        ],
      ),
    },
  ),
  block('a', 'ConvBNAct', BLOCKS.convBnAct, ['cba', 'cba', 'cba', null], 'different block'),
  block('a', 'SqueezeExcite', BLOCKS.squeezeExcite, ['se', 'se', 'se', null], 'different block'),
  block('b', 'PatchEmbed', BLOCKS.patchEmbed, ['patch', 'patch', 'patch', null], 'different block'),
  block(
    'c',
    'LayerNorm2d',
    BLOCKS.layerNorm2d,
    ['ln2d', 'ln2d', 'ln2d', null],
    'different block, with a helper function pulled in',
  ),
  block('c', 'GatedMlp', BLOCKS.gatedMlp, ['glu', 'glu', 'glu', null], 'different block close to the MLP family'),
];

/** All unordered pairs with each level's expected and actual verdicts, given the result's group per block. */
export function pairVerdicts(
  fixture: LabelledBlock[],
  groupOf: (id: string, level: Level) => string | null,
): { a: string; b: string; level: Level; expected: boolean; actual: boolean }[] {
  const out = [];
  for (let i = 0; i < fixture.length; i++) {
    for (let j = i + 1; j < fixture.length; j++) {
      const x = fixture[i];
      const y = fixture[j];
      for (const level of LEVELS) {
        const lx = x.labels[level];
        const ly = y.labels[level];
        const gx = groupOf(x.item.id, level);
        const gy = groupOf(y.item.id, level);
        out.push({
          a: x.item.id,
          b: y.item.id,
          level,
          expected: lx !== null && lx === ly,
          actual: gx !== null && gx === gy,
        });
      }
    }
  }
  return out;
}
