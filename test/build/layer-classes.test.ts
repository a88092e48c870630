// Class-valued constructor parameters (docs/validate.md, "Recipes"): a block that takes a class
// (`conv_builder: Callable[..., nn.Module]`, as torchvision's video BasicBlock does) gets its module's matching
// classes assembled with it, and the runner passes one of them; the module de-duplication compares leaves them out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';
import { layerClasses } from '../../pipeline/run/extract-step.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  'pkg/__init__.py': '',
  'pkg/video.py': py`
    import copy
    from typing import Callable
    import torch.nn as nn

    class Conv3DSimple(nn.Conv3d):
        def __init__(self, in_planes, out_planes, stride=1):
            super().__init__(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)

    class Unrelated(nn.Module):
        def forward(self, x):
            return x

    class BasicBlock(nn.Module):
        def __init__(self, inplanes: int, planes: int, conv_builder: Callable[..., nn.Module], stride: int = 1):
            super().__init__()
            self.conv = conv_builder(inplanes, planes, stride)
            self.relu = nn.ReLU()
        def forward(self, x):
            return self.relu(self.conv(x))

    class Stage(nn.Module):
        def __init__(self, width, block_constructor):
            super().__init__()
            self.block = block_constructor(width, width, Conv3DSimple)
        def forward(self, x):
            return self.block(x)

    class Encoder(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3, padding=1)
        def forward(self, x):
            return self.conv(x)

    class Head(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.conv = nn.Conv2d(width, 2, 1)
        def forward(self, x):
            return self.conv(x)

    class TransformerEncoderLayer(nn.Module):
        def __init__(self, d_model, nhead):
            super().__init__()
            self.attn = nn.MultiheadAttention(d_model, nhead)
        def forward(self, src):
            return src + self.attn(src, src, src)[0]

    # Stacks copies of the layer it is given, as DETR's does: \`encoder_layer\` names the one sibling ending so.
    class TransformerEncoder(nn.Module):
        def __init__(self, encoder_layer, num_layers):
            super().__init__()
            self.layers = nn.ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        def forward(self, src):
            for layer in self.layers:
                src = layer(src)
            return src

    # Built from instances of its siblings, as RAFT's UpdateBlock is: one named by the parameter, one annotated.
    class Net(nn.Module):
        def __init__(self, *, encoder, head: Head):
            super().__init__()
            self.encoder = encoder
            self.head = head
        def forward(self, x):
            return self.head(self.encoder(x))
  `,
};

describe('class-valued constructor parameters', () => {
  let config: string;
  let out: string;
  const spec = (name: string): BlockSpec =>
    JSON.parse(readFileSync(join(out, 'blocks', `fx.pkg.video.${name.toLowerCase()}.json`), 'utf8'));

  beforeAll(async () => {
    config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    out = tempDir('nnb-layers-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 120_000);

  it('offers the classes the annotation or the parameter name points to, in source order', async () => {
    const run = openRun(config);
    const p = await prepare(run);
    run.store.close();
    const block = (name: string) => p.discovered.blocks.find((b) => b.name === name)!;
    // `conv_builder` → a class with `conv` in its name; `block_constructor` (no annotation) → `BasicBlock`.
    const classes = (name: string) => {
      const b = block(name);
      return layerClasses(
        p.index.modules.find((m) => m.sourceId === b.sourceId && m.path === b.path)!,
        b,
      );
    };
    expect(classes('BasicBlock')).toEqual(['Conv3DSimple']);
    expect(classes('Stage')).toEqual(['BasicBlock']);
    expect(classes('Conv3DSimple')).toEqual([]);
    // `encoder` (no annotation) takes an Encoder instance; `head: Head` names its class in the annotation already.
    expect(classes('Net')).toEqual(['Encoder']);
    expect(classes('TransformerEncoder')).toEqual(['TransformerEncoderLayer']);
  });

  it('builds a block from instances of the sibling classes its parameters name', () => {
    const s = spec('Net');
    expect(s.validation?.status).toBe('passed');
    expect(s.validation?.recipe?.calls).toEqual([
      { name: 'encoder', target: '.Encoder', kwargs: [{ name: 'width', value: 16 }] },
      { name: 'head', target: '.Head', kwargs: [{ name: 'width', value: 16 }] },
    ]);
    const stack = spec('TransformerEncoder').validation;
    expect(stack?.status).toBe('passed');
    expect(stack?.recipe?.calls).toEqual([
      {
        name: 'encoder_layer',
        target: '.TransformerEncoderLayer',
        kwargs: [
          { name: 'd_model', value: 16 },
          { name: 'nhead', value: 2 },
        ],
      },
    ]);
  });

  it('builds the block with one of them and records it in the recipe', () => {
    const s = spec('BasicBlock');
    expect(s.validation?.status).toBe('passed');
    expect(s.validation?.recipe?.kwargs).toContainEqual({ name: 'conv_builder', value: '.Conv3DSimple' });
    expect(spec('Stage').validation?.status).toBe('passed');
  });

  it('publishes layer types by their upstream names, not the assembled module they ran in', () => {
    const types = spec('Stage').composition.layers.map((l) => l.type);
    expect(types).toContain('pkg.video.BasicBlock');
    expect(types).toContain('pkg.video.Conv3DSimple');
    expect(types.filter((t) => t.includes('__'))).toEqual([]);
  });
});
