// Python source of the labelled dedup fixture (see fixture.ts for the labels and why each block has them).

const res = `class ResidualBlock(nn.Module):
    """A basic residual block: two 3x3 convolutions with batch norm."""

    def __init__(self, channels, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.shortcut = nn.Identity()
        if stride != 1:
            self.shortcut = nn.Sequential(
                nn.Conv2d(channels, channels, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(channels),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)
`;

const resReformatted = `class ResidualBlock( nn.Module ):
    # A basic residual block (the docstring became this comment).
    def __init__(self, channels, stride = 1):
        '''Build the layers.'''
        super().__init__()


        self.conv1 = nn.Conv2d(channels, channels,
                               kernel_size=3, stride=stride,
                               padding=1, bias=False)  # first conv
        self.bn1 = nn.BatchNorm2d( channels )
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, \\
padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels); self.shortcut = nn.Identity()
        if stride != 1: self.shortcut = nn.Sequential(nn.Conv2d(channels, channels, kernel_size=1, stride=stride, bias=False), nn.BatchNorm2d(channels),)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))   # second conv
        out = out + self.shortcut(x)
        return F.relu(out)
`;

const resRenamed = `class ResBlock(nn.Module):
    def __init__(self, c, s=1):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, kernel_size=3, stride=s, padding=1, bias=False)
        self.n1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, kernel_size=3, stride=1, padding=1, bias=False)
        self.n2 = nn.BatchNorm2d(c)
        self.skip = nn.Identity()
        if s != 1:
            self.skip = nn.Sequential(
                nn.Conv2d(c, c, kernel_size=1, stride=s, bias=False),
                nn.BatchNorm2d(c),
            )

    def forward(self, inp):
        y = F.relu(self.n1(self.c1(inp)))
        y = self.n2(self.c2(y))
        y = y + self.skip(inp)
        return F.relu(y)
`;

const resLiterals = res
  .replace(/kernel_size=3/g, 'kernel_size=5')
  .replace(/padding=1/g, 'padding=2')
  .replace('bias=False)\n        self.bn1', 'bias=True)\n        self.bn1')
  .replace('stride=1):', 'stride=2):')
  .replace('if stride != 1', 'if stride != 2');

const resApiSwap = res
  .replace('class ResidualBlock', 'class ResidualBlock1d')
  .replace(/nn\.Conv2d/g, 'nn.Conv1d')
  .replace(/nn\.BatchNorm2d/g, 'nn.InstanceNorm1d')
  .replace('nn.Identity()', 'nn.Dropout()')
  .replace(/F\.relu/g, 'F.gelu');

const attn = `class MultiHeadSelfAttention(nn.Module):
    def __init__(self, dim, heads=8, dropout=0.0):
        super().__init__()
        assert dim % heads == 0, "dim must be divisible by heads"
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(dropout)
        self.proj_drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        if mask is not None:
            attn = attn.masked_fill(mask == 0, float("-inf"))
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(b, n, c)
        out = self.proj(out)
        return self.proj_drop(out)
`;

const attnEdited = attn
  .replace('MultiHeadSelfAttention', 'Attention')
  .replace(/\battn\b/g, 'scores')
  .replace(
    '        scores = scores.softmax',
    '        scores = scores - scores.amax(dim=-1, keepdim=True)\n        scores = scores.softmax',
  );

const mlp = `class Mlp(nn.Module):
    def __init__(self, dim=64, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        return self.fc2(x)
`;

const mlpSequential = `class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64))

    def forward(self, x):
        return self.net(x)
`;

const mlpWide = mlp.replace('class Mlp', 'class WideMlp').replace('hidden=128', 'hidden=256');

const convBnAct = `class ConvBNAct(nn.Module):
    def __init__(self, cin, cout, k=3, s=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))
`;

const squeezeExcite = `class SqueezeExcite(nn.Module):
    def __init__(self, channels, reduction=16):
        super().__init__()
        hidden = max(8, channels // reduction)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, hidden, 1)
        self.fc2 = nn.Conv2d(hidden, channels, 1)

    def forward(self, x):
        s = self.pool(x)
        s = F.relu(self.fc1(s))
        s = torch.sigmoid(self.fc2(s))
        return x * s
`;

const patchEmbed = `class PatchEmbed(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        x = self.proj(x)
        x = x.flatten(2).transpose(1, 2)
        return self.norm(x)
`;

const layerNorm2d = `def _channels_last(x):
    return x.permute(0, 2, 3, 1)


class LayerNorm2d(nn.Module):
    def __init__(self, channels, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x):
        x = _channels_last(x)
        x = F.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)
`;

const gatedMlp = `class GatedMlp(nn.Module):
    def __init__(self, dim=64, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden * 2)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        a, gate = self.fc1(x).chunk(2, dim=-1)
        x = a * F.silu(gate)
        return self.fc2(x)
`;

export const BLOCKS = {
  res,
  resReformatted,
  resRenamed,
  resLiterals,
  resApiSwap,
  attn,
  attnEdited,
  mlp,
  mlpSequential,
  mlpWide,
  convBnAct,
  squeezeExcite,
  patchEmbed,
  layerNorm2d,
  gatedMlp,
};
