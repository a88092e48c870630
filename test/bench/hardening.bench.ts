// What the round-two hardening against hostile code costs validation on torchvision. There is no switch that
// turns the round-two walls off (seccomp argument rules, the worker as pid 1, git masks, the reduced host view, the
// kernel witness, per-block budgets, the stopped-worker watch), so two trees are compared: the validate stage of
// BEFORE (default 5101907, the last commit without them, checked out as a temporary git worktree) and of AFTER (by
// default this checkout). Both validate the same items — the default corpus's torchvision blocks, assembled once by
// this checkout — with the same environment, workers and block budget, no cache, sandbox on, in the order
// before, after, before, after, ...; the figure is the cost of the medians.
//
// NNBLOCKS_BENCH_LIMIT=N   validate N blocks, evenly spread over the list (default: all)
// NNBLOCKS_BENCH_ROUNDS=N  runs of each tree (default 2: ABAB)
// NNBLOCKS_BENCH_BEFORE / NNBLOCKS_BENCH_AFTER  commits to compare (AFTER default: this checkout). Between 5101907
//                          and main's HEAD, cdfdf83 also changed the runner's inference (not hardening):
//                          NNBLOCKS_BENCH_AFTER=c0f5527 (the last merge of the hardening, before it) leaves it out
// NNBLOCKS_BENCH_WORKERS   workers of every run (default: config validate.workers, else one per core)
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import type { ValidateItem, ValidationRecord } from '../../pipeline/validate/types.ts';
import { percentile, round, type Figure } from './harness.ts';
import { spread, torchvisionItems, type SharedOptions } from './torchvision-items.ts';

const ISSUE = 21;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BEFORE = process.env.NNBLOCKS_BENCH_BEFORE ?? '5101907';
const AFTER = process.env.NNBLOCKS_BENCH_AFTER;

type ValidateBlocks = (items: ValidateItem[], opts: SharedOptions) => Promise<ValidationRecord[]>;

interface Tree {
  label: string;
  /** The commit it is at. */
  commit: string;
  validate: ValidateBlocks;
}

function git(args: string[], cwd = REPO): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A detached worktree of this repository at `ref`, with this checkout's node_modules; removed by the caller. */
function worktreeAt(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-tree-'));
  // The runner is copied into each run's staging folder, but keep the tree readable like a checkout anyway.
  chmodSync(dir, 0o755);
  git(['worktree', 'add', '--detach', dir, ref]);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function loadTree(label: string, root: string): Promise<Tree> {
  const mod = (await import(pathToFileURL(join(root, 'pipeline', 'validate', 'validate.ts')).href)) as {
    validateBlocks: ValidateBlocks;
  };
  const dirty = git(['status', '--porcelain', '--untracked-files=no'], root) ? ' (dirty)' : '';
  return { label, commit: git(['rev-parse', '--short', 'HEAD'], root) + dirty, validate: mod.validateBlocks };
}

interface Timed {
  tree: string;
  s: number;
  statuses: Map<string, string>;
  /** `id: class` of each block that did not pass. */
  failed: string[];
}

async function timed(tree: Tree, items: ValidateItem[], options: SharedOptions): Promise<Timed> {
  const t = performance.now();
  // No cache: every block runs in every run.
  const records = await tree.validate(items, { ...options });
  const s = (performance.now() - t) / 1000;
  process.stderr.write(`bench: hardening ${tree.label} ${tree.commit}: ${items.length} blocks in ${round(s, 1)} s\n`);
  const failed = records.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.failureClass ?? r.status}`);
  return { tree: tree.label, s, statuses: new Map(records.map((r) => [r.id, r.status])), failed };
}

function count(statuses: Map<string, string>, status: string): number {
  return [...statuses.values()].filter((s) => s === status).length;
}

export async function run(): Promise<Figure[]> {
  const name = 'validation cost of the round-two hardening, torchvision';
  if (!bwrapAvailable().ok) return [{ issue: ISSUE, figure: name, value: 'skipped: no bubblewrap', ok: false }];
  const limit = Number(process.env.NNBLOCKS_BENCH_LIMIT) || 0;
  const rounds = Math.max(1, Number(process.env.NNBLOCKS_BENCH_ROUNDS) || 2);
  const trees: string[] = [];
  try {
    const all = await torchvisionItems();
    const items = spread(all.items, limit);
    const options = all.options;
    trees.push(worktreeAt(BEFORE));
    const before = await loadTree('before', trees[0]);
    let after: Tree;
    if (AFTER) {
      trees.push(worktreeAt(AFTER));
      after = await loadTree('after', trees[1]);
    } else after = await loadTree('after', REPO);
    // Untimed: a few blocks through each tree first, so that neither pays for a cold page cache (torch's import).
    const warm = items.slice(0, Math.min(items.length, options.workers ?? 1));
    await before.validate(warm, options);
    await after.validate(warm, options);
    const runs: Timed[] = [];
    for (let r = 0; r < rounds; r++) {
      runs.push(await timed(before, items, options));
      runs.push(await timed(after, items, options));
    }
    const of = (label: string) => runs.filter((x) => x.tree === label);
    const median = (label: string) =>
      percentile(
        of(label).map((x) => x.s),
        50,
      );
    const [b, a] = [median('before'), median('after')];
    const cost = (100 * (a - b)) / b;
    // Statuses of the first run of each: a block whose status differs between the trees, and between runs of one.
    const [b0, a0] = [of('before')[0].statuses, of('after')[0].statuses];
    const changed = items.map((i) => i.id).filter((id) => b0.get(id) !== a0.get(id));
    const unsteady = (label: string) =>
      items.map((i) => i.id).filter((id) => new Set(of(label).map((x) => x.statuses.get(id))).size > 1);
    const passed = (label: string) => of(label).map((x) => count(x.statuses, 'passed'));
    const span = `${items.length}${limit ? ` of ${all.items.length}` : ''} blocks, ${options.workers} workers, ${rounds} runs each`;
    const detail = {
      before: before.commit,
      after: after.commit,
      blocks: items.length,
      torchvisionBlocks: all.items.length,
      workers: options.workers,
      timeoutMs: options.timeoutMs,
      order: runs.map((x) => `${x.tree} ${round(x.s, 2)} s`),
      passedBefore: passed('before'),
      passedAfter: passed('after'),
      failedBefore: of('before')[0].failed,
      failedAfter: of('after')[0].failed,
      statusChanged: changed.map((id) => `${id}: ${b0.get(id)} -> ${a0.get(id)}`),
      unsteadyBefore: unsteady('before'),
      unsteadyAfter: unsteady('after'),
    };
    return [
      {
        issue: ISSUE,
        figure: `validation wall time before the hardening (${before.commit}; ${span}), median`,
        value: round(b, 1),
        unit: 's',
        detail,
      },
      {
        issue: ISSUE,
        figure: `validation wall time after the hardening (${after.commit}), median`,
        value: round(a, 1),
        unit: 's',
      },
      {
        issue: ISSUE,
        figure: 'cost of the round-two hardening: (after - before) / before, medians',
        value: round(cost, 1),
        unit: '%',
        target: '<= 5%',
        ok: cost <= 5,
      },
      {
        issue: ISSUE,
        figure: `passed before / after (first runs; ${changed.length} blocks changed status)`,
        value: `${count(b0, 'passed')} / ${count(a0, 'passed')}`,
        target: 'equal',
        ok: count(b0, 'passed') === count(a0, 'passed'),
      },
    ];
  } finally {
    for (const dir of trees) {
      try {
        git(['worktree', 'remove', '--force', dir]);
      } catch {
        rmSync(dir, { recursive: true, force: true });
        git(['worktree', 'prune']);
      }
    }
  }
}
