// A warm `nnblocks build` of 25 unchanged blocks (a fixture git repository: 24 residual blocks in four
// modules sharing one ConvBN), target <= 1 s. Through the CLI (`node bin/nnblocks.mjs build --config ...`, run once
// cold, then NNBLOCKS_BENCH_ROUNDS warm runs, each paired with `node -e 0` for the cost of starting node), and in
// process (`buildCatalog`, so a faster CLI start can be added to it later), with validation (its cache warm) and
// without (`--no-validate`). Medians; the stage timings of the median in-process run in the JSON.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../../pipeline/run/build.ts';
import { openRun } from '../../pipeline/run/prepare.ts';
import { percentile, round, type Figure } from './harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ROUNDS = Number(process.env.NNBLOCKS_BENCH_ROUNDS ?? 5);

/** Four modules of six residual blocks each, sharing `ConvBN`: 25 blocks. */
function fixtureConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-warm-'));
  const pkg = join(dir, 'src', 'fxnet');
  execFileSync('mkdir', ['-p', pkg]);
  writeFileSync(join(pkg, '__init__.py'), '');
  writeFileSync(
    join(pkg, 'common.py'),
    `import torch
from torch import nn


def make_divisible(v, d=8):
    return max(d, int(v + d / 2) // d * d)


class ConvBN(nn.Module):
    def __init__(self, cin=8, cout=8, k=3):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))
`,
  );
  for (let m = 0; m < 4; m++) {
    const blocks = Array.from(
      { length: 6 },
      (_, b) => `class Block${m}${b}(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.a = ConvBN(ch, make_divisible(ch * ${b + 1}))
        self.b = ConvBN(make_divisible(ch * ${b + 1}), ch)

    def forward(self, x):
        return x + self.b(self.a(x))
`,
    );
    writeFileSync(
      join(pkg, `stage${m}.py`),
      `from torch import nn\nfrom .common import ConvBN, make_divisible\n\n\n${blocks.join('\n\n')}`,
    );
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: dir });
  git('init', '-q');
  git('add', 'src');
  git('commit', '-qm', 'fixture');
  const config = join(dir, 'corpus.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'warm',
      cacheDir: join(dir, 'cache'),
      sources: [{ id: 'fx', kind: 'path', path: 'src', include: ['fxnet/**/*.py'] }],
    }),
  );
  return config;
}

function wall(cmd: string[]): number {
  const t = performance.now();
  const res = spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: 'ignore' });
  if (res.status !== 0) throw new Error(`${cmd.join(' ')} exited ${res.status}`);
  return performance.now() - t;
}

async function inProcess(config: string, out: string, noValidate: boolean) {
  const run = openRun(config);
  const t = performance.now();
  try {
    const s = await buildCatalog(run, { outDir: out, noValidate });
    return { ms: performance.now() - t, blocks: s.blocks, timings: s.timings };
  } finally {
    run.store.close();
  }
}

const median = (xs: number[]) => percentile(xs, 50);

export async function run(): Promise<Figure[]> {
  const config = fixtureConfig();
  const out = join(config, '..', 'catalog');
  const cli = (...extra: string[]) => ['node', 'bin/nnblocks.mjs', 'build', '--config', config, '--out', out, ...extra];
  const cold = wall(cli());
  const figures: Figure[] = [];
  for (const noValidate of [false, true]) {
    const extra = noValidate ? ['--no-validate'] : [];
    const node: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      node.push(wall(['node', '-e', '0']));
      warm.push(wall(cli(...extra)));
    }
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await inProcess(config, out, noValidate));
    const mid = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
    const label = noValidate ? ' --no-validate' : ' (validation cache warm)';
    const stages = Object.entries(mid.timings)
      .filter(([, ms]) => ms >= 10)
      .map(([k, ms]) => `${k} ${Math.round(ms)}`)
      .join(', ');
    figures.push(
      {
        issue: 22,
        figure: `warm build${label}, ${mid.blocks} unchanged blocks, CLI wall (median of ${ROUNDS}; node -e 0: ${Math.round(median(node))} ms)`,
        value: Math.round(median(warm)),
        unit: 'ms',
        target: '<= 1000 ms',
        ok: median(warm) <= 1000,
        detail: { warm, node, cold },
      },
      {
        issue: 22,
        figure: `warm build${label}, in process (median of ${ROUNDS}; stages ms: ${stages})`,
        value: Math.round(mid.ms),
        unit: 'ms',
        detail: { runs: runs.map((r) => ({ ms: Math.round(r.ms), timings: r.timings })) },
      },
      {
        issue: 22,
        figure: `warm build${label}, extract stage (assembled modules reused)`,
        value: Math.round(median(runs.map((r) => r.timings.extract ?? 0))),
        unit: 'ms',
      },
    );
  }
  figures.push({
    issue: 22,
    figure: 'cold build of the same 25 blocks, CLI wall',
    value: round(cold / 1000, 1),
    unit: 's',
  });
  return figures;
}
