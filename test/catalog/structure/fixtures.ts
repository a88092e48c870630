// A tiny package with one class per structural form the taxonomy matches, each written the way a real repository
// writes it (named in the comment) but renamed, so that no name rule can fire: what lands in a method does by its
// structure. Near misses sit beside them. Shared by rules.test.ts and category tests.
import { py } from '../../helpers/tree.ts';

export const STRUCTURE_FIXTURE = {
  'pkg/__init__.py': '',
  'pkg/layers.py': py`
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def create_act_layer(name):
        return nn.Sigmoid()

    class ConvModule(nn.Module):
        def __init__(self, cin, cout, k=1, act_cfg=dict(type='ReLU')):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k)
            self.bn = nn.BatchNorm2d(cout)
            self.act = nn.ReLU()
        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Attention(nn.Module):
        def __init__(self, dim, heads=8):
            super().__init__()
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)
        def forward(self, x):
            q, k, v = self.qkv(x).chunk(3, -1)
            attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
            return self.proj(attn @ v)

    class Mlp(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc1 = nn.Linear(dim, dim * 4)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(dim * 4, dim)
        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))
  `,
  'pkg/gates.py': py`
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from .layers import ConvModule, create_act_layer

    # timm's SEModule: mean over H and W, two 1x1 convs, a gate made by a factory from its default name.
    class GateA(nn.Module):
        def __init__(self, channels, rd=8, gate_layer='sigmoid'):
            super().__init__()
            self.fc1 = nn.Conv2d(channels, rd, 1)
            self.act = nn.ReLU(inplace=True)
            self.fc2 = nn.Conv2d(rd, channels, 1)
            self.gate = create_act_layer(gate_layer)
        def forward(self, x):
            x_se = x.mean((2, 3), keepdim=True)
            x_se = self.fc2(self.act(self.fc1(x_se)))
            return x * self.gate(x_se)

    # detectron2's SE: an adaptive pool and a Sequential that ends in a Sigmoid.
    class GateB(nn.Module):
        def __init__(self, w_in, w_se, act_fn):
            super().__init__()
            self.avg_pool = nn.AdaptiveAvgPool2d((1, 1))
            self.f_ex = nn.Sequential(nn.Conv2d(w_in, w_se, 1), act_fn(), nn.Conv2d(w_se, w_in, 1), nn.Sigmoid())
        def forward(self, x):
            return x * self.f_ex(self.avg_pool(x))

    # mmpretrain's SELayer: the sigmoid hides in the second ConvModule's act_cfg default.
    class GateC(nn.Module):
        def __init__(self, channels, ratio=16, act_cfg=(dict(type='ReLU'), dict(type='Sigmoid'))):
            super().__init__()
            self.global_avgpool = nn.AdaptiveAvgPool2d(1)
            self.conv1 = ConvModule(channels, channels // ratio, act_cfg=act_cfg[0])
            self.conv2 = ConvModule(channels // ratio, channels, act_cfg=act_cfg[1])
        def forward(self, x):
            out = self.global_avgpool(x)
            out = self.conv2(self.conv1(out))
            return x * out

    # ECA-Net's eca_layer: pooled channels as a sequence through a 1-d conv.
    class ChannelMixA(nn.Module):
        def __init__(self, channel, k_size=3):
            super().__init__()
            self.avg_pool = nn.AdaptiveAvgPool2d(1)
            self.conv = nn.Conv1d(1, 1, kernel_size=k_size, padding=(k_size - 1) // 2, bias=False)
            self.sigmoid = nn.Sigmoid()
        def forward(self, x):
            y = self.avg_pool(x)
            y = self.conv(y.squeeze(-1).transpose(-1, -2)).transpose(-1, -2).unsqueeze(-1)
            y = self.sigmoid(y)
            return x * y.expand_as(x)

    # A research codebase's ECAModule: torch.mean over the last two dims, F.sigmoid.
    class ChannelMixB(nn.Module):
        def __init__(self, channels, kernel_size=7):
            super().__init__()
            self.conv = nn.Conv1d(1, 1, kernel_size=kernel_size, padding=kernel_size // 2)
        def forward(self, x):
            avg = torch.mean(x, dim=(-1, -2)).unsqueeze(-1).transpose(-1, -2)
            scale = F.sigmoid(self.conv(avg).transpose(-1, -2).unsqueeze(-1))
            return x * scale.expand_as(x)

    # Near miss, timm's CoordAttn: H and W pooled apart (coordinate attention), not a squeeze.
    class AxisGate(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 1)
        def forward(self, x):
            x_h = x.mean(3, keepdim=True)
            x_w = x.mean(2, keepdim=True)
            a = self.conv(x_h * x_w).sigmoid()
            return x * a

    # Near miss, GCNet's context: a softmax over positions pools, not a mean.
    class ContextGate(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv_mask = nn.Conv2d(channels, 1, 1)
            self.softmax = nn.Softmax(dim=2)
            self.fc = nn.Conv2d(channels, channels, 1)
        def forward(self, x):
            mask = self.softmax(self.conv_mask(x).flatten(2))
            context = torch.matmul(x.flatten(2), mask.transpose(1, 2))
            return x * torch.sigmoid(self.fc(context))

    # CBAM in one forward (the attention-module repository's gates, inlined).
    class DualGate(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.mlp = nn.Sequential(nn.Conv2d(channels, channels // 8, 1), nn.ReLU(), nn.Conv2d(channels // 8, channels, 1))
            self.spatial = nn.Conv2d(2, 1, 7, padding=3)
        def forward(self, x):
            x = x * torch.sigmoid(self.mlp(F.adaptive_avg_pool2d(x, 1)))
            pooled = torch.cat([torch.max(x, 1)[0].unsqueeze(1), torch.mean(x, 1).unsqueeze(1)], dim=1)
            return x * torch.sigmoid(self.spatial(pooled))

    # ultralytics' ChannelAttention and SpatialAttention, composed by a third class (their CBAM).
    class ChannelPart(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Conv2d(channels, channels, 1)
            self.act = nn.Sigmoid()
        def forward(self, x):
            return x * self.act(self.fc(self.pool(x)))

    class SpatialPart(nn.Module):
        def __init__(self, kernel_size=7):
            super().__init__()
            self.cv1 = nn.Conv2d(2, 1, kernel_size, padding=kernel_size // 2)
            self.act = nn.Sigmoid()
        def forward(self, x):
            return x * self.act(self.cv1(torch.cat([torch.mean(x, 1, keepdim=True), torch.max(x, 1, keepdim=True)[0]], 1)))

    class TwoGates(nn.Module):
        def __init__(self, c1, kernel_size=7):
            super().__init__()
            self.channel_attention = ChannelPart(c1)
            self.spatial_attention = SpatialPart(kernel_size)
        def forward(self, x):
            return self.spatial_attention(self.channel_attention(x))

    # The attention-module repository's CBAM (Woo et al.'s own code): the channel gate pools with F.avg_pool2d and
    # F.max_pool2d in a loop over pool types, the spatial gate compresses with a ChannelPool child, and CBAM holds the
    # two under attributes named like their classes.
    class PooledGate(nn.Module):
        def __init__(self, gate_channels, reduction_ratio=16, pool_types=['avg', 'max']):
            super().__init__()
            self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(gate_channels, gate_channels // reduction_ratio), nn.ReLU())
            self.pool_types = pool_types
        def forward(self, x):
            channel_att_sum = None
            for pool_type in self.pool_types:
                if pool_type == 'avg':
                    avg_pool = F.avg_pool2d(x, (x.size(2), x.size(3)), stride=(x.size(2), x.size(3)))
                    channel_att_raw = self.mlp(avg_pool)
                elif pool_type == 'max':
                    max_pool = F.max_pool2d(x, (x.size(2), x.size(3)), stride=(x.size(2), x.size(3)))
                    channel_att_raw = self.mlp(max_pool)
                if channel_att_sum is None:
                    channel_att_sum = channel_att_raw
                else:
                    channel_att_sum = channel_att_sum + channel_att_raw
            scale = F.sigmoid(channel_att_sum).unsqueeze(2).unsqueeze(3).expand_as(x)
            return x * scale

    class ChannelPool(nn.Module):
        def forward(self, x):
            return torch.cat((torch.max(x, 1)[0].unsqueeze(1), torch.mean(x, 1).unsqueeze(1)), dim=1)

    class CompressGate(nn.Module):
        def __init__(self):
            super().__init__()
            self.compress = ChannelPool()
            self.spatial = ConvModule(2, 1, 7)
        def forward(self, x):
            x_compress = self.compress(x)
            x_out = self.spatial(x_compress)
            scale = F.sigmoid(x_out)
            return x * scale

    class GatePair(nn.Module):
        def __init__(self, gate_channels, no_spatial=False):
            super().__init__()
            self.PooledGate = PooledGate(gate_channels)
            self.no_spatial = no_spatial
            if not no_spatial:
                self.CompressGate = CompressGate()
        def forward(self, x):
            x_out = self.PooledGate(x)
            if not self.no_spatial:
                x_out = self.CompressGate(x_out)
            return x_out

    # One of each: the channel gate inline, the spatial gate a child.
    class MixedGates(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.fc = nn.Conv2d(channels, channels, 1)
            self.spatial_attention = SpatialPart(7)
        def forward(self, x):
            x = x * torch.sigmoid(self.fc(x.mean((2, 3), keepdim=True)))
            return self.spatial_attention(x)

    # Near miss: the channel half alone is no CBAM.
    class OneGate(nn.Module):
        def __init__(self, c1):
            super().__init__()
            self.channel_attention = ChannelPart(c1)
        def forward(self, x):
            return self.channel_attention(x)
  `,
  'pkg/scales.py': py`
    import torch
    import torch.nn as nn

    # timm's LayerScale2d: a parameter, in place or not, viewed per channel.
    class ScaleA(nn.Module):
        def __init__(self, dim, init_values=1e-5, inplace=False):
            super().__init__()
            self.inplace = inplace
            self.gamma = nn.Parameter(init_values * torch.ones(dim))
        def forward(self, x):
            gamma = self.gamma.view(1, -1, 1, 1)
            return x.mul_(gamma) if self.inplace else x * gamma

    # mmcv's LayerScale: a weight multiplied in.
    class ScaleB(nn.Module):
        def __init__(self, dim, layer_scale_init_value=1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim) * layer_scale_init_value)
        def forward(self, x):
            return x * self.weight

    # Near miss, YOLOR's ImplicitM: a per-channel parameter drawn at random, no constant init.
    class Knowledge(nn.Module):
        def __init__(self, channel):
            super().__init__()
            self.implicit = nn.Parameter(torch.ones(1, channel, 1, 1))
            nn.init.normal_(self.implicit, mean=1.0, std=0.02)
        def forward(self, x):
            return self.implicit * x

    # Near miss, mmcv's Scale: one learned scalar, not a scale per channel.
    class Scalar(nn.Module):
        def __init__(self, scale=1.0):
            super().__init__()
            self.scale = nn.Parameter(torch.tensor(scale, dtype=torch.float))
        def forward(self, x):
            return x * self.scale
  `,
  'pkg/nonlocal_.py': py`
    import torch
    import torch.nn as nn
    from .layers import ConvModule

    # mmcv's _NonLocalNd: the pairwise function picked by getattr, ConvModule projections, a residual add.
    class GlobalMixA(nn.Module):
        def __init__(self, in_channels, mode='embedded_gaussian'):
            super().__init__()
            self.mode = mode
            self.g = ConvModule(in_channels, in_channels // 2)
            self.theta = ConvModule(in_channels, in_channels // 2)
            self.phi = ConvModule(in_channels, in_channels // 2)
            self.conv_out = ConvModule(in_channels // 2, in_channels)
        def embedded_gaussian(self, theta_x, phi_x):
            return torch.matmul(theta_x, phi_x).softmax(dim=-1)
        def forward(self, x):
            n = x.size(0)
            g_x = self.g(x).view(n, -1, 8).permute(0, 2, 1)
            theta_x = self.theta(x).view(n, -1, 8).permute(0, 2, 1)
            phi_x = self.phi(x).view(n, -1, 8)
            pairwise_func = getattr(self, self.mode)
            y = torch.matmul(pairwise_func(theta_x, phi_x), g_x)
            return x + self.conv_out(y.permute(0, 2, 1).reshape(n, -1, 8, 8))

    # timm's NonLocalAttn: bmm, softmax, a norm before the shortcut.
    class GlobalMixB(nn.Module):
        def __init__(self, in_channels):
            super().__init__()
            self.t = nn.Conv2d(in_channels, in_channels, 1)
            self.p = nn.Conv2d(in_channels, in_channels, 1)
            self.g = nn.Conv2d(in_channels, in_channels, 1)
            self.z = nn.Conv2d(in_channels, in_channels, 1)
            self.norm = nn.BatchNorm2d(in_channels)
        def forward(self, x):
            shortcut = x
            t, p, g = self.t(x).flatten(2), self.p(x).flatten(2), self.g(x).flatten(2)
            att = torch.bmm(t.transpose(1, 2), p).softmax(dim=-1)
            x = torch.bmm(g, att).view_as(shortcut)
            return self.norm(self.z(x)) + shortcut
  `,
  'pkg/windows.py': py`
    import torch
    import torch.nn as nn
    from .layers import Attention, Mlp

    def window_partition(x, ws):
        B, H, W, C = x.shape
        return x.view(B, H // ws, ws, W // ws, ws, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, C)

    def window_reverse(w, ws, H, W):
        return w.view(-1, H, W, w.shape[-1])

    # mmpretrain's ShiftWindowMSA: roll, partition (a static method), a window attention, reverse.
    class ShiftedMixer(nn.Module):
        def __init__(self, dim, window_size=7, shift_size=3, window_msa=Attention):
            super().__init__()
            self.window_size, self.shift_size = window_size, shift_size
            self.w_msa = window_msa(dim)
        @staticmethod
        def window_partition(x, window_size):
            return window_partition(x, window_size)
        def forward(self, query, hw_shape):
            H, W = hw_shape
            query = torch.roll(query, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            windows = self.window_partition(query, self.window_size)
            return window_reverse(self.w_msa(windows), self.window_size, H, W)

    # torchvision's ShiftedWindowAttention: forward calls a module function that does it all.
    def shifted_window_attention(x, qkv, ws, shift):
        x = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
        w = window_partition(x, ws)
        q, k, v = qkv(w).chunk(3, -1)
        return (q @ k.transpose(-2, -1)).softmax(-1) @ v

    class ShiftedMixer2(nn.Module):
        def __init__(self, dim, window_size=7):
            super().__init__()
            self.qkv = nn.Linear(dim, dim * 3)
            self.window_size = window_size
        def forward(self, x):
            return shifted_window_attention(x, self.qkv, self.window_size, self.window_size // 2)

    # mmpretrain's SwinBlock: norms from a factory, the shifted mixer as its attention, OpenMMLab's _inner_forward.
    class WindowLayer(nn.Module):
        def __init__(self, dim, norm_cfg=dict(type='LN')):
            super().__init__()
            self.norm1 = build_norm_layer(norm_cfg, dim)[1]
            self.attn = ShiftedMixer(dim)
            self.norm2 = build_norm_layer(norm_cfg, dim)[1]
            self.ffn = Mlp(dim)
        def forward(self, x, hw_shape):
            def _inner_forward(x):
                identity = x
                x = self.attn(self.norm1(x), hw_shape)
                x = x + identity
                identity = x
                return self.ffn(self.norm2(x)) + identity
            if x.requires_grad:
                return cp.checkpoint(_inner_forward, x)
            return _inner_forward(x)

    # Swin's own SwinTransformerBlock (microsoft/Swin-Transformer, timm): the block rolls and partitions, its
    # WindowAttention child attends; shifted back, added to the shortcut, then the MLP.
    class ShiftedLayer(nn.Module):
        def __init__(self, dim, window_size=7, shift_size=3, norm_layer=nn.LayerNorm):
            super().__init__()
            self.window_size, self.shift_size = window_size, shift_size
            self.norm1 = norm_layer(dim)
            self.attn = Attention(dim)
            self.norm2 = norm_layer(dim)
            self.mlp = Mlp(dim)
        def forward(self, x):
            H, W = self.input_resolution
            B, L, C = x.shape
            shortcut = x
            x = self.norm1(x).view(B, H, W, C)
            if self.shift_size > 0:
                shifted_x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            else:
                shifted_x = x
            x_windows = window_partition(shifted_x, self.window_size)
            attn_windows = self.attn(x_windows)
            shifted_x = window_reverse(attn_windows, self.window_size, H, W)
            x = torch.roll(shifted_x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
            x = shortcut + x.view(B, H * W, C)
            return x + self.mlp(self.norm2(x))

    # Near miss, ShiftViT's shift block: the map is rolled, but nothing attends (an MLP mixes).
    class ShiftOnly(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.mlp = Mlp(dim)
        def forward(self, x):
            x = torch.roll(x, 1, dims=1)
            return x + self.mlp(self.norm(x))

    # Near miss: windows without a shift.
    class PlainWindows(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.attn = Attention(dim)
        def forward(self, x):
            return self.attn(window_partition(x, 7))
  `,
  'pkg/blocks.py': py`
    import torch
    import torch.nn as nn
    from functools import partial
    from .layers import Attention, Mlp

    def _create_attn(attn_layer, dim):
        return attn_layer(dim)

    # timm's vision_transformer.Block, renamed: norms and attention from constructor defaults, layer scale, drop path.
    class Layer(nn.Module):
        def __init__(self, dim, init_values=None, norm_layer=nn.LayerNorm, attn_layer=Attention, mlp_layer=Mlp):
            super().__init__()
            self.norm1 = norm_layer(dim)
            self.attn = _create_attn(attn_layer, dim)
            self.ls1 = LayerScale(dim) if init_values else nn.Identity()
            self.drop_path1 = nn.Identity()
            self.norm2 = norm_layer(dim)
            self.mlp = mlp_layer(dim)
        def forward(self, x):
            x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
            return x + self.mlp(self.norm2(x))

    # DETR's TransformerEncoderLayer, renamed: post-norm, the MLP as two linear maps.
    class PostNormUnit(nn.Module):
        def __init__(self, d_model, nhead, dim_feedforward=2048):
            super().__init__()
            self.self_attn = nn.MultiheadAttention(d_model, nhead)
            self.linear1 = nn.Linear(d_model, dim_feedforward)
            self.dropout = nn.Dropout(0.1)
            self.linear2 = nn.Linear(dim_feedforward, d_model)
            self.norm1 = nn.LayerNorm(d_model)
            self.norm2 = nn.LayerNorm(d_model)
        def forward(self, src):
            src = self.norm1(src + self.self_attn(src, src, src)[0])
            return self.norm2(src + self.linear2(self.dropout(self.linear1(src))))

    # DETR's decoder layer, renamed: self-attention, cross-attention to the memory, then the MLP.
    class CrossUnit(nn.Module):
        def __init__(self, d_model, nhead):
            super().__init__()
            self.self_attn = nn.MultiheadAttention(d_model, nhead)
            self.multihead_attn = nn.MultiheadAttention(d_model, nhead)
            self.linear1 = nn.Linear(d_model, d_model)
            self.linear2 = nn.Linear(d_model, d_model)
            self.norm1 = nn.LayerNorm(d_model)
            self.norm2 = nn.LayerNorm(d_model)
            self.norm3 = nn.LayerNorm(d_model)
        def forward(self, tgt, memory):
            tgt = self.norm1(tgt + self.self_attn(tgt, tgt, tgt)[0])
            tgt = self.norm2(tgt + self.multihead_attn(tgt, memory, memory)[0])
            return self.norm3(tgt + self.linear2(self.linear1(tgt)))

    # Near miss: attention and MLP in sequence but no residual add.
    class NoSkip(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim)
            self.attn = Attention(dim)
            self.norm2 = nn.LayerNorm(dim)
            self.mlp = Mlp(dim)
        def forward(self, x):
            return self.mlp(self.norm2(self.attn(self.norm1(x))))

    # timm's and mmpretrain's MixerBlock, renamed: token MLP then channel MLP, each residual.
    class TokenChannel(nn.Module):
        def __init__(self, dim, seq_len, norm_layer=partial(nn.LayerNorm, eps=1e-6)):
            super().__init__()
            self.norm1 = norm_layer(dim)
            self.mlp_tokens = Mlp(seq_len)
            self.norm2 = norm_layer(dim)
            self.mlp_channels = Mlp(dim)
        def forward(self, x):
            x = x + self.mlp_tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2)
            return x + self.mlp_channels(self.norm2(x))

    # RepVGG's block (mmpretrain, timm): branches folded for inference by the kernel arithmetic it defines.
    class Foldable(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.dense = nn.Conv2d(c, c, 3, padding=1)
            self.one = nn.Conv2d(c, c, 1)
        def _fuse_bn_tensor(self, branch):
            return branch.weight, branch.bias
        def forward(self, x):
            return self.dense(x) + self.one(x)

    # PyG's DeepGCNLayer ("res+"): forward(*args), the input popped off the argument list, added back at the end.
    class ResPlusLayer(nn.Module):
        def __init__(self, conv, norm, act):
            super().__init__()
            self.conv, self.norm, self.act = conv, norm, act
        def forward(self, *args, **kwargs):
            args = list(args)
            x = args.pop(0)
            h = self.act(self.norm(x))
            h = self.conv(h, *args, **kwargs)
            return x + h

    # timm's ConvNormAct / yolov5's Conv, renamed: a conv, its norm, its activation.
    class ConvUnit(nn.Module):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, 3)
            self.bn = nn.BatchNorm2d(c2)
            self.act = nn.SiLU()
        def forward(self, x):
            return self.act(self.bn(self.conv(x)))
  `,
};
