// The bubblewrap sandbox a validate worker runs in: no network, read-only system, private /tmp, nothing else visible.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

export const NO_SANDBOX_DETAIL = 'no sandbox: install with `apt-get install bubblewrap`';

/** Inside the sandbox /tmp is a private tmpfs; each block gets a fresh folder under this one. */
export const SANDBOX_WORK_ROOT = '/tmp/nnblocks-work';

let probed: { ok: boolean; error?: string } | undefined;

/**
 * Whether bubblewrap exists *and* works here with the namespaces we ask for (a container may forbid them).
 * Probed once per process.
 */
export function bwrapAvailable(): { ok: boolean; error?: string } {
  if (probed) return probed;
  try {
    execFileSync(
      'bwrap',
      [
        '--unshare-all',
        '--die-with-parent',
        '--new-session',
        ...systemBinds(),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        'true',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 20_000,
      },
    );
    probed = { ok: true };
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer; message: string };
    probed = { ok: false, error: e.code === 'ENOENT' ? 'bwrap not found' : e.stderr?.toString().trim() || e.message };
  }
  return probed;
}

/** System folders, read-only. Merged-/usr systems have /bin, /lib... as symlinks into /usr: recreate them as such. */
function systemBinds(): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt']) {
    if (!existsSync(top)) continue;
    if (lstatSync(top).isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else args.push('--ro-bind', top, top);
  }
  // Only what the dynamic loader, Python and BLAS need from /etc (Debian's libblas goes through /etc/alternatives);
  // not /etc as a whole, whose contents a block could otherwise print into its stdout tail.
  const etc = [
    'ld.so.cache',
    'ld.so.conf',
    'ld.so.conf.d',
    'alternatives',
    'localtime',
    'passwd',
    'group',
    'nsswitch.conf',
    'hosts',
    'ssl',
  ];
  if (existsSync('/etc')) etc.push(...readdirSync('/etc').filter((n) => n.startsWith('python')));
  for (const name of etc) args.push('--ro-bind-try', join('/etc', name), join('/etc', name));
  return args;
}

/** Drops folders nested in another one of the list (binding the outer one shows them already). */
export function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths.filter((p) => p && existsSync(p)).map((p) => realpathSync(p)))].sort(
    (a, b) => a.length - b.length,
  );
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => p === o || p.startsWith(o.endsWith(sep) ? o : o + sep))) out.push(p);
  return out;
}

export interface SandboxSpec {
  python: string;
  runner: string;
  /** Folders the blocks import from (assembled roots, original roots); bound read-only at the same path. */
  readOnly: string[];
  /** Whether GPU device nodes must be visible (device auto or cuda, and /dev/nvidia* present). */
  gpu: boolean;
}

/** The command line running the worker inside bubblewrap. */
export function sandboxCommand(spec: SandboxSpec): { file: string; args: string[] } {
  const pyPath = realpathSync(spec.python);
  // A virtualenv or a Python outside /usr: make its prefix visible too.
  const extra = [dirname(dirname(pyPath)), dirname(dirname(spec.python))].filter((p) => !p.startsWith('/usr'));
  const roots = outermost([...spec.readOnly, dirname(spec.runner), ...extra]).filter((p) => !p.startsWith('/usr/'));
  const args = [
    '--unshare-all', // user, ipc, pid, net, uts, cgroup: no network, and a pid namespace the worker can sweep
    '--die-with-parent',
    '--new-session', // no controlling terminal to inject keystrokes into (TIOCSTI)
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'OMP_NUM_THREADS',
    '1',
    '--setenv',
    'MKL_NUM_THREADS',
    '1',
    '--setenv',
    'PYTHONHASHSEED',
    '0',
    ...systemBinds(),
    '--ro-bind-try',
    '/sys',
    '/sys', // CPU topology for torch, and the GPU for CUDA
    '--proc',
    '/proc',
    ...(spec.gpu ? ['--dev-bind', '/dev', '/dev'] : ['--dev', '/dev']),
    '--tmpfs',
    '/tmp',
    ...roots.flatMap((r) => ['--ro-bind', r, r]),
    '--chdir',
    '/tmp',
    spec.python,
    '-I',
    '-B',
    '-u',
    spec.runner,
  ];
  return { file: 'bwrap', args };
}

/** Whether NVIDIA device nodes exist on this machine. */
export function hasGpuDevices(): boolean {
  try {
    return readdirSync('/dev').some((n) => n.startsWith('nvidia'));
  } catch {
    return false;
  }
}
