// How fast `nnblocks` starts. Wall and CPU time of `nnblocks --help` and `--version` from the prebuilt
// bundle, each run paired with a `node -e 0` in the same round (alternating, so both see the same machine load);
// medians of the rounds. For comparison: `--help` before (NNBLOCKS_BENCH_BEFORE, default 934cf5e: every command
// compiled through tsx at each start; a temporary git worktree), `--help` from this checkout's sources through tsx
// (the fallback), `build --help` (one command's module and the stages it imports) and `npx nnblocks --help`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, round, type Figure } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'nnblocks.mjs');
const ROUNDS = Number(process.env.NNBLOCKS_BENCH_ROUNDS ?? 15);
const BEFORE = process.env.NNBLOCKS_BENCH_BEFORE ?? '934cf5e';

const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();

/** `fn` with a detached worktree of this repository at `ref` (this checkout's node_modules), removed after. */
function withWorktree<T>(ref: string, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-cli-'));
  git(['worktree', 'add', '--detach', dir, ref]);
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return fn(dir);
  } finally {
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git(['worktree', 'prune']);
    }
  }
}

/** One run of `cmd ...args` (node by default), output discarded: wall seconds and exit code. */
function time(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cmd = process.execPath,
): { wall: number; code: number | null } {
  const t0 = performance.now();
  const res = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
  return { wall: (performance.now() - t0) / 1000, code: res.status };
}

/** CPU seconds of one run, from bash's `times` (children's user + system) around it. */
function cpu(args: string[], env: NodeJS.ProcessEnv = {}): number {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const res = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1; times`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  // `times` prints the shell's then its children's user and system times: "0m0.081s 0m0.012s".
  const line = res.stdout.trim().split('\n').pop() ?? '';
  const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return secs.reduce((a, b) => a + b, 0);
}

/** Median wall and CPU of `args` and of `node -e 0`, alternating in each round. */
function paired(args: string[], env: NodeJS.ProcessEnv = {}, rounds = ROUNDS) {
  const cmd: number[] = [];
  const node: number[] = [];
  const cmdCpu: number[] = [];
  const nodeCpu: number[] = [];
  let code: number | null = 0;
  for (let r = 0; r < rounds; r++) {
    const t = time(args, env);
    code = t.code ?? code;
    cmd.push(t.wall);
    node.push(time(['-e', '0']).wall);
    cmdCpu.push(cpu(args, env));
    nodeCpu.push(cpu(['-e', '0']));
  }
  return {
    wall: percentile(cmd, 50),
    nodeWall: percentile(node, 50),
    cpu: percentile(cmdCpu, 50),
    nodeCpu: percentile(nodeCpu, 50),
    code,
  };
}

export async function run(): Promise<Figure[]> {
  // The bundle is built (or found fresh) once before timing: the first start after a change pays for the build.
  spawnSync(process.execPath, [join(ROOT, 'bin', 'bundle.mjs')], { cwd: ROOT, stdio: 'ignore' });
  const help = paired([BIN, '--help']);
  const version = paired([BIN, '--version']);
  const buildHelp = paired([BIN, 'build', '--help'], {}, Math.min(ROUNDS, 7));
  const source = paired([BIN, '--help'], { NNBLOCKS_FROM_SOURCE: '1' }, Math.min(ROUNDS, 5));
  const before = withWorktree(BEFORE, (dir) =>
    paired([join(dir, 'bin', 'nnblocks.mjs'), '--help'], {}, Math.min(ROUNDS, 7)),
  );
  const npxWall: number[] = [];
  for (let r = 0; r < Math.min(ROUNDS, 5); r++) npxWall.push(time(['nnblocks', '--help'], {}, 'npx').wall);

  const detail = (p: ReturnType<typeof paired>) => ({
    wallS: round(p.wall, 3),
    cpuS: round(p.cpu, 3),
    nodeWallS: round(p.nodeWall, 3),
    nodeCpuS: round(p.nodeCpu, 3),
    overNodeS: round(p.wall - p.nodeWall, 3),
  });
  const figures: Figure[] = [
    {
      issue: 22,
      figure: `nnblocks --help, wall (median of ${ROUNDS}; node -e 0 in the same rounds: ${round(help.nodeWall, 3)} s)`,
      value: round(help.wall, 3),
      unit: 's',
      target: '<= 0.2 s',
      ok: help.code === 0 && help.wall <= 0.2,
      detail: detail(help),
    },
  ];
  figures.push(
    version.code === 0
      ? {
          issue: 22,
          figure: `nnblocks --version, wall (median of ${ROUNDS}; node -e 0: ${round(version.nodeWall, 3)} s)`,
          value: round(version.wall, 3),
          unit: 's',
          target: '<= 0.2 s',
          ok: version.wall <= 0.2,
          detail: detail(version),
        }
      : { issue: 22, figure: 'nnblocks --version', value: `exit ${version.code}: no --version yet` },
    {
      issue: 22,
      figure: 'nnblocks build --help, wall (its module and the stages it imports)',
      value: round(buildHelp.wall, 3),
      unit: 's',
      detail: detail(buildHelp),
    },
    {
      issue: 22,
      figure: `nnblocks --help before, at ${BEFORE} (every command's TypeScript through tsx)`,
      value: round(before.wall, 3),
      unit: 's',
      detail: detail(before),
    },
    {
      issue: 22,
      figure: 'nnblocks --help from the sources through tsx (NNBLOCKS_FROM_SOURCE=1, the fallback; lazy commands)',
      value: round(source.wall, 3),
      unit: 's',
      detail: detail(source),
    },
    {
      issue: 22,
      figure: 'npx nnblocks --help in the checkout, wall (npx’s own start included)',
      value: round(percentile(npxWall, 50), 3),
      unit: 's',
      detail: { runs: npxWall.map((w) => round(w, 3)) },
    },
  );
  return figures;
}
