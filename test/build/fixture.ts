// A small corpus for end-to-end build tests: a local package with a few blocks sharing helpers, written inline.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

/** Lines of upstream function bodies (30+ characters) that must never appear in the catalog. */
export const BODY_LINES = [
  'return self.proj(torch.relu(self.norm_helper(x)))',
  'scores = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)',
  'hidden = self.fc2(self.drop(torch.nn.functional.gelu(self.fc1(x))))',
];

export function fixtureCorpus(existingRoot?: string): { config: string; root: string } {
  const dir =
    existingRoot ??
    gitRepo({
      LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n',
      'tinynet/__init__.py': 'from .blocks import Proj, Attention, Mlp\n',
      'tinynet/util.py': py`
      import torch
      def norm_helper(x):
          """Normalizes x."""  # a docstring that must not be published
          return x / (x.norm(dim=-1, keepdim=True) + 1e-6)
    `,
      'tinynet/blocks.py': py`
      import torch
      import torch.nn as nn
      from .util import norm_helper

      class Proj(nn.Module):
          """Projects features."""
          def __init__(self, dim=16):
              super().__init__()
              self.proj = nn.Linear(dim, dim)
              self.norm_helper = norm_helper
          def forward(self, x):
              ${BODY_LINES[0]}

      class Attention(nn.Module):
          def __init__(self, dim=16, heads=2):
              super().__init__()
              self.q = nn.Linear(dim, dim)
              self.k = nn.Linear(dim, dim)
              self.scale = (dim // heads) ** -0.5
          def forward(self, x):
              q, k = self.q(x), self.k(x)
              ${BODY_LINES[1]}
              return scores @ x

      class Mlp(nn.Module):
          def __init__(self, dim=16, hidden=32, p=0.0):
              super().__init__()
              self.fc1 = nn.Linear(dim, hidden)
              self.fc2 = nn.Linear(hidden, dim)
              self.drop = nn.Dropout(p)
          def forward(self, x):
              ${BODY_LINES[2]}
              return hidden

      class MlpCopy(nn.Module):
          def __init__(self, dim=16, hidden=32, p=0.0):
              super().__init__()
              self.fc1 = nn.Linear(dim, hidden)
              self.fc2 = nn.Linear(hidden, dim)
              self.drop = nn.Dropout(p)
          def forward(self, x):
              ${BODY_LINES[2]}
              return hidden

      class Broken(nn.Module):
          def forward(self, x):
              return undefined_name(x)

      class __proto__(nn.Module):
          def __init__(self, tag="<script>alert(1)</script>"):
              super().__init__()
              self.tag = tag
          def forward(self, x):
              return x * 2
    `,
    }).dir;
  const cfgDir = tempDir('nnb-cfg-');
  const config = join(cfgDir, 'corpus.json');
  writeFileSync(
    config,
    JSON.stringify(
      { name: 'fixture', cacheDir: join(cfgDir, 'cache'), sources: [{ id: 'tiny', kind: 'path', path: dir }] },
      null,
      2,
    ),
  );
  return { config, root: dir };
}
