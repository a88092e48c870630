// The resolution scope stays incremental: every Python file of the package is parsed once, a re-run parses nothing,
// and changing the includes only moves the discovery scope — no refetch, no reparse.
import { describe, expect, it } from 'vitest';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const NN = 'import torch.nn as nn\n';
const REPO = {
  'lib/__init__.py': '',
  'lib/layers/__init__.py': '',
  'lib/layers/conv.py':
    NN +
    py`
    from lib.ops.pad import pad
    class Conv(nn.Module):
        def forward(self, x):
            return pad(x)
  `,
  'lib/ops/__init__.py': '',
  'lib/ops/pad.py':
    NN + 'def pad(x):\n    return x\nclass Pad(nn.Module):\n    def forward(self, x):\n        return pad(x)\n',
  'tools/train.py': 'import lib\n',
};

async function run(config: string) {
  const { ctx, p } = await prepareRun(config);
  ctx.store.close();
  return p;
}

describe('index of the resolution scope', () => {
  it('parses the whole package once; re-runs and include changes parse nothing', async () => {
    const repo = gitRepo(REPO);
    const source = { id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: repo.commit };
    const cacheDir = tempDir('nnb-cache-');
    const narrow = writeConfig([{ ...source, include: ['lib/layers/**/*.py'] }], { cacheDir });

    const first = await run(narrow);
    expect(first.index.stats).toMatchObject({ files: 6, parsed: 6, reused: 0 });
    expect(first.index.stats.perSource[0]).toMatchObject({ files: 6, discover: 2 });
    expect(first.discovered.blocks.map((b) => b.id)).toEqual(['fx:lib.layers.conv.Conv']);

    const again = await run(narrow);
    expect(again.index.stats).toMatchObject({ files: 6, parsed: 0, reused: 6 });
    expect(again.snapshots[0].status).toBe('unchanged');

    // Same cache, wider includes: the checkout already holds every file; only the discovery scope moves.
    const wide = writeConfig([{ ...source, include: ['lib/**/*.py'] }], { cacheDir });
    const wider = await run(wide);
    expect(wider.snapshots[0].status).toBe('unchanged');
    expect(wider.index.stats).toMatchObject({ files: 6, parsed: 0, reused: 6 });
    expect(wider.index.stats.perSource[0]).toMatchObject({ discover: 5 });
    expect(wider.discovered.blocks.map((b) => b.id)).toEqual(['fx:lib.layers.conv.Conv', 'fx:lib.ops.pad.Pad']);
  });
});
