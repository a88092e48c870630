// Measuring a whole `nnblocks build` from outside: wall time and the peak resident memory of its process tree
// (validate workers and their children included), sampled from /proc, for the corpus benchmarks. Two sums: RSS, and
// PSS (proportional set size), which counts a page shared by n processes as 1/n in each. A block's child is forked
// from a worker that has torch loaded, so their RSS both hold the same torch pages: summed RSS counts them once per
// process, PSS once in all, which is the memory the build takes from the machine.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Measured {
  s: number;
  /** Largest sum of resident memory over the build's process tree, sampled every 250 ms. */
  treePeakBytes: number;
  /** Largest sum of proportional set sizes (shared pages divided among their sharers) over the tree, every 5 s. */
  treePeakPssBytes: number;
  /** Largest single process (GNU time's maximum resident set size), when /usr/bin/time is there. */
  maxRssBytes: number | null;
  /** At the PSS peak: the PSS of each kind of process (`processRole`), with how many there were. */
  peakPssByRole: Record<string, { processes: number; bytes: number }>;
}

/** The pids of `root` and all its descendants, from /proc (Linux), with each one's resident bytes. */
function tree(root: number): Map<number, number> {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
      rss.set(Number(name), Number(fields[21]) * 4096);
    } catch {
      // gone meanwhile
    }
  }
  const mine = new Map<number, number>();
  for (const [pid, bytes] of rss) {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) {
      if (p === root) {
        mine.set(pid, bytes);
        break;
      }
    }
  }
  return mine;
}

/** Resident bytes of `root` and all its descendants, from /proc (Linux). */
function treeRss(root: number): number {
  return [...tree(root).values()].reduce((a, b) => a + b, 0);
}

/**
 * Summed resident and proportional set sizes of `root`'s tree; PSS from each process's smaps_rollup (Linux 4.14+),
 * also summed per kind of process (`processRole`).
 */
export function treeMemory(root: number): {
  rss: number;
  pss: number;
  byRole: Record<string, { processes: number; bytes: number }>;
} {
  let rss = 0;
  let pss = 0;
  const byRole: Record<string, { processes: number; bytes: number }> = {};
  const pids = tree(root);
  for (const [pid, bytes] of pids) {
    rss += bytes;
    try {
      const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      const mine = kb ? Number(kb[1]) * 1024 : bytes;
      pss += mine;
      const role = (byRole[processRole(pid, root)] ??= { processes: 0, bytes: 0 });
      role.processes += 1;
      role.bytes += mine;
    } catch {
      // gone meanwhile, or unreadable: nothing to add
    }
  }
  return { rss, pss, byRole };
}

/**
 * What a process of a build's tree is: `build` (the CLI itself), `worker` (a validation runner forked by no runner),
 * `block` (a runner forked by a runner: one block's child), `sandbox` (bubblewrap), else `other` (the bytecode
 * compile, the environment's probes).
 */
function processRole(pid: number, root: number): string {
  if (pid === root) return 'build';
  const cmd = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  const own = cmd(pid);
  if (own.startsWith('bwrap')) return 'sandbox';
  if (!own.includes('runner.py')) return /node/.test(own.split('\0')[0]) ? 'build' : 'other';
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const parent = cmd(ppid);
  return parent.includes('runner.py') && !parent.startsWith('bwrap') ? 'block' : 'worker';
}

/**
 * `nnblocks build --config CONFIG --out OUT [...extra]` in a child process: wall time, the process tree's peak
 * RSS and PSS, the largest process's RSS. Rejects with the tail of stderr when the build exits non-zero.
 */
export function timedBuild(config: string, out: string, extra: string[] = []): Promise<Measured> {
  const time = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', 'maxrss-kb %M'] : [];
  const cli = [process.execPath, join(ROOT, 'bin', 'nnblocks.mjs'), 'build', '--config', config, '--out', out];
  const cmd = [...time, ...cli, ...extra];
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    let peakPss = 0;
    let peakPssByRole: Measured['peakPssByRole'] = {};
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
    // PSS every 20th sample (5 s): reading smaps_rollup walks each process's page tables, and at every sample it
    // took most of a core from the build it measures (26 CPU minutes in a 37-minute validation of the paper corpus).
    let n = 0;
    const timer = setInterval(() => {
      const withPss = n++ % 20 === 0;
      const { rss, pss, byRole } = withPss ? treeMemory(child.pid!) : { rss: treeRss(child.pid!), pss: 0, byRole: {} };
      peak = Math.max(peak, rss);
      if (pss > peakPss) [peakPss, peakPssByRole] = [pss, byRole];
    }, 250);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      if (code !== 0) return reject(new Error(`nnblocks build exited ${code}: ${stderr.slice(-2000)}`));
      const kb = /maxrss-kb (\d+)/.exec(stderr);
      resolve({
        s: (performance.now() - t) / 1000,
        treePeakBytes: peak,
        treePeakPssBytes: peakPss,
        maxRssBytes: kb ? Number(kb[1]) * 1024 : null,
        peakPssByRole,
      });
    });
  });
}

/** Bytes as GiB, two decimals. */
export const gib = (b: number) => round(b / 1024 ** 3, 2);
