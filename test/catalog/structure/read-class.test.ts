// The static reader's quirks, one case each: a class, the submodules `__init__` assigns as read (name:type, `*`
// for a repeated stack), the parameters it declares, and why. Like ruff's pyflakes tests: a snippet and the answer.
import { describe, expect, it } from 'vitest';
import { readClass } from '../../../pipeline/catalog/structure/read-class.ts';
import { parsePython } from '../../../pipeline/catalog/structure/syntax.ts';
import { featuresOf } from '../../../pipeline/catalog/structure/features.ts';
import { py } from '../../helpers/tree.ts';

function read(body: string, extra = '') {
  const root = parsePython(`import torch\nimport torch.nn as nn\n${extra}\nclass C(nn.Module):\n${body}`);
  return readClass(root.descendantsOfType('class_definition').at(-1)!);
}
const children = (body: string, extra = '') =>
  read(body, extra).children.map(
    (c) => `${c.name}:${c.type}${c.repeated ? '*' : ''}${c.parts ? `[${c.parts.map((p) => p.type).join(',')}]` : ''}`,
  );
const init = (lines: string, params = 'self, dim') =>
  `    def __init__(${params}):\n${lines
    .split('\n')
    .map((l) => `        ${l}`)
    .join('\n')}\n`;

describe('children as __init__ assigns them', () => {
  it.each([
    // A constructor parameter called: its default names the class.
    ['self.norm = norm_layer(dim)', 'self, dim, norm_layer=nn.LayerNorm', ['norm:nn.LayerNorm']],
    // ... or the fallback the body gives it.
    [
      'norm_layer = norm_layer or nn.LayerNorm\nself.norm = norm_layer(dim)',
      'self, dim, norm_layer=None',
      ['norm:nn.LayerNorm'],
    ],
    // partial(...) of a class is that class.
    ['self.norm = norm_layer(dim)', 'self, dim, norm_layer=partial(nn.LayerNorm, eps=1e-6)', ['norm:nn.LayerNorm']],
    // A factory given a class first: the class (timm's _create_attn(attn_layer, ...)).
    ['self.attn = _create_attn(attn_layer, dim)', 'self, dim, attn_layer=Attention', ['attn:Attention']],
    // A factory given a string: the factory; the string is in its hint.
    ['self.gate = create_act_layer(gate_layer)', "self, dim, gate_layer='sigmoid'", ['gate:create_act_layer']],
    // mmcv's build_norm_layer(...)[1]
    ['self.norm1 = build_norm_layer(norm_cfg, dim)[1]', 'self, dim, norm_cfg=None', ['norm1:build_norm_layer']],
    // The branch of a conditional that is a module, not the Identity placeholder.
    ['self.ls = LayerScale(dim) if init_values else nn.Identity()', 'self, dim, init_values=None', ['ls:LayerScale']],
    // A comprehension or a loop makes a repeated stack.
    ['self.blocks = nn.Sequential(*[Block(dim) for _ in range(4)])', undefined, ['blocks:nn.Sequential*[Block]']],
    [
      'layers = []\nfor i in range(4):\n    layers.append(Block(dim))\nself.blocks = nn.Sequential(*layers)',
      undefined,
      ['blocks:nn.Sequential*[Block]'],
    ],
    [
      'stages = []\nfor i in range(4):\n    stages += [Stage(dim)]\nself.stages = nn.Sequential(*stages)',
      undefined,
      ['stages:nn.Sequential*[Stage]'],
    ],
    // DETR's _get_clones(layer, n) of a parameter holding a module.
    ['self.layers = _get_clones(encoder_layer, 6)', 'self, encoder_layer', ['layers:nn.ModuleList*[encoder_layer]']],
    // self._make_layer(...): the idiom that returns a stage.
    ['self.layer1 = self._make_layer(block, 64, 3)', 'self, block', ['layer1:nn.Sequential*[_make_layer]']],
    // Helpers that return no module: configs, numbers, flags.
    [
      'self.norm_cfg = copy.deepcopy(norm_cfg)\nself.ws = to_2tuple(7)\nself.fused = use_fused_attn()\nself.info = []',
      'self, norm_cfg',
      [],
    ],
    // A learned parameter is not a child.
    ['self.gamma = nn.Parameter(torch.ones(dim))', undefined, []],
    // An all-caps class called is a class (FFN, SE, ASPP).
    ['self.ffn = FFN(**cfg)', 'self, cfg', ['ffn:FFN']],
    // nn.Conv2d(...).requires_grad_(False): the module the chain starts from.
    ['self.conv = nn.Conv2d(16, 1, 1).requires_grad_(False)', undefined, ['conv:nn.Conv2d']],
  ])('%s', (lines, params, expected) => {
    expect(children(init(lines, params))).toEqual(expected);
  });

  it("follows helpers __init__ calls on self (OpenMMLab's self._init_layers())", () => {
    const body = py`
        def __init__(self, dim):
            super().__init__()
            self._init_layers(dim)
        def _init_layers(self, dim, norm_cfg=dict(type='LN')):
            self.norm = build_norm_layer(norm_cfg, dim)[1]
            self.layers = nn.ModuleList([Layer(dim) for _ in range(6)])
    `;
    expect(children(body.replace(/^/gm, '    '))).toEqual(['norm:build_norm_layer', 'layers:nn.ModuleList*[Layer]']);
  });

  it('reads parameters: per channel or not, a constant init (value times ones) or not', () => {
    const r = read(
      init(
        [
          'self.gamma = nn.Parameter(init_values * torch.ones(dim))',
          'self.full = nn.Parameter(torch.full((dim,), 1e-5))',
          'self.implicit = nn.Parameter(torch.ones(1, dim, 1, 1))',
          'self.scale = nn.Parameter(torch.tensor(1.0))',
        ].join('\n'),
        'self, dim, init_values=1e-5',
      ),
    );
    expect(r.parameters).toEqual([
      { name: 'gamma', perChannel: true, constantInit: true },
      { name: 'full', perChannel: true, constantInit: true },
      { name: 'implicit', perChannel: true, constantInit: false },
      { name: 'scale', perChannel: false, constantInit: false },
    ]);
  });
});

describe('forward data flow', () => {
  const features = (forward: string, initLines = 'pass', extra = '') =>
    featuresOf(read(`${init(initLines)}    def forward(self, x):\n${forward.replace(/^/gm, '        ')}\n`, extra));

  it.each([
    // The input added to what submodules made of it.
    ['return x + self.mlp(self.norm(x))', ['residual']],
    // A shortcut path keeps the input: self.downsample(x) is still the stream.
    ['identity = self.downsample(x)\nout = self.conv2(self.conv1(x))\nout += identity\nreturn out', ['residual']],
    // A value saved after a submodule, added back after more (mmpretrain's DaViT: identity after a positional conv).
    ['x = self.cpe(x)\nidentity = x\nx = self.attn(self.norm(x))\nreturn x + identity', ['residual']],
    // Two branches of the input added: no residual.
    ['return self.conv1(x) + self.conv2(x)', []],
    // A position embedding added to the input: not a branch of it.
    ['return x + self.pos_embed', []],
    // N, C, H, W = x.size(): shape reads are numbers; only views and permutes follow.
    [
      'N, C, H, W = x.size()\nx = x.view(N, C, H // self.bs, self.bs, W // self.bs, self.bs)\nreturn x.permute(0, 3, 5, 1, 2, 4).reshape(N, C * self.bs * self.bs, H // self.bs, W // self.bs)',
      ['rearrange'],
    ],
    // An activation of the input, nothing learned.
    ['return x * torch.sigmoid(1.702 * x)', ['elementwise']],
  ])('%s → %j', (forward, expected) => {
    expect(features(forward)).toEqual(expected);
  });

  it("runs OpenMMLab's _inner_forward through cp.checkpoint with the input bound", () => {
    const forward = py`
      def _inner_forward(x):
          return x + self.ffn(self.norm(x))
      if self.with_cp:
          return cp.checkpoint(_inner_forward, x)
      return _inner_forward(x)
    `;
    expect(features(forward)).toEqual(['residual']);
  });
});
