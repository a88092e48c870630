// The bubblewrap sandbox a validate worker runs in: the shared primitives (pipeline/sandbox/bwrap.ts) plus what a
// worker sees: a read-only view of the system and of one block at a time, the Python's prefixes, its source's tree
// without its git metadata, small private tmpfs mounts, CPU topology from /sys, and the GPU's device nodes when
// asked. The worker is the sandbox's pid 1 (`--as-pid-1`). See docs/validate.md ("Sandbox").
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { accountBinds, offlineNameBinds, outermost, privilegeArgs, sandboxEnv, systemBinds } from '../sandbox/bwrap.ts';
import { gitMaskArgs } from '../sandbox/git-masks.ts';
import { emptyMasks, procArgs, sysArgs } from '../sandbox/host-view.ts';

export const NO_SANDBOX_DETAIL = 'no sandbox: install with `apt-get install bubblewrap`';

/** Where the runner's files appear inside the sandbox (a read-only copy, see validate.ts). */
export const SANDBOX_RUNNER_DIR = '/nnb/runner';
/** Where a worker's inbox appears inside the sandbox: the one block it runs now, read-only. */
export const SANDBOX_INBOX = '/nnb/block';
/** Inside the sandbox /tmp is a private, size-capped tmpfs; each block gets a fresh folder under it. */
export const SANDBOX_WORK_ROOT = '/tmp/nnblocks-work';

export interface SandboxSpec {
  python: string;
  /** Host folder with the runner's copy; bound read-only at SANDBOX_RUNNER_DIR. */
  runnerDir: string;
  /** Host folder the TypeScript side puts the current block into; bound read-only at SANDBOX_INBOX. */
  inboxDir: string;
  /** Folders an original class imports from (fidelity), bound read-only at the same path. */
  readOnly: string[];
  /** Whether GPU device nodes must be visible (device auto or cuda, and /dev/nvidia* present). */
  gpu: boolean;
  /** Size of the private /tmp, in bytes. */
  tmpBytes: number;
  /** Host folder for the sandbox's own small files (account files, empty masks): the run's staging folder. */
  accountsDir: string;
  /** Folders the interpreter needs besides its own prefix (a requirements layer's base environment). */
  pythonRoots?: string[];
  /** Site folders to append instead of site processing (`runnerArgs`); undefined: the interpreter's own. */
  sites?: string[];
}

/**
 * The interpreter's arguments for the runner: `-I` always; with `sites`, `-S` too and each folder as `--site`, so
 * no `.pth` file or `sitecustomize` of an installed package runs in the worker (runner.py).
 */
export function runnerArgs(runner: string, sites?: string[]): string[] {
  return sites ? ['-I', '-S', '-B', '-u', runner, ...sites.flatMap((s) => ['--site', s])] : ['-I', '-B', '-u', runner];
}

/** The prefix of a Python outside /usr (a virtualenv), which must be visible too. */
export function pythonPrefixes(python: string): string[] {
  return [dirname(dirname(resolve(python))), dirname(dirname(python))].filter((p) => !p.startsWith('/usr'));
}

/**
 * The version of the walls below, part of every sandboxed result's cache key: change it with any wall that changes
 * what a block sees or may do, so that results found behind the old walls are found again. (2: name resolution
 * without DNS, offlineNameBinds. 3: matplotlib's font manager preloaded in the worker, companions.ts COMPANIONS.)
 */
export const SANDBOX_WALLS = 'walls/3';

/** The command line running the worker inside bubblewrap. */
export function sandboxCommand(spec: SandboxSpec): { file: string; args: string[] } {
  const roots = outermost([...spec.readOnly, ...pythonPrefixes(spec.python), ...(spec.pythonRoots ?? [])]).filter(
    (p) => !p.startsWith('/usr/'),
  );
  const empty = emptyMasks(spec.accountsDir);
  const args = [
    ...privilegeArgs(),
    // No bubblewrap init: the worker itself is pid 1, and reaps. bubblewrap's init ran as the sandbox's uid and was
    // dumpable, so a block could write into its memory (/proc/1/mem) and outlive the sweep, which spares pid 1; the
    // worker is not dumpable, and as its namespace's init it gets no signal from a block unless it catches it
    // (it catches none, runner.py). Its /proc/1 shows the runner's command line, not bubblewrap's binds.
    '--as-pid-1',
    '--clearenv',
    ...sandboxEnv(),
    // One intra-op thread per worker: one worker per core already.
    '--setenv',
    'OMP_NUM_THREADS',
    '1',
    '--setenv',
    'MKL_NUM_THREADS',
    '1',
    ...systemBinds(),
    ...accountBinds(spec.accountsDir),
    ...offlineNameBinds(spec.accountsDir),
    ...sysArgs(spec.gpu),
    ...procArgs(empty.file),
    '--dev',
    '/dev',
    ...(spec.gpu ? gpuDeviceArgs() : []),
    // /dev itself is a tmpfs as large as half the RAM: read-only, with a small private /dev/shm below it.
    '--size',
    String(Math.min(spec.tmpBytes, 64 << 20)),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(spec.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    spec.runnerDir,
    SANDBOX_RUNNER_DIR,
    '--ro-bind',
    spec.inboxDir,
    SANDBOX_INBOX,
    ...roots.flatMap((r) => ['--ro-bind', r, r]),
    // After the binds they cover: a source's .git, and what a gitfile or a .git link points to (sandbox/git-masks.ts).
    ...gitMaskArgs(spec.readOnly, ['/usr', ...roots], empty),
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    spec.python,
    ...runnerArgs(join(SANDBOX_RUNNER_DIR, 'runner.py'), spec.sites),
  ];
  return { file: 'bwrap', args };
}

/**
 * The NVIDIA device nodes only (not the host's /dev: its /dev/shm, disks and terminals stay out), with their
 * /dev/nvidia-caps folder; `dev` is the host's /dev (tests use a fake).
 */
export function gpuDeviceArgs(dev = '/dev'): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dev).sort()) {
    if (name.startsWith('nvidia')) out.push('--dev-bind-try', join(dev, name), join('/dev', name));
  }
  return out;
}

/** Whether NVIDIA device nodes exist on this machine. */
export function hasGpuDevices(): boolean {
  try {
    return readdirSync('/dev').some((n) => n.startsWith('nvidia'));
  } catch {
    return false;
  }
}
