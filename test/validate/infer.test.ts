// Argument and input inference (pipeline/validate/infer.py) through the real runner, sandbox and torch: layer
// references in `refs`, constructors inherited from torch layers, int lists, string choices and list inputs.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { toCatalog } from '../../pipeline/catalog/validation-record.ts';
import { py, writeTree } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

// A stack whose `block` parameter names a class of its own module: the recipe's `.Unit` reference must resolve in
// the extracted module *and*, for fidelity, in the original package.
const STACK = py`
  from typing import List, Type
  import torch.nn as nn
  class Unit(nn.Module):
      def __init__(self, width):
          super().__init__()
          self.conv = nn.Conv2d(width, width, 3, padding=1)
      def forward(self, x):
          return x + self.conv(x)
  class Stack(nn.Module):
      def __init__(self, block: Type[Unit], layers: List[int], width: int = 8):
          super().__init__()
          self.stem = nn.Conv2d(3, width, 1)
          self.body = nn.Sequential(*[block(width) for _ in range(sum(layers))])
      def forward(self, x):
          return self.body(self.stem(x))
`;
const upstream = writeTree({ 'upstream_pkg/__init__.py': '', 'upstream_pkg/stack.py': STACK });

const fixtures = {
  // Required layer factories, as torchvision writes them: no default, so no JSON value can build it.
  normLayer: py`
    from typing import Callable
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels: int, out_channels: int, norm_layer: Callable[..., nn.Module], activation_layer: Callable[..., nn.Module]):
            super().__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)
            self.norm = norm_layer(out_channels)
            self.act = activation_layer()
        def forward(self, x):
            return self.act(self.norm(self.conv(x)))
  `,
  // No __init__ of its own: normalized_shape comes from nn.LayerNorm through the MRO; channels-first input.
  layerNorm2d: py`
    import torch.nn as nn
    import torch.nn.functional as F
    class Block(nn.LayerNorm):
        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)
  `,
  stack: {
    code: STACK,
    className: 'Stack',
    original: { importRoot: upstream, module: 'upstream_pkg.stack', className: 'Stack' },
  },
  // A head over feature levels: forward takes a list of tensors, one per entry of in_channels.
  levels: py`
    from typing import List
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels: List[int], num_anchors: int):
            super().__init__()
            self.heads = nn.ModuleList(nn.Conv2d(c, num_anchors, 1) for c in in_channels)
        def forward(self, x: List[torch.Tensor]) -> torch.Tensor:
            return torch.cat([h(f).flatten(1) for h, f in zip(self.heads, x)], 1)
  `,
  // Feature maps by name, as torchvision's FeaturePyramidNetwork takes them: one per entry of in_channels_list.
  named: py`
    from typing import Dict, List
    import torch
    import torch.nn as nn
    from torch import Tensor
    class Block(nn.Module):
        def __init__(self, in_channels_list: List[int], out_channels: int):
            super().__init__()
            self.inner = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels_list)
        def forward(self, x: Dict[str, Tensor]) -> Dict[str, Tensor]:
            return {k: m(v) for m, (k, v) in zip(self.inner, x.items())}
  `,
  // An int forward argument (maxvit's WindowPartition): the input is cut into p x p windows.
  window: py`
    import torch.nn as nn
    from torch import Tensor
    class Block(nn.Module):
        def forward(self, x: Tensor, p: int) -> Tensor:
            B, C, H, W = x.shape
            return x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1).reshape(B, -1, p * p, C)
  `,
  // A string parameter whose valid values only appear in a comparison elsewhere in the module.
  mode: py`
    import torch
    import torch.nn as nn
    def drop(x, mode):
        if mode not in ["batch", "row"]:
            raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
        return x * 0.5
    class Block(nn.Module):
        def __init__(self, mode: str):
            super().__init__()
            self.mode = mode
            self.scale = nn.Parameter(torch.ones(1))
        def forward(self, x):
            return drop(x, self.mode) * self.scale
  `,
  // Built from a config object of its own module (torchvision's MBConv and MBConvConfig shape).
  configured: py`
    import torch.nn as nn
    class BlockConfig:
        def __init__(self, expand_ratio: float, kernel: int, input_channels: int, out_channels: int, use_se: bool):
            self.expand_ratio, self.kernel = expand_ratio, kernel
            self.input_channels, self.out_channels, self.use_se = input_channels, out_channels, use_se
    class Block(nn.Module):
        def __init__(self, cnf: BlockConfig, stochastic_depth_prob: float):
            super().__init__()
            hidden = int(cnf.input_channels * cnf.expand_ratio)
            self.expand = nn.Conv2d(cnf.input_channels, hidden, 1)
            self.dw = nn.Conv2d(hidden, hidden, cnf.kernel, padding=cnf.kernel // 2, groups=hidden)
            self.project = nn.Conv2d(hidden, cnf.out_channels, 1)
        def forward(self, x):
            return self.project(self.dw(self.expand(x)))
  `,
  // A detector: separate [C, H, W] images in a list, and a training mode that wants targets.
  detector: py`
    from typing import List, Optional
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
        def forward(self, images: List[torch.Tensor], targets: Optional[List[dict]] = None):
            if self.training and targets is None:
                raise ValueError("targets should not be none when in training mode")
            assert all(i.dim() == 3 for i in images), "images are [C, H, W]"
            return [self.conv(i[None])[0].mean(0) for i in images]
  `,
  // An image transform that only takes uint8 images, as its module says.
  uint8Only: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.gain = nn.Parameter(torch.ones(1))
        def forward(self, img):
            if img.dtype != torch.uint8:
                raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
            return img.float() / 255 * self.gain
  `,
  // Regions of interest in the [K, 5] format (image index, x1, y1, x2, y2): the runner must draw boxes that lie
  // inside the feature map and index its images, not noise.
  roiBoxes: py`
    import torch
    import torch.nn as nn
    from torch import Tensor
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.gain = nn.Parameter(torch.ones(1))
        def forward(self, features: Tensor, rois: Tensor) -> Tensor:
            assert rois.dim() == 2 and rois.shape[1] == 5, "rois are [K, 5]"
            n, _, h, w = features.shape
            out = []
            for i, x1, y1, x2, y2 in rois.tolist():
                assert i == int(i) and 0 <= i < n, "an image index"
                assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h, "a box inside the image"
                out.append(features[int(i), :, int(y1):int(y2) + 1, int(x1):int(x2) + 1].mean((1, 2)))
            return torch.stack(out) * self.gain
  `,
  // Per-image [K, 4] boxes, the image sizes they lie in, and feature maps under the names the constructor lists.
  perImageBoxes: py`
    from typing import Dict, List, Tuple
    import torch
    import torch.nn as nn
    from torch import Tensor
    class Block(nn.Module):
        def __init__(self, level_names: List[str]):
            super().__init__()
            self.level_names = level_names
            self.gain = nn.Parameter(torch.ones(1))
        def forward(self, feats: Dict[str, Tensor], boxes: List[Tensor], image_sizes: List[Tuple[int, int]]) -> Tensor:
            maps = [feats[n] for n in self.level_names]
            assert len(boxes) == len(image_sizes) == maps[0].shape[0], "one box set and one size per image"
            out = []
            for i, (b, size) in enumerate(zip(boxes, image_sizes)):
                assert isinstance(size, tuple) and b.shape[1] == 4
                h, w = size
                assert bool((b[:, 2] > b[:, 0]).all() and (b[:, 3] > b[:, 1]).all()), "x2 > x1, y2 > y1"
                assert bool((b >= 0).all() and (b[:, 2] <= w).all() and (b[:, 3] <= h).all()), "inside the image"
                area = ((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])).mean()
                out.append(sum(m[i].mean() for m in maps) * area)
            return torch.stack(out) * self.gain
  `,
  // A feature pyramid's neck (mmdet's FPN, written without annotations): one input level per width it was built
  // with, each half the size of the one before, which its top-down path adds up.
  pyramidNeck: py`
    import torch.nn as nn
    import torch.nn.functional as F
    class Block(nn.Module):
        def __init__(self, in_channels=(16, 32, 64), out_channels=8):
            super().__init__()
            self.in_channels = in_channels
            self.lateral = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)
        def forward(self, inputs):
            assert len(inputs) == len(self.in_channels)
            outs = [conv(x) for conv, x in zip(self.lateral, inputs)]
            for i in range(len(outs) - 1, 0, -1):
                outs[i - 1] = outs[i - 1] + F.interpolate(outs[i], scale_factor=2.0)
            return tuple(outs)
  `,
  // A padding mask beside the tokens: attention takes it as bool, and refuses integers.
  paddingMask: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        def forward(self, query, key_padding_mask):
            return self.attn(query, query, query, key_padding_mask=key_padding_mask)[0]
  `,
  // A Hugging Face layer built from its config: a config made outside `from_pretrained` names no attention
  // implementation, and the layer looks None up among the optimised ones (transformers' ViTAttention).
  hfConfig: py`
    import torch.nn as nn
    ALL_ATTENTION_FUNCTIONS = {"sdpa": None}
    class PretrainedConfig:
        def __init__(self, attn_implementation=None, **kwargs):
            self._attn_implementation = attn_implementation
    class TinyConfig(PretrainedConfig):
        def __init__(self, hidden_size=16, **kwargs):
            super().__init__(**kwargs)
            self.hidden_size = hidden_size
    class Block(nn.Module):
        def __init__(self, config: TinyConfig):
            super().__init__()
            self.config = config
            self.proj = nn.Linear(config.hidden_size, config.hidden_size)
        def forward(self, x):
            if self.config._attn_implementation != "eager":
                ALL_ATTENTION_FUNCTIONS[self.config._attn_implementation]
            return self.proj(x)
  `,
  // A Hugging Face model whose `config` has no annotation: its base declares the config class (`config: BertConfig`
  // on BertPreTrainedModel, which PreTrainedModel's __init_subclass__ turns into `config_class`; a string under
  // `from __future__ import annotations`). The config's defaults are the production model's; the probe's are small.
  hfDeclared: py`
    from __future__ import annotations
    import torch.nn as nn
    class PretrainedConfig:
        def __init__(self, attn_implementation=None, **kwargs):
            self._attn_implementation = attn_implementation
    class BigConfig(PretrainedConfig):
        def __init__(self, hidden_size=768, num_hidden_layers=12, **kwargs):
            super().__init__(**kwargs)
            self.hidden_size = hidden_size
            self.num_hidden_layers = num_hidden_layers
    class PreTrainedModel(nn.Module):
        config_class = None
        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__(**kwargs)
            own = cls.__dict__.get("__annotations__", {}).get("config")
            if own is not None:
                cls.config_class = own
    class BigPreTrainedModel(PreTrainedModel):
        config: BigConfig
    class Block(BigPreTrainedModel):
        def __init__(self, config, add_pooling_layer=True):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(config.hidden_size, config.hidden_size) for _ in range(config.num_hidden_layers))
        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
  `,
  // A graph layer applying the network it is given to pairs of features (PyG's EdgeConv: `nn: Callable`).
  featureNetwork: py`
    from typing import Callable
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, nn: Callable):
            super().__init__()
            self.nn = nn
        def forward(self, x):
            return self.nn(torch.cat([x, x.flip(0)], -1))
  `,
  // A foreground mask that selects: masked_select takes only bool (yolov9's BboxLoss), where arithmetic takes 0/1.
  foregroundMask: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(1))
        def forward(self, pred, target, fg_mask):
            picked = torch.masked_select(pred - target, fg_mask.unsqueeze(-1).expand_as(pred))
            return (picked * self.weight).abs().sum()
  `,
  // Level names beside the levels, which the forward extends in place (as FPN extra blocks do).
  levelNames: py`
    from typing import List, Tuple
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch import Tensor
    class Block(nn.Module):
        def __init__(self, channels: int):
            super().__init__()
            self.extra = nn.Conv2d(channels, channels, 3, 2, 1)
        def forward(self, levels: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
            assert len(names) == len(levels) and all(isinstance(n, str) for n in names), "a name per level"
            names.append("extra")
            levels.append(self.extra(F.relu(levels[-1])))
            return levels, names
  `,
  // A dict argument read with its own keys.
  readKeys: py`
    from typing import Dict
    import torch.nn as nn
    import torch.nn.functional as F
    from torch import Tensor
    class Block(nn.Module):
        def __init__(self, channels: int, classes: int):
            super().__init__()
            self.coarse = nn.Conv2d(channels, classes, 1)
            self.fine = nn.Conv2d(channels, classes, 1)
        def forward(self, maps: Dict[str, Tensor]) -> Tensor:
            coarse = self.coarse(maps["coarse"])
            return self.fine(maps["fine"]) + F.interpolate(coarse, size=maps["fine"].shape[-2:])
  `,
  // Two arguments of different widths, each handed straight to its own first layer.
  twoStems: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels_corr: int):
            super().__init__()
            self.flow_in = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU())
            self.corr_in = nn.Conv2d(in_channels_corr, 8, 1)
        def forward(self, flow, corr):
            return torch.cat([self.corr_in(corr), self.flow_in(flow)], dim=1)
  `,
  // A recurrent cell: state and input concatenated, so one layer's width splits between them; the state takes
  // the width hidden_size names, the input the rest. The cell is reached through a wrapper.
  gruCell: {
    code: py`
      import torch
      import torch.nn as nn
      class Gate(nn.Module):
          def __init__(self, hidden_size: int, input_channels: int):
              super().__init__()
              self.update = nn.Conv2d(hidden_size + input_channels, hidden_size, 3, padding=1)
          def forward(self, h, x):
              hx = torch.cat([h, x], dim=1)
              z = torch.sigmoid(self.update(hx))
              return (1 - z) * h + z * torch.tanh(h)
      class Cell(nn.Module):
          def __init__(self, hidden_size: int, input_channels: int):
              super().__init__()
              self.gate = Gate(hidden_size, input_channels)
          def forward(self, state, inp):
              state = self.gate(state, inp)
              return state
    `,
    className: 'Cell',
  },
  // Builtin generics and `X | None`, as torchvision 0.29 writes them: read as List[float], Tuple[int, int] (a size:
  // 32, the probes'), int.
  builtinGenerics: py`
    from __future__ import annotations
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, size: tuple[int, int], image_mean: list[float], image_std: list[float], dim: int | None):
            super().__init__()
            self.register_buffer("mean", __import__("torch").tensor(image_mean)[:, None, None])
            self.proj = nn.Conv2d(3, dim, 1)
            self.size = size
        def forward(self, x):
            return self.proj(x - self.mean)
  `,
  // A deformable convolution: offsets are one (dy, dx) per kernel tap, at the output's size.
  // `num_layers` ends like a list name (`layers`) but is a count.
  layerCount: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, c1, num_layers):
            super().__init__()
            self.body = nn.Sequential(*[nn.Linear(c1, c1) for _ in range(num_layers)])
        def forward(self, x):
            return self.body(x)
  `,
  // A loss wrapping another loss instance, whose `reduction` it reads and sets (focal losses).
  lossWrapper: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, loss_fcn, gamma=1.5):
            super().__init__()
            self.loss_fcn, self.gamma = loss_fcn, gamma
            self.reduction = loss_fcn.reduction
            self.loss_fcn.reduction = "none"
        def forward(self, pred, true):
            loss = self.loss_fcn(pred, true)
            return (loss * (1 - torch.exp(-loss)) ** self.gamma).mean()
  `,
  // An unannotated size the constructor indexes (Swin's window attention): a pair, after the plain int.
  windowPair: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim, window_size, num_heads):
            super().__init__()
            self.area = window_size[0] * window_size[1]
            self.bias = nn.Parameter(torch.zeros(num_heads, self.area, self.area))
            self.qkv = nn.Linear(dim, dim * 3)
        def forward(self, x):
            q, k, v = self.qkv(x).chunk(3, -1)
            return (q @ k.transpose(-2, -1)).softmax(-1) @ v
  `,
  // A token sequence with its spatial size (PVT, SegFormer): x is [B, H*W, C], H and W are ints.
  tokensHW: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.dw = nn.Conv2d(dim, dim, 3, padding=1, groups=dim)
        def forward(self, x, H, W):
            B, N, C = x.shape
            y = self.norm(x).transpose(1, 2).reshape(B, C, H, W)
            return x + self.dw(y).flatten(2).transpose(1, 2)
  `,
  tokensPair: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.dw = nn.Conv2d(dim, dim, 3, padding=1, groups=dim)
        def forward(self, x, hw_shape):
            h, w = hw_shape
            y = self.proj(x).transpose(1, 2).unflatten(2, (h, w))
            return self.dw(y).flatten(2).transpose(1, 2)
  `,
  // A graph layer as PyG writes them: node features [N, C], edges as [2, E] node indices, a scatter index.
  graphConv: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_channels: int, out_channels: int):
            super().__init__()
            self.lin = nn.Linear(in_channels, out_channels)
        def forward(self, x, edge_index, batch):
            assert edge_index.dtype == torch.long and edge_index.shape[0] == 2
            assert int(edge_index.max()) < x.shape[0] and batch.shape == x.shape[:1]
            src, dst = edge_index
            out = torch.zeros_like(x).index_add_(0, dst, x[src])
            return self.lin(out + x) + batch.float().unsqueeze(-1)
  `,
  deformable: py`
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class Block(nn.Module):
        def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 2, padding: int = 0):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(out_channels, in_channels, kernel_size, kernel_size))
            self.stride, self.padding, self.dilation = (stride, stride), (padding, padding), (1, 1)
        def forward(self, input, offset):
            out = F.conv2d(input, self.weight, stride=self.stride, padding=self.padding)
            taps = self.weight.shape[2] * self.weight.shape[3]
            assert offset.shape[1] == 2 * taps and offset.shape[-2:] == out.shape[-2:], "offsets per tap and pixel"
            return out + offset.mean(1, keepdim=True)
  `,
};

let rec: Record<string, ValidationRecord>;

beforeAll(async () => {
  const { items } = fixtureItems(fixtures);
  rec = byName(await validateBlocks(items, baseOptions()));
});

describe('inference of constructor arguments', () => {
  it('guesses a count for `num_layers`, not a list, though the name ends like one', () => {
    expect(rec.layerCount.status).toBe('passed');
    expect(rec.layerCount.recipe?.kwargs).toEqual({ c1: 16, num_layers: 2 });
  });

  it('passes required norm and activation layers as references to torch.nn classes', () => {
    const r = rec.normLayer;
    expect(r.status).toBe('passed');
    expect(r.recipe).toEqual({
      seed: 0,
      origin: 'inference',
      kwargs: {
        in_channels: 3,
        out_channels: 16,
        norm_layer: 'torch.nn.BatchNorm2d',
        activation_layer: 'torch.nn.ReLU',
      },
      refs: ['norm_layer', 'activation_layer'],
      inputs: [{ shape: [2, 3, 32, 32], dtype: 'float32' }],
    });
    expect(r.moduleTree?.children.norm.type).toBe('torch.nn.BatchNorm2d');
    // The catalog keeps the references, so a replay knows which kwargs to import.
    expect(toCatalog(r).recipe?.refs).toEqual(['norm_layer', 'activation_layer']);
  });

  it('reads the constructor of a torch layer subclass through the MRO and feeds it channels-first', () => {
    const r = rec.layerNorm2d;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ normalized_shape: 16 });
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 16, 32, 32], dtype: 'float32' }]);
  });

  it("refers to a class of the block's own module relatively, so the original replays identically", () => {
    const r = rec.stack;
    expect(r.status).toBe('passed');
    expect(r.recipe).toMatchObject({ kwargs: { block: '.Unit', layers: [1, 1] }, refs: ['block'] });
    expect(r.fidelity.status).toBe('identical');
  });

  it('reads builtin generics and `X | None` as typing writes them (`list[float]` is List[float])', () => {
    const r = rec.builtinGenerics;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({
      size: [32, 32],
      image_mean: [0.5, 0.5, 0.5],
      image_std: [0.25, 0.25, 0.25],
      dim: 16,
    });
  });

  it('passes a torch loss instance for a loss-function parameter, built by the recipe', () => {
    const r = rec.lossWrapper;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ loss_fcn: { call: 'torch.nn.BCEWithLogitsLoss', kwargs: {} } });
    expect(r.recipe?.calls).toEqual(['loss_fcn']);
  });

  it('tries an unannotated `*_size` as a pair when the int does not build', () => {
    const r = rec.windowPair;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ dim: 16, window_size: [4, 4], num_heads: 2 });
  });

  it('picks a string parameter among the literals the module compares it with', () => {
    expect(rec.mode.status).toBe('passed');
    expect(rec.mode.recipe?.kwargs).toEqual({ mode: 'batch' });
    expect(rec.mode.recipe?.refs).toBeUndefined(); // no references: the field stays absent
  });
});

describe('inference of forward inputs', () => {
  it('feeds a List[Tensor] argument one tensor per level, as many as the list arguments are long', () => {
    const r = rec.levels;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ in_channels: [3, 3], num_anchors: 3 });
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 3, 32, 32], dtype: 'float32', list: 2 }]);
    expect(r.outputs[0].shape).toEqual([2, 2 * 3 * 32 * 32]);
    expect(r.gradients).toEqual({ withGrad: 4, without: 0, mode: 'train' });
  });
});

describe('feature pyramids and padding masks', () => {
  it('feeds a neck one level per width it keeps, each half the size of the one before', () => {
    const r = rec.pyramidNeck;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.inputs).toEqual([
      {
        shape: [2, 16, 32, 32],
        dtype: 'float32',
        levels: [
          [2, 16, 32, 32],
          [2, 32, 16, 16],
          [2, 64, 8, 8],
        ],
      },
    ]);
    expect(r.outputs.map((o) => o.shape)).toEqual([
      [2, 8, 32, 32],
      [2, 8, 16, 16],
      [2, 8, 8, 8],
    ]);
  });

  it('builds a Hugging Face config with the eager attention', () => {
    const r = rec.hfConfig;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.kwargs.config).toEqual({
      call: '.TinyConfig',
      kwargs: { attn_implementation: 'eager', hidden_size: 32 },
    });
  });

  it('builds the config class a Hugging Face model declares for its unannotated `config`, small', () => {
    const r = rec.hfDeclared;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.kwargs.config).toEqual({
      call: '.BigConfig',
      kwargs: { attn_implementation: 'eager', hidden_size: 32, num_hidden_layers: 2 },
    });
  });

  it("gives a graph layer's `nn` a lazy linear layer, and a probe of a real width", () => {
    const r = rec.featureNetwork;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.kwargs.nn).toMatchObject({ call: 'torch.nn.LazyLinear' });
    expect(r.recipe?.inputs[0].shape.at(-1)).toBeGreaterThan(0); // not the lazy layer's in_features 0
    expect(r.params).toBeGreaterThan(0);
  });

  it('tries a mask as bool when 0/1 integers fail: a selecting mask', () => {
    const r = rec.foregroundMask;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.inputs[2]).toMatchObject({ dtype: 'bool' });
  });

  it('draws a padding mask as bool', () => {
    const r = rec.paddingMask;
    expect(r.status, r.failureDetail ?? '').toBe('passed');
    expect(r.recipe?.inputs[1]).toMatchObject({ dtype: 'bool' });
  });
});

describe('named and integer inputs', () => {
  it('feeds a Dict[str, Tensor] argument one tensor per level under the keys "0", "1"...', () => {
    const r = rec.named;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 16, 32, 32], dtype: 'float32', keys: ['0', '1'] }]);
  });

  it('passes a plain int for an int argument, with an input its windows divide', () => {
    const r = rec.window;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs[1]).toEqual({ shape: [], dtype: 'int64', value: 2 });
  });
});

describe('token sequences with their spatial size', () => {
  it('gives `x, H, W` tokens of an H x W grid and H and W as ints', () => {
    const r = rec.tokensHW;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 64, 16], dtype: 'float32' },
      { shape: [], dtype: 'int64', value: 8 },
      { shape: [], dtype: 'int64', value: 8 },
    ]);
  });

  it('gives `x, hw_shape` the grid as a pair', () => {
    const r = rec.tokensPair;
    expect(r.status, JSON.stringify(toCatalog(r))).toBe('passed');
    expect(r.recipe?.inputs[1]).toEqual({ shape: [], dtype: 'int64', value: { tuple: [8, 8] } });
  });
});

describe('graph inputs', () => {
  it('gives `edge_index` [2, E] node indices below the nodes, and a `batch` index per node', () => {
    const r = rec.graphConv;
    expect(r.status).toBe('passed');
    const [x, edges, batch] = r.recipe!.inputs;
    expect(edges).toEqual({ shape: [2, 8], dtype: 'int64', high: x.shape[0] });
    expect(batch).toEqual({ shape: [x.shape[0]], dtype: 'int64', high: x.shape[0] });
  });
});

describe('config objects', () => {
  it('builds a config object of its own module for a parameter annotated with it, and records the call', () => {
    const r = rec.configured;
    expect(r.status).toBe('passed');
    expect(r.recipe?.calls).toEqual(['cnf']);
    expect(r.recipe?.kwargs.cnf).toEqual({
      call: '.BlockConfig',
      kwargs: { expand_ratio: 2, kernel: 3, input_channels: 3, out_channels: 16, use_se: false },
    });
    expect(toCatalog(r).recipe?.calls).toEqual([
      {
        name: 'cnf',
        target: '.BlockConfig',
        kwargs: [
          { name: 'expand_ratio', value: 2 },
          { name: 'kernel', value: 3 },
          { name: 'input_channels', value: 3 },
          { name: 'out_channels', value: 16 },
          { name: 'use_se', value: false },
        ],
      },
    ]);
  });
});

describe('inputs the code asks for', () => {
  it('gives a detector a list of [C, H, W] images, and checks its gradients in eval mode when training wants targets', () => {
    const r = rec.detector;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([{ shape: [3, 32, 32], dtype: 'float32', list: 2 }]);
    expect(r.gradients).toMatchObject({ withGrad: 2, without: 0, mode: 'eval' });
    expect(r.gradients?.trainError).toContain('targets should not be none when in training mode');
  });

  it('feeds uint8 images to a block whose module says uint8', () => {
    expect(rec.uint8Only.status).toBe('passed');
    expect(rec.uint8Only.recipe?.inputs).toEqual([{ shape: [2, 3, 32, 32], dtype: 'uint8', high: 256 }]);
  });
});

describe('boxes, literals, keys and widths the forward asks for', () => {
  it('draws [K, 5] regions of interest inside the image, indexing its images, for a `rois` argument', () => {
    const r = rec.roiBoxes;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 3, 32, 32], dtype: 'float32' },
      { shape: [8, 5], dtype: 'float32', boxes: 32, high: 2 },
    ]);
    expect(r.outputs[0].shape).toEqual([8, 3]);
  });

  it('gives List[Tensor] boxes one [K, 4] set per image, the image sizes as int pairs, dict keys the constructor names', () => {
    const r = rec.perImageBoxes;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ level_names: ['0', '1'] });
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 3, 32, 32], dtype: 'float32', keys: ['0', '1'] },
      { shape: [4, 4], dtype: 'float32', boxes: 32, list: 2 },
      {
        shape: [],
        dtype: 'int64',
        value: [
          [32, 32],
          [32, 32],
        ],
      },
    ]);
  });

  it('passes level names as a list of strings, and records them as given though the forward appends to them', () => {
    const r = rec.levelNames;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 16, 32, 32], dtype: 'float32', list: 2 },
      { shape: [], dtype: 'int64', value: ['0', '1'] },
    ]);
    expect(r.outputs).toHaveLength(3); // two levels in, one appended
  });

  it('keys a dict argument with the string keys its forward reads', () => {
    const r = rec.readKeys;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([{ shape: [2, 16, 32, 32], dtype: 'float32', keys: ['coarse', 'fine'] }]);
  });

  it('gives each argument the channels of the layer the forward hands it to', () => {
    const r = rec.twoStems;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ in_channels_corr: 16 });
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 2, 32, 32], dtype: 'float32' },
      { shape: [2, 16, 32, 32], dtype: 'float32' },
    ]);
  });

  it("splits a concatenation's channels: hidden_size for the state, the rest for the input, through a wrapper", () => {
    const r = rec.gruCell;
    expect(r.status).toBe('passed');
    expect(r.recipe?.kwargs).toEqual({ hidden_size: 16, input_channels: 3 });
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 16, 32, 32], dtype: 'float32' },
      { shape: [2, 3, 32, 32], dtype: 'float32' },
    ]);
  });

  it("gives a deformable convolution's offsets two channels per kernel tap at the output's size", () => {
    const r = rec.deformable;
    expect(r.status).toBe('passed');
    expect(r.recipe?.inputs).toEqual([
      { shape: [2, 3, 32, 32], dtype: 'float32' },
      { shape: [2, 18, 15, 15], dtype: 'float32' },
    ]);
  });
});
