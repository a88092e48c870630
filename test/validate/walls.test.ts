// Hostile code, round two, as root (how CI runs): a block that takes over the sandbox's pid 1, changes the worker's
// limits or scheduling for later blocks, leaves SysV IPC objects behind, reads its source's `.git` (credentials CI
// checkouts keep there), or reads host facts from /proc and /sys. Each attack runs on the same worker as honest
// blocks after it, which must keep their own, correct records. Real bubblewrap, real torch.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ValidateItem, ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateRun } from '../../pipeline/validate/validate.ts';
import { py, writeTree } from '../helpers/tree.ts';
import { baseOptions, fixtureItems, hostileBlock } from './helpers.ts';

const SECRET = `nnb-extraheader-${Date.now()}`;
/** Appended to the host's PATH for the run: the sandbox must not show the host's environment anywhere. */
const PATH_CANARY = `/nnb-path-canary-${process.pid}`;

/** Helpers every hostile block carries inline (a block sees no other module). */
const PRELUDE = py`
  import ctypes, errno, glob, json, os, resource, signal, time
  import torch, torch.nn as nn
  libc = ctypes.CDLL(None, use_errno=True)
  libc.syscall.restype = ctypes.c_long
  def err(r):
      return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
  def attempt(fn):
      try:
          return fn()
      except OSError as e:
          return errno.errorcode.get(e.errno, str(e.errno))
`;

/** A hostile block: PRELUDE, then `body` run in the constructor, which ends by raising what it found. */
const hostile = (body: string): string => hostileBlock(PRELUDE, body);

/** An honest block that needs 256 MiB and says what it runs with (its priority, scheduler, CPUs, open files). */
const HONEST = py`
  import json, os, resource, torch, torch.nn as nn
  class Block(nn.Module):
      def __init__(self):
          super().__init__()
          self.fc = nn.Linear(4, 2)
          scratch = torch.ones(64 << 20)  # 256 MiB, well within the 2 GiB budget
          del scratch
          facts = {"nice": os.getpriority(os.PRIO_PROCESS, 0), "sched": os.sched_getscheduler(0),
                   "cpus": len(os.sched_getaffinity(0)), "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)}
          print("facts " + json.dumps(facts, sort_keys=True), flush=True)
      def forward(self, x):
          return self.fc(x)
`;

const KEY = 0x4e4e4221;

const ATTACKS: Record<string, string> = {
  // bubblewrap's own init, same uid and dumpable, was pid 1: its memory was writable by a block.
  pidOne: hostile(`
out = {"name": open("/proc/1/status").read().splitlines()[0].split()[-1]}
out["mem_rw"] = err(libc.open(b"/proc/1/mem", os.O_RDWR))
out["mem_ro"] = err(libc.open(b"/proc/1/mem", os.O_RDONLY))
out["environ"] = attempt(lambda: len(open("/proc/1/environ", "rb").read()))
out["caught"] = [l.split()[1] for l in open("/proc/1/status").read().splitlines() if l.startswith("SigCgt")][0]
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGSTOP):
    libc.kill(1, sig)  # below the audit hook
time.sleep(0.3)
raise RuntimeError("pid1 " + json.dumps(out, sort_keys=True))
`),
  limits: hostile(`
ppid = os.getppid()
vm = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
out = {"as": attempt(lambda: resource.prlimit(ppid, resource.RLIMIT_AS, (vm + (64 << 20), vm + (64 << 20)))),
       "nofile": attempt(lambda: resource.prlimit(ppid, resource.RLIMIT_NOFILE, (64, 64))),
       "nice": attempt(lambda: os.setpriority(os.PRIO_PROCESS, ppid, 19)),
       "nice_user": attempt(lambda: os.setpriority(os.PRIO_USER, 0, 19)),
       "idle": attempt(lambda: os.sched_setscheduler(ppid, os.SCHED_IDLE, os.sched_param(0))),
       "affinity": attempt(lambda: os.sched_setaffinity(ppid, {min(os.sched_getaffinity(0))})),
       "ioprio": err(libc.syscall(251, 1, ppid, 3 << 13)),
       "read_limit": attempt(lambda: list(resource.prlimit(ppid, resource.RLIMIT_NOFILE))),
       "own_nice": attempt(lambda: os.nice(1)),
       "own_limit": attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128)))}
raise RuntimeError("limits " + json.dumps(out, sort_keys=True))
`),
  ipcLeave: hostile(`
out = {}
shm = libc.syscall(29, ${KEY}, 1 << 20, 0o1000 | 0o600)  # shmget(IPC_CREAT)
out["shmget"] = err(shm)
if shm >= 0:
    libc.shmat.restype = ctypes.c_void_p
    addr = libc.shmat(int(shm), None, 0)
    ctypes.memmove(addr, b"nnb-ipc-marker", 14)
out["msgget"] = err(libc.syscall(68, ${KEY}, 0o1000 | 0o600))
out["semget"] = err(libc.syscall(64, ${KEY}, 1, 0o1000 | 0o600))
out["mq_open"] = err(libc.syscall(240, b"nnbmarker", os.O_CREAT | os.O_RDWR, 0o600, None))
raise RuntimeError("left " + json.dumps(out, sort_keys=True))
`),
  ipcFind: hostile(`
out = {"shm": err(libc.syscall(29, ${KEY}, 0, 0)), "msg": err(libc.syscall(68, ${KEY}, 0)),
       "sem": err(libc.syscall(64, ${KEY}, 0, 0)), "mq": err(libc.syscall(240, b"nnbmarker", os.O_RDONLY, 0, None))}
for kind in ("shm", "msg", "sem"):
    out["listed_" + kind] = len(open(f"/proc/sysvipc/{kind}").read().splitlines()) - 1
raise RuntimeError("found " + json.dumps(out, sort_keys=True))
`),
  hostFacts: hostile(`
environ = attempt(lambda: open("/proc/1/environ", "rb").read().decode("latin-1"))
cmdline = open("/proc/1/cmdline", "rb").read().decode("latin-1")
out = {"environ_path": "${PATH_CANARY}" in environ, "environ_len": len(environ),
       "cmdline_bwrap": "--ro-bind" in cmdline, "cmdline_staging": "nnblocks-sandbox-" in cmdline,
       "kernel": attempt(lambda: open("/proc/cmdline").read()),
       "macs": [attempt(lambda p=p: open(p).read().strip()) for p in glob.glob("/sys/class/net/*/address")],
       "cgroup": attempt(lambda: open("/sys/fs/cgroup/memory.current").read().strip()),
       "block": attempt(lambda: os.listdir("/sys/block")),
       "sys": sorted(os.listdir("/sys")),
       "cpu_online": attempt(lambda: open("/sys/devices/system/cpu/online").read().strip())}
raise RuntimeError("facts " + json.dumps(out, sort_keys=True))
`),
};

/** A path source's tree as CI leaves it: `.git/config` with the checkout's credentials, a submodule's gitfile. */
const gitRoot = writeTree({
  'pkg1/__init__.py': '',
  'pkg1/orig.py': 'class Orig:\n    pass\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config': `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${SECRET}\n`,
  '.git/modules/sub/config': `[remote "origin"]\n\turl = https://x-access-token:${SECRET}@github.com/o/sub\n`,
  'sub/.git': 'gitdir: ../.git/modules/sub\n',
  'vendored/lib/.git/config': `[http]\n\textraheader = AUTHORIZATION: basic ${SECRET}\n`,
});
/** A tree whose `.git` is a gitfile pointing into the tree itself (`git init --separate-git-dir`), and a link. */
const gitfileRoot = writeTree({
  'pkg2/__init__.py': '',
  'pkg2/orig.py': 'class Orig:\n    pass\n',
  '.gitstore/main/HEAD': 'ref: refs/heads/main\n',
  '.gitstore/main/config': `[http]\n\textraheader = AUTHORIZATION: basic ${SECRET}\n`,
  'linked/real-git/config': `[http]\n\textraheader = AUTHORIZATION: basic ${SECRET}\n`,
});
writeTree({ '.git': `gitdir: ${join(gitfileRoot, '.gitstore', 'main')}\n` }, gitfileRoot);
symlinkSync('real-git', join(gitfileRoot, 'linked', '.git'));

/** A block whose original lives in `root`: it reads every file the sandbox shows under that root. */
function gitThief(root: string): string {
  return hostile(`
hits, gits = [], {}
for d, dirs, files in os.walk("${root}"):
    for f in files:
        p = os.path.join(d, f)
        if "${SECRET}" in attempt(lambda: open(p, errors="replace").read()):
            hits.append(os.path.relpath(p, "${root}"))
for g in ("${root}/.git", "${root}/sub/.git", "${root}/linked/.git"):
    if os.path.isdir(g):
        gits[g[len("${root}/"):]] = sorted(os.listdir(g))
    elif os.path.exists(g):
        gits[g[len("${root}/"):]] = open(g).read()
raise RuntimeError("git " + json.dumps({"hits": hits, "gits": gits}, sort_keys=True))
`);
}

/** Attacks, each followed by an honest block on the same worker, in this order. */
const ORDER = ['honestFirst', ...Object.keys(ATTACKS).flatMap((name) => [name, `after_${name}`])];

let records: Record<string, ValidationRecord>;
let all: string;

beforeAll(async () => {
  const fixtures: Record<string, string> = Object.fromEntries(
    ORDER.map((name) => [name, ATTACKS[name] ?? HONEST] as [string, string]),
  );
  fixtures.gitThief = gitThief(gitRoot);
  fixtures.gitfileThief = gitThief(gitfileRoot);
  const made = fixtureItems(fixtures);
  const original = (root: string, module: string): ValidateItem['original'] => ({
    importRoot: root,
    module,
    className: 'Orig',
  });
  const items = made.items.map((it) =>
    it.id === 'fixture:gitThief'
      ? { ...it, original: original(gitRoot, 'pkg1.orig') }
      : it.id === 'fixture:gitfileThief'
        ? { ...it, original: original(gitfileRoot, 'pkg2.orig') }
        : it,
  );
  const path = process.env.PATH;
  process.env.PATH = `${path}:${PATH_CANARY}`;
  try {
    const run = await validateRun(items, baseOptions({ workers: 1, timeoutMs: 30_000, memoryBytes: 2 * 1024 ** 3 }));
    records = Object.fromEntries(run.records.map((r) => [r.id.replace(/^fixture:/, ''), r]));
  } finally {
    process.env.PATH = path;
  }
  all = JSON.stringify(records);
}, 240_000);

const errorOf = (name: string) => records[name].stages.map((s) => s.error ?? '').join(' ');
/** The JSON a hostile block raised after `tag `, parsed. */
function found(name: string, tag: string): Record<string, unknown> {
  const m = new RegExp(`${tag} (\\{.*\\})`).exec(errorOf(name));
  expect(m, `${name}: ${records[name].failureClass} ${records[name].failureDetail} ${errorOf(name)}`).not.toBeNull();
  return JSON.parse(m![1]) as Record<string, unknown>;
}
const facts = (name: string) => /facts (\{.*\})/.exec(records[name].stdoutTail)?.[1];

describe('hostile code, round two, as root', () => {
  it('every honest block after an attack keeps its own record, with the same limits and priority', () => {
    for (const name of ORDER.filter((n) => !ATTACKS[n])) {
      expect(records[name], `${name}: ${records[name].failureDetail} ${errorOf(name)}`).toMatchObject({
        status: 'passed',
        params: 10,
      });
      expect(facts(name), name).toBe(facts('honestFirst'));
    }
    expect(JSON.parse(facts('honestFirst')!)).toMatchObject({ nofile: [256, 256] });
  });

  it("cannot reach the sandbox's pid 1: the worker, not dumpable, catching no signal", () => {
    const out = found('pidOne', 'pid1');
    expect(out.name).toMatch(/^python/); // the worker itself, not bubblewrap's init
    expect(out.mem_rw).toMatch(/^(EACCES|EPERM)$/);
    expect(out.mem_ro).toMatch(/^(EACCES|EPERM)$/);
    expect(out.environ).toMatch(/^(EACCES|EPERM)$/);
    expect(out.caught).toBe('0000000000000000');
    // Its own record: the signals it sent did not end the worker (which would make it `crashed`).
    expect(records.pidOne.failureClass).not.toBe('crashed');
  });

  it("cannot change the worker's limits, priority, scheduler, affinity or I/O priority; only its own", () => {
    const out = found('limits', 'limits');
    for (const key of ['as', 'nofile', 'nice', 'nice_user', 'idle', 'affinity', 'ioprio'])
      expect(out[key], key).toBe('EPERM');
    expect(out.read_limit).toEqual([expect.any(Number), expect.any(Number)]); // reading another's changes nothing
    expect(out.own_nice).toBe(1);
    expect(out.own_limit).toBeNull();
  });

  it('gets no SysV IPC object or POSIX message queue, and the next block finds none', () => {
    const left = found('ipcLeave', 'left');
    for (const key of ['shmget', 'msgget', 'semget', 'mq_open']) expect(left[key], key).toBe('EPERM');
    const seen = found('ipcFind', 'found');
    for (const key of ['shm', 'msg', 'sem', 'mq']) expect(seen[key], key).not.toBe('ok');
    for (const key of ['listed_shm', 'listed_msg', 'listed_sem']) expect(seen[key], key).toBe(0);
  });

  it("sees no host fact: pid 1's environment and command line, the kernel's, NICs, cgroups, disks", () => {
    const out = found('hostFacts', 'facts');
    expect(out.environ_path).toBe(false);
    expect(out.cmdline_bwrap).toBe(false);
    expect(out.cmdline_staging).toBe(false);
    expect(out.kernel).toBe('');
    expect(out.macs).toEqual([]);
    expect(out.cgroup).toBe('ENOENT');
    expect(out.block).toBe('ENOENT');
    expect(out.sys).toEqual(['devices']);
    expect(out.cpu_online).toMatch(/^\d/); // CPU topology stays: torch's cpuinfo reads it
    expect(all).not.toContain(PATH_CANARY);
    expect(all).not.toContain('Error in cpuinfo');
  });

  it("never shows a source's .git: a directory, a gitfile's target, a nested repository or a linked one", () => {
    const git = found('gitThief', 'git');
    expect(git.hits).toEqual([]);
    expect(git.gits).toEqual({ '.git': [], 'sub/.git': '' }); // an empty folder, an empty file
    const gitfile = found('gitfileThief', 'git');
    expect(gitfile.hits).toEqual([]);
    expect(gitfile.gits).toEqual({ '.git': '', 'linked/.git': [] });
    expect(all).not.toContain(SECRET);
  });
});
