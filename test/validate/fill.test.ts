// The fill (nnblocks_runner/fill.py; docs/validate.md, "Replay protocol"): while a block is built, a large CPU float
// tensor that its constructor fills by `uniform_`/`normal_` takes pool values scaled to the same distribution, and
// the site's replay script (src/lib/replay-fill.ts) installs the same fill. Checked in real torch: the runner's fill
// and the script's give the same tensors value for value, small tensors and other calls stay torch's own, the patch
// is gone after the build (after a failing one too); end to end, a block with a large layer validates, is identical
// to its original, and the site's script replays it to its recorded checksum.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { FILL_FUNCTION } from '../../src/lib/replay-fill.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { testPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const RUNNER = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });
const python = (code: string) => execFileSync(testPython(), ['-I', '-c', code], { encoding: 'utf8' }).trim();

// Every way a constructor fills: a large Linear (kaiming_uniform_ in reset_parameters), normal_ with a mean and a
// std given by keyword, trunc_normal_ (uniform_ then erfinv_), a float64 and a non-contiguous large tensor, one
// drawn with its own generator, and small tensors (torch's own draw, interleaved with the fill's).
const MODEL = `
import torch, torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.big = nn.Linear(1024, 512)
        self.small = nn.Linear(16, 16)
        self.emb = nn.Parameter(torch.empty(600, 512))
        nn.init.normal_(self.emb, mean=0.5, std=2.0)
        self.trunc = nn.Parameter(torch.empty(512, 600))
        nn.init.trunc_normal_(self.trunc, std=0.02)
        self.wide = nn.Parameter(torch.empty(300, 1000, dtype=torch.float64))
        self.wide.data.uniform_(-3, 3)
        self.strided = nn.Parameter(torch.empty(1000, 600).t())
        nn.init.uniform_(self.strided, -1.0, 1.0)
        self.own = nn.Parameter(torch.empty(600, 600))
        self.own.data.normal_(generator=torch.Generator().manual_seed(7))
        self.tail = nn.Parameter(torch.randn(3, 3))
`;

describe('the fill', () => {
  it("gives the same tensors in the runner and in the site's replay script, value for value", () => {
    const out = python(
      [
        'import contextlib, json, math, sys',
        `sys.path.insert(0, ${JSON.stringify(RUNNER)})`,
        'import torch',
        MODEL,
        'from nnblocks_runner.fill import Fill, FILL_MIN',
        ...FILL_FUNCTION,
        'def built(ctx):',
        '    torch.manual_seed(3)',
        '    with ctx:',
        '        return Net()',
        'runner, script = built(Fill(3)), built(fill(3))',
        'torch.manual_seed(3)',
        'plain = Net()',
        'r, s, p = runner.state_dict(), script.state_dict(), plain.state_dict()',
        'print(json.dumps({',
        '    "same": all(torch.equal(r[k], s[k]) for k in r),',
        '    "filled": sorted(k for k in r if not torch.equal(r[k], p[k])),',
        '    "bounds": [r["big.weight"].abs().max().item() <= 1 / 32, r["wide"].abs().max().item() <= 3],',
        '    "moments": [round(r["emb"].mean().item(), 1), round(r["emb"].std().item(), 1), round(r["trunc"].std().item(), 3)],',
        '    "patched": "uniform_" in torch.Tensor.__dict__ or "normal_" in torch.Tensor.__dict__,',
        '}))',
      ].join('\n'),
    );
    expect(JSON.parse(out)).toEqual({
      same: true,
      // The fill draws nothing from torch's generator, so every tensor torch draws after the first fill differs too
      // (a block without a large tensor is built exactly as torch builds it); the one drawn from its own generator
      // is torch's.
      filled: ['big.bias', 'big.weight', 'emb', 'small.bias', 'small.weight', 'strided', 'tail', 'trunc', 'wide'],
      bounds: [true, true],
      moments: [0.5, 2, 0.02],
      patched: false,
    });
  });

  it('puts torch back after a build that raises, and leaves a block that patched uniform_ its own', () => {
    const out = python(
      [
        `import sys; sys.path.insert(0, ${JSON.stringify(RUNNER)})`,
        'import torch',
        'from nnblocks_runner.fill import Fill',
        'try:',
        '    with Fill(0):',
        '        torch.empty(1 << 19).uniform_()',
        '        raise ValueError("the constructor failed")',
        'except ValueError:',
        '    pass',
        'print("uniform_" in torch.Tensor.__dict__)',
        'mine = lambda t, *a, **k: t',
        'torch.Tensor.uniform_ = mine',
        'with Fill(0):',
        '    torch.empty(1 << 19).uniform_()',
        'print(torch.Tensor.uniform_ is mine)',
      ].join('\n'),
    );
    expect(out.split('\n')).toEqual(['False', 'True']);
  });
});

describe('a block with a large layer, end to end', () => {
  let out: string;
  let config: string;
  const spec = (): BlockSpec =>
    JSON.parse(readFileSync(join(out, 'blocks', 'fx.pkg.net.net.json'), 'utf8')) as BlockSpec;

  beforeAll(async () => {
    const TREE = {
      'pkg/__init__.py': '',
      'pkg/net.py': py`
        import torch, torch.nn as nn

        class Net(nn.Module):
            def __init__(self, width=1024):
                super().__init__()
                self.proj = nn.Linear(width, 512)
                self.out = nn.Linear(512, 8)
            def forward(self, x):
                return self.out(self.proj(x).relu())
      `,
    };
    config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    out = tempDir('nnb-fill-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 180_000);

  it('validates, identical to the original, and the site script replays it to its recorded checksum', async () => {
    const s = spec();
    expect(s.validation!.status).toBe('passed');
    expect(s.validation!.fidelity).toBe('exact');
    expect(s.validation!.params).toBe(1024 * 512 + 512 + 512 * 8 + 8);
    const dir = tempDir('nnb-fill-replay-');
    expect(await runCli(['extract', s.id, '--config', config, '--out', join(dir, 'blocks')], quiet)).toBe(0);
    writeFileSync(join(dir, 'replay.py'), replayScript(s)!);
    const printed = execFileSync(testPython(), ['-I', 'replay.py'], { cwd: dir, encoding: 'utf8' });
    expect(printed).toContain('replayed: outputs match the recorded checksums');
  });
});
