// Forward inputs read off what the block's source says (pipeline/validate/python/nnblocks_runner/forward_source.py,
// read by inputs.py), through the real runner, sandbox and torch: each fixture is a pattern that left blocks of the
// paper corpus `forward-error` before (issue 23): the rank a forward unpacks its input's shape into, and the image
// size a ViT-style model is built for.
import { beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const fixtures = {
  // LeViT's attention: `B, N, C = x.shape` on tokens of a fixed grid (`resolution`: 7 x 7 = 49 tokens, the size of
  // its attention biases); the 4-d branch is the one `if self.use_conv` does not take. The probes of its first
  // linear layer ([2, 16], [2, 8, 16], [2, 16, 16]) failed "not enough values to unpack (expected 3, got 2)" and
  // "The size of tensor a (8) must match the size of tensor b (49)".
  tokens: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim, resolution=7, use_conv=False):
            super().__init__()
            self.use_conv = use_conv
            self.resolution = (resolution, resolution)
            self.qkv = nn.Linear(dim, dim * 3)
            self.biases = nn.Parameter(torch.zeros(resolution ** 2, resolution ** 2))
        def forward(self, x):
            if self.use_conv:
                B, C, H, W = x.shape
                x = x.flatten(2).transpose(1, 2)
            else:
                B, N, C = x.shape
            q, k, v = self.qkv(x).chunk(3, -1)
            return ((q @ k.transpose(1, 2)) + self.biases).softmax(-1) @ v
  `,
  // LeViT's block: the unpacking is in the attention it hands its (normed) input to, a submodule deeper.
  handed: py`
    import torch
    import torch.nn as nn
    class Attention(nn.Module):
        def __init__(self, dim, resolution):
            super().__init__()
            self.resolution = resolution
            self.proj = nn.Linear(dim, dim)
            self.biases = nn.Parameter(torch.zeros(resolution ** 2, 1))
        def forward(self, x):
            B, N, C = x.shape
            return self.proj(x) * self.biases
    class Block(nn.Module):
        def __init__(self, dim, resolution=5):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.attn = Attention(dim, resolution)
        def forward(self, x):
            return x + self.attn(self.norm(x))
  `,
  // BEiT's window attention: window_size tokens and a class token (4 x 4 + 1); its relative position bias is
  // sized for exactly that many.
  classToken: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, embed_dims, window_size):
            super().__init__()
            wh, ww = window_size
            self.window_size = window_size
            self.qkv = nn.Linear(embed_dims, embed_dims * 3)
            self.bias = nn.Parameter(torch.zeros(wh * ww + 1, wh * ww + 1))
        def forward(self, x):
            B, N, C = x.shape
            q, k, v = self.qkv(x).chunk(3, -1)
            return ((q @ k.transpose(1, 2)) + self.bias).softmax(-1) @ v
  `,
  // timm's AttentionPool2d: `B, _, H, W = x.shape`, a feature map whose channels its first linear layer takes.
  featureMap: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, in_features=24):
            super().__init__()
            self.q = nn.Linear(in_features, 8)
        def forward(self, x):
            B, _, H, W = x.shape
            return self.q(x.flatten(2).transpose(1, 2)).mean(1)
  `,
  // mmocr's SVTREncoder: positional embeddings for the image size it is built for (32 x 48 here): 32 x 32 probes
  // failed "The size of tensor a (2) must match the size of tensor b (3)".
  imageSize: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, img_size=[32, 48], in_channels=3, embed_dims=8):
            super().__init__()
            self.patch = nn.Conv2d(in_channels, embed_dims, 16, 16)
            self.pos = nn.Parameter(torch.zeros(1, embed_dims, img_size[0] // 16, img_size[1] // 16))
        def forward(self, x):
            return self.patch(x) + self.pos
  `,
  // Segment Anything's ImageEncoderViT: img_size=1024 by default, too big to run; built at 64 pixels and fed 64.
  bigImage: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, img_size=1024, patch_size=16, in_chans=3, embed_dim=8):
            super().__init__()
            self.patch = nn.Conv2d(in_chans, embed_dim, patch_size, patch_size)
            self.pos = nn.Parameter(torch.zeros(1, embed_dim, img_size // patch_size, img_size // patch_size))
        def forward(self, x):
            return self.patch(x) + self.pos
  `,
  // mmpretrain's SimMIM and BEiT pre-training ViTs: a mask over the patch grid beside the image ([2, 3] before:
  // "The size of tensor a (4) must match the size of tensor b (3)").
  patchMask: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, img_size=32, embed_dims=8):
            super().__init__()
            self.patch = nn.Conv2d(3, embed_dims, 8, 8)
            self.mask_token = nn.Parameter(torch.zeros(embed_dims))
            self.pos = nn.Parameter(torch.zeros(1, (img_size // 8) ** 2, embed_dims))
        def forward(self, x, mask):
            x = self.patch(x).flatten(2).transpose(1, 2)
            w = mask.flatten(1).unsqueeze(-1).float()
            return x * (1 - w) + self.mask_token * w + self.pos
  `,
  // Hugging Face's embeddings: every forward argument optional, the first None, and None raises (`input_ids.size()`
  // on None: BertEmbeddings and CLIPTextEmbeddings failed "'NoneType' object has no attribute 'size'").
  allOptional: py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, vocab_size=50, hidden_size=8):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
            self.norm = nn.LayerNorm(hidden_size)
        def forward(self, input_ids=None, inputs_embeds=None):
            if inputs_embeds is None:
                inputs_embeds = self.word_embeddings(input_ids)
            return self.norm(inputs_embeds)
  `,
  // OpenMMLab's data preprocessors: `data: dict` read by key, `data['inputs']` a batch of images and
  // `data['data_samples']` records (None, or objects with `set_metainfo`), so a tensor under every key read fails
  // where the one under `inputs` alone passes. Given a tensor, they failed "too many indices for tensor".
  dataDict: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer('mean', torch.zeros(3, 1, 1))
            self.scale = nn.Parameter(torch.ones(1))
        def forward(self, data: dict, training: bool = False) -> dict:
            inputs = (data['inputs'] - self.mean) * self.scale
            samples = data.get('data_samples')
            if samples is not None:
                for s in samples:
                    s.set_metainfo({'shape': inputs.shape})
            return {'inputs': inputs, 'data_samples': data['data_samples'] if 'data_samples' in data else None}
  `,
};

let rec: Record<string, ValidationRecord>;

beforeAll(async () => {
  const { items } = fixtureItems(fixtures);
  rec = byName(await validateBlocks(items, baseOptions()));
});

describe('the rank a forward unpacks its input into', () => {
  it('feeds tokens of the grid a `resolution` names, in the branch the module takes', () => {
    expect(rec.tokens.status).toBe('passed');
    expect(rec.tokens.recipe?.inputs).toEqual([{ shape: [2, 49, 16], dtype: 'float32' }]);
  });

  it('reads the unpacking in the submodule the forward hands its input to', () => {
    expect(rec.handed.status).toBe('passed');
    expect(rec.handed.recipe?.inputs).toEqual([{ shape: [2, 25, 16], dtype: 'float32' }]);
  });

  it('tries a class token beside the tokens of a window', () => {
    expect(rec.classToken.status).toBe('passed');
    expect(rec.classToken.recipe?.inputs).toEqual([{ shape: [2, 17, 16], dtype: 'float32' }]);
  });

  it('puts the channels where the unpacked names say, with the width of its first layer', () => {
    expect(rec.featureMap.status).toBe('passed');
    expect(rec.featureMap.recipe?.inputs).toEqual([{ shape: [2, 24, 32, 32], dtype: 'float32' }]);
  });
});

describe('the image size a model is built for', () => {
  it("feeds images of the constructor's image size", () => {
    expect(rec.imageSize.status).toBe('passed');
    expect(rec.imageSize.recipe?.inputs).toEqual([{ shape: [2, 3, 32, 48], dtype: 'float32' }]);
  });

  it('gives a mask one value per patch of the image', () => {
    expect(rec.patchMask.status).toBe('passed');
    expect(rec.patchMask.recipe?.inputs).toEqual([
      { shape: [2, 3, 32, 32], dtype: 'float32' },
      { shape: [2, 4, 4], dtype: 'int64', high: 2 },
    ]);
  });

  it('builds a model of a big default image size at 64 pixels, and feeds it 64', () => {
    expect(rec.bigImage.status).toBe('passed');
    expect(rec.bigImage.recipe?.kwargs).toEqual({ img_size: 64 });
    expect(rec.bigImage.recipe?.inputs).toEqual([{ shape: [2, 3, 64, 64], dtype: 'float32' }]);
  });
});

describe('a forward whose every argument is optional', () => {
  it('gets its first argument once nothing fails: token ids below the vocabulary of its first embedding', () => {
    expect(rec.allOptional.status, rec.allOptional.failureDetail ?? undefined).toBe('passed');
    expect(rec.allOptional.recipe?.inputs).toEqual([{ shape: [2, 16], dtype: 'int64', high: 50 }]);
  });
});

describe('a forward reading a dict argument by key', () => {
  it('gets tensors under the keys it reads, then under the first alone', () => {
    expect(rec.dataDict.status, rec.dataDict.failureDetail ?? undefined).toBe('passed');
    expect(rec.dataDict.recipe?.inputs).toEqual([{ shape: [2, 3, 32, 32], dtype: 'float32', keys: ['inputs'] }]);
  });
});
