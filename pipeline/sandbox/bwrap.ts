// bubblewrap primitives shared by every sandbox nnblocks starts: the validate workers (pipeline/validate/sandbox.ts)
// and the installs of declared requirements (pipeline/environment/layer.ts). Upstream code runs as uid/gid 65534
// in its own user namespace with every capability dropped, no_new_privs and a seccomp filter; when nnblocks runs as
// root, bubblewrap itself is started as uid 65534, so the sandbox's processes are not host root either (and
// RLIMIT_NPROC, void for root, bounds them). See docs/validate.md ("Sandbox").
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
import { join, resolve, sep } from 'node:path';
import { seccompProgram, seccompSupported } from './seccomp.ts';

/** The uid and gid upstream code runs as inside the sandbox (and on the host, when nnblocks runs as root). */
export const SANDBOX_UID = 65534;
/** The host name inside an offline sandbox (its own UTS namespace): the host's own shows in no record. */
export const SANDBOX_HOSTNAME = 'nnblocks-sandbox';

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

/**
 * The flags that take every privilege away; the probe checks that this machine honours all of them. `network`
 * keeps the host's network (only the install sandbox, which downloads declared requirements, asks for it).
 */
export function privilegeArgs(opts: { network?: boolean } = {}): string[] {
  return [
    '--unshare-all', // ipc, pid, net, uts, cgroup: no network, and a pid namespace the worker can sweep
    ...(opts.network ? ['--share-net'] : []),
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

/**
 * System folders, read-only. Merged-/usr systems have /bin, /lib... as symlinks into /usr: recreate them as such.
 * From /etc only what the dynamic loader, Python and BLAS need (Debian's libblas goes through /etc/alternatives),
 * plus `etc` extra names: not /etc as a whole, whose contents a block could otherwise print into its record.
 * Name resolution is the caller's: `offlineNameBinds` without a network, the host's files with one.
 */
export function systemBinds(etcExtra: string[] = []): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(top)) continue;
    if (lstatSync(top).isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else args.push('--ro-bind', top, top);
  }
  const etc = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'localtime', ...etcExtra];
  if (existsSync('/etc')) etc.push(...readdirSync('/etc').filter((n) => n.startsWith('python')));
  for (const name of [...new Set(etc)]) args.push('--ro-bind-try', join('/etc', name), join('/etc', name));
  return args;
}

/**
 * The account files every sandbox sees instead of the host's: only root and the sandbox's own user, so that
 * `getpass.getuser()` and `pwd.getpwuid(os.getuid())` (torch 2.x asks them for its cache folders) answer, and no
 * account of the host shows. Written into `dir` (a staging folder) and bound read-only over /etc/passwd and /etc/group.
 */
export function accountBinds(dir: string): string[] {
  const passwd = join(dir, 'passwd');
  const group = join(dir, 'group');
  if (!existsSync(passwd))
    writeFileSync(
      passwd,
      `root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:${SANDBOX_UID}:${SANDBOX_UID}:nobody:/tmp:/usr/sbin/nologin\n`,
      { mode: 0o644 },
    );
  if (!existsSync(group)) writeFileSync(group, `root:x:0:\nnogroup:x:${SANDBOX_UID}:\n`, { mode: 0o644 });
  return ['--ro-bind', passwd, '/etc/passwd', '--ro-bind', group, '/etc/group'];
}

/**
 * Name resolution without a network: only /etc/hosts (localhost and the sandbox's own host name), never DNS. With
 * the host's nsswitch.conf (`hosts: files dns`) and no resolv.conf, glibc's resolver sends its queries to
 * 127.0.0.1:53 itself, below the audit hook, and the kernel counts those packets as a network attempt: upstream
 * code that only looks for its pretrained weights (`resnet50(pretrained=True)` in a builder) became a
 * sandbox violation. Without DNS the lookup fails in Python like any unreachable host, with no packet sent.
 * The host name is fixed too, so the host's own name shows nowhere in a record.
 */
export function offlineNameBinds(dir: string): string[] {
  const nsswitch = join(dir, 'nsswitch.conf');
  const hosts = join(dir, 'hosts');
  if (!existsSync(nsswitch))
    writeFileSync(nsswitch, 'passwd: files\ngroup: files\nhosts: files\nnetworks: files\n', { mode: 0o644 });
  if (!existsSync(hosts))
    writeFileSync(hosts, `127.0.0.1\tlocalhost ${SANDBOX_HOSTNAME}\n::1\tlocalhost ${SANDBOX_HOSTNAME}\n`, {
      mode: 0o644,
    });
  return [
    '--hostname',
    SANDBOX_HOSTNAME,
    '--ro-bind',
    nsswitch,
    '/etc/nsswitch.conf',
    '--ro-bind',
    hosts,
    '/etc/hosts',
  ];
}

/**
 * Variables every sandbox sets after `--clearenv`: who the user is (torch 2.x, timm and transformers ask
 * `getpass.getuser()` and `~` at import) and where caches go (all under the private /tmp), so nothing fails or
 * writes elsewhere because the sandbox has no home. Nothing of the host's environment is passed.
 */
export function sandboxEnv(): string[] {
  const vars: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: '/tmp',
    USER: 'nobody',
    LOGNAME: 'nobody',
    LANG: 'C.UTF-8',
    XDG_CACHE_HOME: '/tmp/.cache',
    XDG_CONFIG_HOME: '/tmp/.config',
    TORCH_HOME: '/tmp/.cache/torch',
    TORCHINDUCTOR_CACHE_DIR: '/tmp/.cache/torchinductor',
    TRITON_CACHE_DIR: '/tmp/.cache/triton',
    HF_HOME: '/tmp/.cache/huggingface',
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    MPLCONFIGDIR: '/tmp/.cache/matplotlib',
    MPLBACKEND: 'Agg',
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  return Object.entries(vars).flatMap(([k, v]) => ['--setenv', k, v]);
}

/** Whether `path` is /usr or below it: every sandbox shows /usr already (systemBinds). */
export function underUsr(path: string): boolean {
  return path === '/usr' || path.startsWith('/usr/');
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
  return closedOnTheWay(path, uid, 'closed') === null;
}

/**
 * The first component of `path` (from `/`) that `uid` can't pass through, or, for `path` itself, read (a folder:
 * list); null when none. A component that does not exist is `missing`'s answer: closed (`readableBy`), or the end
 * of the check (`stop`: a folder about to be made, world-readable).
 */
export function closedOnTheWay(path: string, uid: number, missing: 'closed' | 'stop'): string | null {
  const parts = resolve(path).split(sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const p = sep + parts.slice(0, i).join(sep);
    let st;
    try {
      st = statSync(p);
    } catch {
      return missing === 'closed' ? p : null;
    }
    const bits = st.uid === uid ? (st.mode >> 6) & 0o7 : st.mode & 0o7;
    const need = i === parts.length ? (st.isDirectory() ? 0o5 : 0o4) : 0o1;
    if ((bits & need) !== need) return p;
  }
  return null;
}
