// Validate throughput: 200 small synthetic blocks through the real sandboxed runner (target: >= 4 blocks/s).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { summarize } from '../../pipeline/validate/summary.ts';
import type { ValidateItem } from '../../pipeline/validate/types.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { percentile, round, type Figure } from './harness.ts';

const COUNT = 200;

/** Four shapes of small block (conv, MLP, embedding+norm, constructor needing arguments), sizes varied by index. */
function blockSource(i: number): string {
  const w = 4 + (i % 5) * 4;
  switch (i % 4) {
    case 0:
      return `import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.conv = nn.Conv2d(3, ${w}, 3, padding=1)\n        self.bn = nn.BatchNorm2d(${w})\n    def forward(self, x):\n        return self.bn(self.conv(x)).relu()\n`;
    case 1:
      return `import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.net = nn.Sequential(nn.Linear(${w}, ${2 * w}), nn.GELU(), nn.Linear(${2 * w}, ${w}))\n    def forward(self, x):\n        return self.net(x) + x\n`;
    case 2:
      return `import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.emb = nn.Embedding(${100 + i}, ${w})\n        self.norm = nn.LayerNorm(${w})\n    def forward(self, t):\n        return self.norm(self.emb(t))\n`;
    default:
      return `import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, in_channels: int, out_channels: int):\n        super().__init__()\n        self.dw = nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels)\n        self.pw = nn.Conv2d(in_channels, out_channels, 1)\n    def forward(self, x):\n        return self.pw(self.dw(x))\n`;
  }
}

export async function run(): Promise<Figure[]> {
  if (!bwrapAvailable().ok) {
    return [
      {
        issue: 5,
        figure: 'validate throughput (200 small synthetic blocks)',
        value: 'skipped: no bubblewrap',
        ok: false,
      },
    ];
  }
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-validate-'));
  try {
    const items: ValidateItem[] = [];
    for (let i = 0; i < COUNT; i++) {
      const src = blockSource(i);
      writeFileSync(join(dir, `synthetic_${i}.py`), src);
      items.push({
        id: `bench:synthetic_${i}`,
        importRoot: dir,
        module: `synthetic_${i}`,
        className: 'Block',
        blockedPackages: ['upstream'],
        moduleHash: createHash('sha256').update(src).digest('hex'),
      });
    }
    let firstDoneAt = 0;
    const t0 = performance.now();
    const records = await validateBlocks(items, {
      python: process.env.NNBLOCKS_PYTHON ?? '/usr/bin/python3',
      device: 'cpu',
      sandbox: true,
      onProgress: (done) => {
        if (done === 1) firstDoneAt = performance.now();
      },
    });
    const wall = (performance.now() - t0) / 1000;
    const summary = summarize(records);
    const perBlock = records.map((r) => r.stages.reduce((s, st) => s + st.ms, 0));
    const rate = COUNT / wall;
    const steady = (COUNT - 1) / ((performance.now() - firstDoneAt) / 1000);
    return [
      {
        issue: 5,
        figure: `validate throughput, ${COUNT} small synthetic blocks, ${availableParallelism()} workers (incl. worker start)`,
        value: round(rate, 1),
        unit: 'blocks/s',
        target: '>= 4 blocks/s',
        ok: rate >= 4 && summary.byStatus.passed === COUNT,
        detail: {
          wallSeconds: round(wall, 2),
          steadyBlocksPerSecond: round(steady, 1),
          firstResultSeconds: round((firstDoneAt - t0) / 1000, 2),
          stageMsMedian: round(percentile(perBlock, 50), 1),
          stageMsP95: round(percentile(perBlock, 95), 1),
          summary,
        },
      },
      {
        issue: 5,
        figure: 'validate throughput after worker start (steady state)',
        value: round(steady, 1),
        unit: 'blocks/s',
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
