// Constructor arguments inferred from how the class uses each parameter (pipeline/validate/python/nnblocks_runner/
// init_source.py, read by infer.py), through the real runner, sandbox and torch: each fixture is a pattern that left
// blocks of the paper corpus `needs-arguments` before (issue 23).
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const fixtures = {
  // mmdet's RTMDetInsHead: its own parameters, the rest handed on to the base by `**kwargs`. Its base's required
  // `num_classes` and `in_channels` were never guessed ("missing 2 required positional arguments").
  superForward: py`
    import torch.nn as nn
    class Head(nn.Module):
        def __init__(self, num_classes, in_channels, feat_channels=8):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, feat_channels, 3, padding=1)
            self.cls = nn.Conv2d(feat_channels, num_classes, 1)
        def forward(self, x):
            return self.cls(self.conv(x))
    class Block(Head):
        def __init__(self, *args, num_prototypes=4, **kwargs):
            super().__init__(*args, **kwargs)
            self.protos = nn.Conv2d(self.conv.out_channels, num_prototypes, 1)
  `,
  // The base gets its first argument from the subclass itself: only `in_channels` is left to the caller.
  superPartly: py`
    import torch.nn as nn
    class Head(nn.Module):
        def __init__(self, num_classes, in_channels):
            super().__init__()
            self.cls = nn.Conv2d(in_channels, num_classes, 1)
        def forward(self, x):
            return self.cls(x)
    class Block(Head):
        def __init__(self, scale=2, **kwargs):
            super().__init__(5, **kwargs)
  `,
  // A Hugging Face-style layer built from a config object it only reads attributes off, here and in its forward
  // (`self.config.is_decoder`): guessed as 16 before, "'int' object has no attribute 'hidden_size'".
  configObject: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            if config.hidden_size % config.num_attention_heads != 0:
                raise ValueError("heads must divide the width")
            self.config = config
            self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
            self.out = nn.Linear(config.intermediate_size, config.hidden_size)
            self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
            self.drop = nn.Dropout(config.hidden_dropout_prob)
            self.layers = nn.ModuleList(nn.Identity() for _ in range(config.num_hidden_layers))
        def forward(self, x):
            if self.config.is_decoder:
                raise ValueError("a decoder wants encoder states")
            return self.norm(x + self.drop(self.out(self.dense(x))))
  `,
  // The config handed on to the classes a layer builds (BertAttention -> BertSelfAttention) and used as the key of
  // module-level tables (`ATTENTION_CLASSES[config._attn_implementation]`, `ACT2FN[config.hidden_act]`).
  configHanded: py`
    import torch.nn as nn
    class EagerAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            if config.hidden_size % config.num_attention_heads != 0:
                raise ValueError("heads must divide the width")
            self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)
            self.heads = config.num_attention_heads
        def forward(self, x):
            q, k, v = self.qkv(x).chunk(3, -1)
            return nn.functional.scaled_dot_product_attention(q, k, v)
    ATTENTION = {"eager": EagerAttention}
    ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}
    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.attn = ATTENTION[config.attn_implementation](config)
            self.act = ACTIVATIONS[config.hidden_act]()
        def forward(self, x):
            return self.act(self.attn(x))
  `,
  // Unannotated parameters the class uses as sequences (mmseg's ASPP `dilations`, TinyViT's `resolution`), and a
  // count checked against one's length (HRNet's `num_branches != len(num_blocks)`); ints failed "'int' object is
  // not iterable", "cannot unpack non-iterable int object".
  sequences: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels, channels, dilations, num_branches, resolution):
            super().__init__()
            if num_branches != len(dilations):
                raise ValueError("one branch per dilation")
            self.resolution = resolution
            self.branches = nn.ModuleList(nn.Conv2d(in_channels, channels, 3, padding=d, dilation=d) for d in dilations)
        def forward(self, x):
            h, w = self.resolution
            assert x.shape[-2:] == (h, w)
            return torch.cat([b(x) for b in self.branches], 1)
  `,
  // A detection head whose channels default to an empty tuple that only holds a place (YOLO's `Detect(nc, ch=())`):
  // its defaults fail "tuple index out of range". `max(ch[0], ...)` compares `ch[0]`: a list of ints, not of lists.
  emptyDefault: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, nc=4, ch=()):
            super().__init__()
            self.stem = nn.Conv2d(ch[0], max(ch[0], min(nc, 100)), 1)
            self.m = nn.ModuleList(nn.Conv2d(c, nc, 1) for c in ch)
        def forward(self, x):
            return self.m[0](self.stem(x))
  `,
  // A depth that keys the class's own table of architectures (mmdet's ResNet `arch_settings[depth]`, `KeyError:
  // 2` before), and a class taken under a plural name, called and read (HRNet's `blocks`, "'int' object has no
  // attribute 'expansion'").
  tableKey: py`
    import torch.nn as nn
    class BasicBlock(nn.Module):
        expansion = 1
        def __init__(self, inplanes, planes):
            super().__init__()
            self.conv = nn.Conv2d(inplanes, planes, 3, padding=1)
        def forward(self, x):
            return x + self.conv(x)
    class Block(nn.Module):
        arch_settings = {18: (2, 2), 34: (3, 4)}
        def __init__(self, depth, blocks, width):
            super().__init__()
            stages = self.arch_settings[depth]
            self.stem = nn.Conv2d(3, width * blocks.expansion, 1)
            self.body = nn.Sequential(*[blocks(width, width) for _ in range(stages[0])])
        def forward(self, x):
            return self.body(self.stem(x))
  `,
  // The same table keyed by a `depth: int` (mmcv's ResNet and VGG): a depth of the table, not the count 2 that a
  // `depth` gets elsewhere ("invalid depth 2 for resnet").
  tableKeyInt: py`
    import torch.nn as nn
    class Block(nn.Module):
        arch_settings = {11: (1, 1), 13: (2, 2)}
        def __init__(self, depth: int):
            super().__init__()
            if depth not in self.arch_settings:
                raise KeyError(f"invalid depth {depth}")
            self.body = nn.Sequential(*[nn.Conv2d(3, 3, 1) for _ in self.arch_settings[depth]])
        def forward(self, x):
            return self.body(x)
  `,
  // A layer its callers always pass, with a None default the constructor calls (timm's `DownsampleAvg`, "'NoneType'
  // object is not callable"): a convolution, once the guesses without it failed.
  calledDefault: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_chs, out_chs, conv_layer=None):
            super().__init__()
            self.conv = conv_layer(in_chs, out_chs, 1)
        def forward(self, x):
            return self.conv(x)
  `,
  // An empty default whose elements are sequences too (YOLO's `Detect(nc=80, anchors=(), ch=())`, which takes
  // `len(anchors[0])`): a list of lists.
  nestedDefault: py`
    import torch, torch.nn as nn
    class Block(nn.Module):
        def __init__(self, nc=4, anchors=(), ch=()):
            super().__init__()
            self.nl = len(anchors)
            self.na = len(anchors[0]) // 2
            self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
            self.m = nn.ModuleList(nn.Conv2d(x, nc * self.na, 1) for x in ch)
        def forward(self, x):
            return self.m[0](x)
  `,
  // A position in what the block is fed (YOLO's `CBFuse(idx)`): the first, not a width.
  position: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, idx, out_channels):
            super().__init__()
            self.idx = idx
            self.conv = nn.Conv2d(1, out_channels, 1)
        def forward(self, x):
            return self.conv(x[:, self.idx : self.idx + 1])
  `,
  // A rate compared with a number, though a class of the module is named like it (mmpretrain's RepLKNet
  // `drop_path` beside its DropPath: "'>' not supported between instances of 'DropPath' and 'float'" before).
  rate: py`
    import torch.nn as nn
    class DropPath(nn.Module):
        def __init__(self, p=0.0):
            super().__init__()
            self.p = p
        def forward(self, x):
            return x
    class Block(nn.Module):
        def __init__(self, in_channels, drop_path):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, in_channels, 1)
            self.drop = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        def forward(self, x):
            return self.drop(self.conv(x))
  `,
  // OpenMMLab's config dicts as required parameters: None asks for the plain layer (guessed 16 before, "assert
  // conv_cfg is None or isinstance(conv_cfg, dict)" failed).
  configDicts: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels, channels, conv_cfg, norm_cfg, act_cfg):
            super().__init__()
            assert conv_cfg is None or isinstance(conv_cfg, dict)
            assert norm_cfg is None or isinstance(norm_cfg, dict)
            assert act_cfg is None or isinstance(act_cfg, dict)
            self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
            self.norm = nn.BatchNorm2d(channels) if norm_cfg else nn.Identity()
        def forward(self, x):
            return self.norm(self.conv(x))
  `,
  // Classes passed as `*_class` and `*_fn` (detectron2's RegNet `block_class`, `stem_class`): a class of
  // the module whose name shares a word, not 16 ("'int' object is not callable").
  classParams: py`
    import torch.nn as nn
    class SimpleStem(nn.Module):
        def __init__(self, w_in, w_out):
            super().__init__()
            self.conv = nn.Conv2d(w_in, w_out, 3, padding=1)
        def forward(self, x):
            return self.conv(x)
    class VanillaBlock(nn.Module):
        def __init__(self, w_in, w_out):
            super().__init__()
            self.conv = nn.Conv2d(w_in, w_out, 3, padding=1)
        def forward(self, x):
            return self.conv(x).relu()
    class Block(nn.Module):
        def __init__(self, stem_class, block_class, width):
            super().__init__()
            self.stem = stem_class(3, width)
            self.block = block_class(width, width)
        def forward(self, x):
            return self.block(self.stem(x))
  `,
};

let rec: Record<string, ValidationRecord>;

beforeAll(async () => {
  const { items } = fixtureItems(fixtures);
  rec = byName(await validateBlocks(items, baseOptions()));
});

describe('parameters a subclass hands on to its base', () => {
  it("takes the base's required parameters through `super().__init__(*args, **kwargs)`", () => {
    expect(rec.superForward.status).toBe('passed');
    expect(rec.superForward.recipe?.kwargs).toEqual({ num_classes: 10, in_channels: 3 });
  });

  it('leaves out what the subclass passes the base itself, by position or by name', () => {
    expect(rec.superPartly.status).toBe('passed');
    expect(rec.superPartly.recipe?.kwargs).toEqual({ in_channels: 3 });
  });
});

describe('parameters read as objects, sequences and counts', () => {
  it('builds an object of the attributes the class reads off a config parameter, each guessed by its name', () => {
    const r = rec.configObject;
    expect(r.status).toBe('passed');
    expect(r.recipe?.calls).toEqual(['config']);
    expect(r.recipe?.kwargs.config).toEqual({
      call: 'types.SimpleNamespace',
      kwargs: {
        hidden_size: 16,
        num_attention_heads: 2,
        intermediate_size: 16,
        layer_norm_eps: 1e-5,
        hidden_dropout_prob: 0,
        num_hidden_layers: 2,
        is_decoder: false, // read only as a truth value, in the forward through `self.config`
      },
    });
  });

  it('follows the config into the classes it is handed to, and gives a table key the first key of the table', () => {
    const r = rec.configHanded;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs.config).toEqual({
      call: 'types.SimpleNamespace',
      kwargs: { attn_implementation: 'eager', hidden_act: 'relu', hidden_size: 16, num_attention_heads: 2 },
    });
  });

  it('gives a list to a parameter the class iterates or unpacks, and the list length to a count of it', () => {
    const r = rec.sequences;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({
      in_channels: 3,
      channels: 16,
      dilations: [1, 1],
      num_branches: 2,
      resolution: [32, 32],
    });
  });

  it('fills a default that is an empty sequence with a list once the defaults fail', () => {
    expect(rec.emptyDefault.status).toBe('passed');
    expect(rec.emptyDefault.recipe?.kwargs).toEqual({ ch: [16, 16] });
  });

  it("gives a key of the class's table to the parameter that indexes it, and a class to one it calls", () => {
    expect(rec.tableKey.status).toBe('passed');
    expect(rec.tableKey.recipe?.kwargs).toEqual({ depth: 18, blocks: '.BasicBlock', width: 16 });
    expect(rec.tableKeyInt.status).toBe('passed');
    expect(rec.tableKeyInt.recipe?.kwargs).toEqual({ depth: 11 });
  });

  it('fills an empty default with a list of lists when its elements are sequences too', () => {
    expect(rec.nestedDefault.status).toBe('passed');
    expect(rec.nestedDefault.recipe?.kwargs).toMatchObject({
      anchors: [
        [16, 16],
        [16, 16],
      ],
      ch: [16, 16],
    });
  });

  it('gives a layer to a parameter whose None default the constructor calls, after the guesses without one', () => {
    expect(rec.calledDefault.status).toBe('passed');
    expect(rec.calledDefault.recipe).toMatchObject({ kwargs: { conv_layer: 'torch.nn.Conv2d' }, refs: ['conv_layer'] });
  });

  it('gives a number to a parameter compared with one, not an instance of the class named like it', () => {
    expect(rec.rate.status).toBe('passed');
    expect(rec.rate.recipe?.kwargs).toEqual({ in_channels: 3, drop_path: 0 });
  });

  it('gives a position 0', () => {
    expect(rec.position.status).toBe('passed');
    expect(rec.position.recipe?.kwargs).toEqual({ idx: 0, out_channels: 16 });
  });

  it('passes None for required OpenMMLab config dicts', () => {
    expect(rec.configDicts.status).toBe('passed');
    expect(rec.configDicts.recipe?.kwargs).toEqual({
      in_channels: 3,
      channels: 16,
      conv_cfg: null,
      norm_cfg: null,
      act_cfg: null,
    });
  });

  it('passes classes of the module for `*_class` parameters', () => {
    expect(rec.classParams.status).toBe('passed');
    expect(rec.classParams.recipe?.kwargs).toEqual({
      stem_class: '.SimpleStem',
      block_class: '.VanillaBlock',
      width: 16,
    });
    expect(rec.classParams.recipe?.refs).toEqual(['stem_class', 'block_class']);
  });
});
