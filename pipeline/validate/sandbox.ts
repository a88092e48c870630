// The bubblewrap sandbox a validate worker runs in. Upstream code runs as uid/gid 65534 in its own user namespace
// with every capability dropped, no_new_privs, a seccomp filter, no network, a read-only view of the system and
// of one block at a time, and small private tmpfs mounts. When nnblocks runs as root, bubblewrap itself is started
// as uid 65534, so the sandbox's processes are not host root either (and RLIMIT_NPROC, void for root, bounds them).
// See docs/validate.md ("Sandbox").
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { seccompProgram, seccompSupported } from './seccomp.ts';

export const NO_SANDBOX_DETAIL = 'no sandbox: install with `apt-get install bubblewrap`';

/** The uid and gid upstream code runs as inside the sandbox (and on the host, when nnblocks runs as root). */
export const SANDBOX_UID = 65534;

/** Where the runner's files appear inside the sandbox (a read-only copy, see validate.ts). */
export const SANDBOX_RUNNER_DIR = '/nnb/runner';
/** Where a worker's inbox appears inside the sandbox: the one block it runs now, read-only. */
export const SANDBOX_INBOX = '/nnb/block';
/** Inside the sandbox /tmp is a private, size-capped tmpfs; each block gets a fresh folder under it. */
export const SANDBOX_WORK_ROOT = '/tmp/nnblocks-work';
/** The fd bubblewrap reads the seccomp program from (stdio index 4 of the spawned process). */
export const SECCOMP_FD = 4;

/** The host uid the sandbox's processes run as: never root. */
export function sandboxHostUid(): number {
  const uid = process.getuid?.() ?? SANDBOX_UID;
  return uid === 0 ? SANDBOX_UID : uid;
}

/** Spawn options that start bubblewrap as `sandboxHostUid()` (libuv also drops supplementary groups). */
export function hostIdentity(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {};
}

/** The flags that take every privilege away; the probe checks that this machine honours all of them. */
function privilegeArgs(): string[] {
  return [
    '--unshare-all', // ipc, pid, net, uts, cgroup: no network, and a pid namespace the worker can sweep
    '--unshare-user',
    '--disable-userns', // no nested user namespace: upstream code can't win capabilities back in a new one
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session', // no controlling terminal to inject keystrokes into (TIOCSTI)
    ...(seccompSupported() ? ['--seccomp', String(SECCOMP_FD)] : []),
  ];
}

/**
 * Writes the seccomp program into `dir` and opens it, for stdio index SECCOMP_FD of a spawned bubblewrap (an fd
 * opened here survives the uid switch, whatever the file's mode); none where this machine has no filter.
 * The caller closes the fd once the process started.
 */
export function seccompFds(dir: string): number[] {
  if (!seccompSupported()) return [];
  const file = join(dir, 'seccomp.bpf');
  if (!existsSync(file)) writeFileSync(file, seccompProgram());
  return [openSync(file, 'r')];
}

let probed: { ok: boolean; error?: string } | undefined;

/**
 * Whether bubblewrap exists *and* can drop every privilege here (a container may forbid user namespaces), with
 * the real flags and as the real host uid. Probed once per process.
 */
export function bwrapAvailable(): { ok: boolean; error?: string } {
  if (probed) return probed;
  const dir = mkdtempSync(join(tmpdir(), 'nnblocks-probe-'));
  const fds = seccompFds(dir);
  try {
    execFileSync('bwrap', [...privilegeArgs(), ...systemBinds(), '--proc', '/proc', '--dev', '/dev', 'true'], {
      stdio: ['ignore', 'ignore', 'pipe', 'ignore', ...fds],
      timeout: 20_000,
      ...hostIdentity(),
    });
    probed = { ok: true };
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer; message: string };
    probed = { ok: false, error: e.code === 'ENOENT' ? 'bwrap not found' : e.stderr?.toString().trim() || e.message };
  } finally {
    for (const fd of fds) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return probed;
}

/** System folders, read-only. Merged-/usr systems have /bin, /lib... as symlinks into /usr: recreate them as such. */
function systemBinds(): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(top)) continue;
    if (lstatSync(top).isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else args.push('--ro-bind', top, top);
  }
  // Only what the dynamic loader, Python and BLAS need from /etc (Debian's libblas goes through /etc/alternatives);
  // not /etc as a whole, whose contents a block could otherwise print into its record.
  const etc = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'localtime', 'nsswitch.conf'];
  if (existsSync('/etc')) etc.push(...readdirSync('/etc').filter((n) => n.startsWith('python')));
  for (const name of etc) args.push('--ro-bind-try', join('/etc', name), join('/etc', name));
  return args;
}

/** Drops folders nested in another one of the list (binding the outer one shows them already). */
export function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths.filter((p) => p && existsSync(p)).map((p) => resolve(p)))].sort(
    (a, b) => a.length - b.length,
  );
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => p === o || p.startsWith(o.endsWith(sep) ? o : o + sep))) out.push(p);
  return out;
}

/**
 * Whether `uid` can read `path` (and traverse to it) by the permission bits alone: the sandbox's processes are
 * never root, so a project under a 0700 home is invisible to them. Owner and other bits only (no group: the
 * sandbox drops supplementary groups).
 */
export function readableBy(path: string, uid: number): boolean {
  const abs = resolve(path);
  const parts = abs.split(sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const p = sep + parts.slice(0, i).join(sep);
    let st;
    try {
      st = statSync(p);
    } catch {
      return false;
    }
    const owner = st.uid === uid;
    const need = i === parts.length ? (st.isDirectory() ? 0o5 : 0o4) : 0o1;
    const bits = owner ? (st.mode >> 6) & 0o7 : st.mode & 0o7;
    if ((bits & need) !== need) return false;
  }
  return true;
}

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
}

/** The prefix of a Python outside /usr (a virtualenv), which must be visible too. */
export function pythonPrefixes(python: string): string[] {
  return [dirname(dirname(resolve(python))), dirname(dirname(python))].filter((p) => !p.startsWith('/usr'));
}

/** The command line running the worker inside bubblewrap. */
export function sandboxCommand(spec: SandboxSpec): { file: string; args: string[] } {
  const roots = outermost([...spec.readOnly, ...pythonPrefixes(spec.python)]).filter((p) => !p.startsWith('/usr/'));
  const args = [
    ...privilegeArgs(),
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
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    spec.python,
    '-I',
    '-B',
    '-u',
    join(SANDBOX_RUNNER_DIR, 'runner.py'),
  ];
  return { file: 'bwrap', args };
}

/** The NVIDIA device nodes only (not the host's /dev: its /dev/shm, disks and terminals stay out). */
function gpuDeviceArgs(): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/dev').sort()) {
    if (name.startsWith('nvidia')) out.push('--dev-bind-try', join('/dev', name), join('/dev', name));
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
