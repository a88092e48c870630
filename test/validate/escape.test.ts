// Escape attempts, as root (how CI and `npm run catalog` run): each hostile block tries one attack (read, write,
// signal, network, forge a record...) and reports what it got in its own error message, so the test reads the
// outcome from the record. Honest blocks run between them on the same worker and must keep their own, correct
// records. Real bubblewrap, real torch.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SandboxReport } from '../../pipeline/contract/build-info.ts';
import { seccompSupported } from '../../pipeline/sandbox/seccomp.ts';
import type { ValidateItem, ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateRun } from '../../pipeline/validate/validate.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';
import { baseOptions, fixtureItems, hostileBlock, processesMatching, runProcessName } from './helpers.ts';

const CANARY = `nnb-canary-${Date.now()}`;
const STRAY = runProcessName('nnbzomb'); // this run's own: another run's zombie test is not ours
const TMP_BYTES = 16 << 20;

/** Helpers every hostile block carries inline (a block sees no other module). */
const PRELUDE = py`
  import ctypes, errno, fcntl, gc, json, os, stat, sys, threading, time
  import torch, torch.nn as nn
  libc = ctypes.CDLL(None, use_errno=True)
  libc.syscall.restype = ctypes.c_long
  def err(r):
      return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
  def result_pipes():
      fds = []
      for fd in range(3, 256):
          try:
              if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                  fds.append(fd)
          except OSError:
              pass
      return fds
  def forge(record):
      line = (json.dumps({"t": "final", **record}) + "\\n").encode()
      for fd in result_pipes():
          os.write(fd, line)
  VALID = {"status": "passed", "failureClass": None, "failureDetail": None, "stages": [],
           "recipe": {"seed": 0, "origin": "inference", "kwargs": {}, "inputs": []}, "outputs": [], "params": 31337, "buffers": 0,
           "gradients": None, "peakMemoryBytes": None, "moduleTree": None, "fidelity": {"status": "n/a"}}
  def attempt(fn):
      try:
          return str(fn())
      except OSError as e:
          return errno.errorcode.get(e.errno, str(e.errno))
`;

/** A hostile block: PRELUDE, then `body` run in the constructor, whatever it returns is raised as the error. */
const hostile = (body: string): string => hostileBlock(PRELUDE, body);

const HONEST = py`
  import torch.nn as nn
  class Block(nn.Module):
      def __init__(self):
          super().__init__()
          self.fc = nn.Linear(4, 2)
      def forward(self, x):
          return self.fc(x)
`;

const secretRoot = writeTree({ 'other_pkg/__init__.py': '', 'other_pkg/secret.py': `TOKEN = "${CANARY}-other"\n` });

const ATTACKS: Record<string, string> = {
  identity: hostile(`
status = open("/proc/self/status").read()
raise RuntimeError("|".join(l for l in status.splitlines() if l.split(":")[0] in ("Uid", "Gid", "CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp")))
`),
  remount: hostile(`
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
here = os.path.dirname(os.path.abspath(__file__))
out = ["remount-block=" + err(libc.mount(None, here.encode(), None, MS_REMOUNT | MS_BIND, None)),
       "remount-root=" + err(libc.mount(None, b"/", None, MS_REMOUNT, None)),
       "own-module=" + err(libc.open(os.path.abspath(__file__).encode(), os.O_WRONLY | os.O_APPEND)),
       "runner=" + err(libc.open(b"/nnb/runner/runner.py", os.O_WRONLY | os.O_APPEND)),
       "dev=" + err(libc.open(b"/dev/evil", os.O_CREAT | os.O_WRONLY, 0o644)),
       "root=" + err(libc.open(b"/evil", os.O_CREAT | os.O_WRONLY, 0o644)),
       "cache-visible=" + str(os.path.exists(${JSON.stringify(process.cwd())})),
       "inbox=" + ",".join(sorted(os.listdir(os.path.dirname(here))))]
raise RuntimeError(" ".join(out))
`),
  seccomp: hostile(`
ppid = os.getppid()
iov = (ctypes.c_char * 8)()
out = ["ptrace=" + err(libc.ptrace(16, ppid, None, None)),
       "pidfd_getfd=" + err(libc.syscall(438, libc.syscall(434, ppid, 0), 3, 0)),
       "process_vm_readv=" + err(libc.syscall(310, ppid, None, 0, None, 0, 0)),
       "keyctl=" + err(libc.syscall(250, 0, -4, 0)),
       "bpf=" + err(libc.syscall(321, 0, None, 0)),
       "userfaultfd=" + err(libc.syscall(323, 0)),
       "unshare=" + err(libc.unshare(0x10000000)),
       "proc-fd3=" + attempt(lambda: os.open(f"/proc/{ppid}/fd/3", os.O_WRONLY)),
       "proc-mem=" + attempt(lambda: os.open(f"/proc/{ppid}/mem", os.O_RDONLY))]
raise RuntimeError(" ".join(out))
`),
  nonceTheft: hostile(`
nonce, frame = None, sys._getframe()
while frame is not None and nonce is None:  # the worker's hello, still on the forked stack
    nonce = frame.f_locals.get("nonce")
    frame = frame.f_back
ppid, fds = os.getppid(), []
for path in (f"/proc/{ppid}/fd/3", "/proc/1/fd/3"):
    fd = libc.open(path.encode(), os.O_WRONLY)
    if fd >= 0:
        fds.append(fd)
fd = libc.syscall(438, libc.syscall(434, ppid, 0), 3, 0)  # pidfd_getfd(pidfd_open(worker), 3)
if fd >= 0:
    fds.append(fd)
for victim in ("fixture:nonceTheft", "fixture:honest3", "fixture:honest4"):
    line = (json.dumps({"nonce": nonce, "type": "result", "id": victim, "token": "guess", "record": VALID}) + "\\n").encode()
    for fd in fds:
        libc.write(fd, line, len(line))
raise RuntimeError(f"stole nonce {nonce is not None}, result channels {len(fds)}")
`),
  forgeSelf: hostile(`
forge(VALID)
os._exit(0)
`),
  malformed: hostile(`
forge({"status": "passed", "params": "lots", "stages": "none"})
os._exit(0)
`),
  kwargInjection: hostile(`
rec = dict(VALID)
rec["recipe"] = {"seed": 0, "kwargs": {"__import__('os').system('id')": 1}, "inputs": [{"shape": [1], "dtype": "float32); import os #"}]}
forge(rec)
os._exit(0)
`),
  zombieWriter: hostile(`
if libc.fork() == 0:
    libc.prctl(15, b"${STRAY}", 0, 0, 0)
    def spam():
        deadline = time.time() + 20
        while time.time() < deadline:
            for pid in os.listdir("/proc"):
                for fd in range(3, 64):
                    w = libc.open(f"/proc/{pid}/fd/{fd}".encode(), os.O_WRONLY | os.O_NONBLOCK)
                    if w >= 0:  # below the audit hook: only the sweep stops this
                        line = (json.dumps({"t": "final", **VALID}) + "\\n").encode()
                        libc.write(w, line, len(line))
                        libc.close(w)
            time.sleep(0.01)
    threading.Thread(target=spam).start()
    time.sleep(0.05)
    libc.syscall(60, 0)  # SYS_exit: only this thread ends; the leader turns zombie, the spammer lives on
time.sleep(0.3)
`),
  forkBomb: hostile(`
n = 0
for _ in range(5000):
    pid = libc.fork()
    if pid == 0:
        libc.pause()
        libc._exit(0)
    if pid < 0:
        break
    n += 1
raise RuntimeError(f"forked {n}")
`),
  fillTmp: hostile(`
libc.close(libc.open(b"/tmp/nnb-marker", os.O_CREAT | os.O_WRONLY, 0o644))
libc.close(libc.open(b"/dev/shm/nnb-marker", os.O_CREAT | os.O_WRONLY, 0o644))
written, chunk, why = 0, b"x" * (1 << 20), "none"
with open("fill", "wb") as f:
    try:
        while written < (1 << 30):
            f.write(chunk)
            f.flush()
            written += len(chunk)
    except OSError as e:
        why = errno.errorcode.get(e.errno, str(e.errno))
raise RuntimeError(f"wrote {written} {why}")
`),
  readTmp: hostile(`
seen = []
for top in ("/tmp", "/dev/shm"):
    for d, dirs, files in os.walk(top):
        seen += [os.path.join(d, f) for f in files]
raise RuntimeError("seen " + " ".join(seen))
`),
  canary: hostile(`
text = [repr(dict(os.environ))]
for path in ("/proc/self/environ", "/proc/1/environ", f"/proc/{os.getppid()}/environ", "/proc/2/environ"):
    text.append(attempt(lambda: open(path, "rb").read().decode("latin-1")))
raise RuntimeError(" ".join(text)[:1400])
`),
  otherSource: hostile(`
found = []
for d, dirs, files in os.walk("/"):
    if d.startswith(("/proc", "/sys", "/usr", "/dev")):
        dirs[:] = []
        continue
    found += [os.path.join(d, f) for f in files if f == "secret.py"]
raise RuntimeError("found " + " ".join(found) + " " + " ".join(attempt(lambda: open(p).read()) for p in found))
`),
};

/** Patches torch and lies through its own methods and a tensor subclass; its measurements must stay true. */
ATTACKS.patcher = py`
  import torch, torch.nn as nn
  real_numel = torch.Tensor.numel
  torch.Tensor.numel = lambda self: 31337 if self.dim() == 2 else real_numel(self)  # weights lie, scalars don't
  class Liar(torch.Tensor):
      @classmethod
      def __torch_function__(cls, func, types, args=(), kwargs=None):
          if func in (torch.Tensor.sum, torch.Tensor.abs, torch.Tensor.size, torch.Tensor.double, torch.Tensor.item):
              return torch.tensor(31337.0)
          return super().__torch_function__(func, types, args, kwargs or {})
  class Block(nn.Module):
      def __init__(self):
          super().__init__()
          self.fc = nn.Linear(4, 2)
      def parameters(self, recurse=True):
          return iter([])
      def named_parameters(self, *args, **kwargs):
          return iter([])
      def forward(self, x):
          out = self.fc(x)
          return out if self.training else out.as_subclass(Liar)
`;

/** Attack, then an honest block, in this order on one worker. */
const ORDER = Object.keys(ATTACKS).flatMap((name, i) => [name, `honest${i}`]);

let records: Record<string, ValidationRecord>;
let sandbox: SandboxReport | null;
let puts: string[];
let moduleHashes: Map<string, string>;
let items: ValidateItem[];

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  process.env.NNBLOCKS_CANARY = CANARY;
  const fixtures = Object.fromEntries(ORDER.map((name) => [name, name.startsWith('honest') ? HONEST : ATTACKS[name]]));
  const made = fixtureItems(fixtures);
  // Another source's tree is bound for the blocks of that source only (its original root, for fidelity): here
  // honest0's. No other block may see it.
  items = ORDER.map((name) => made.items.find((it) => it.id === `fixture:${name}`)!).map((it) =>
    it.id === 'fixture:honest0'
      ? { ...it, original: { importRoot: secretRoot, module: 'other_pkg.secret', className: 'TOKEN' } }
      : it,
  );
  moduleHashes = new Map(items.map((it) => [it.id, hash(join(it.importRoot, `${it.module}.py`))]));
  puts = [];
  const run = await validateRun(
    items,
    baseOptions({
      workers: 1,
      timeoutMs: 30_000,
      tmpBytes: TMP_BYTES,
      cache: { get: () => undefined, put: (k, v) => void puts.push(v) },
    }),
  );
  delete process.env.NNBLOCKS_CANARY;
  records = Object.fromEntries(run.records.map((r) => [r.id.replace(/^fixture:/, ''), r]));
  sandbox = run.sandbox;
}, 180_000);

const errorOf = (name: string) => records[name].stages.map((s) => s.error ?? '').join(' ');
/** What a record says, for assertion messages: a failure under load should say why. */
const said = (name: string) =>
  `${name}: ${records[name].status} ${records[name].failureClass ?? ''} ${records[name].failureDetail ?? ''} ${errorOf(name)}`;

describe('escape attempts, as root', () => {
  it('runs upstream code as uid 65534 with no capability, no_new_privs and the seccomp filter', () => {
    const e = errorOf('identity');
    expect(e).toMatch(/Uid:\s+65534\s+65534\s+65534\s+65534/);
    expect(e).toMatch(/CapEff:\s+0000000000000000/);
    expect(e).toMatch(/CapBnd:\s+0000000000000000/);
    expect(e).toMatch(/NoNewPrivs:\s+1/);
    if (seccompSupported()) expect(e).toMatch(/Seccomp:\s+2/);
    expect(sandbox).toMatchObject({ enabled: true, uid: 65534, gid: 65534, capEff: '0000000000000000' });
    expect(sandbox?.noNewPrivs).toBe(true);
    expect(sandbox?.seccomp).toBe(seccompSupported());
    if (process.getuid?.() === 0) expect(sandbox?.hostUid).toBe(65534);
  });

  it('cannot remount its read-only view, write its module, the runner or /dev, and sees no project or other block', () => {
    const e = errorOf('remount');
    expect(e).toContain('remount-block=EPERM');
    expect(e).toContain('remount-root=EPERM');
    expect(e).toMatch(/own-module=(EROFS|EACCES)/);
    expect(e).toMatch(/runner=(EROFS|EACCES)/);
    expect(e).toContain('dev=EROFS');
    expect(e).toContain('root=EROFS');
    expect(e).toContain('cache-visible=False');
    expect(e).toMatch(/inbox=\d+( |$)/); // only its own folder in the inbox
    for (const it of items) expect(hash(join(it.importRoot, `${it.module}.py`))).toBe(moduleHashes.get(it.id));
  });

  it("is refused ptrace, pidfd_getfd, process_vm_readv, keyctl, bpf, userfaultfd, unshare and the worker's /proc", () => {
    const e = errorOf('seccomp');
    for (const call of ['ptrace', 'pidfd_getfd', 'process_vm_readv', 'keyctl', 'bpf', 'userfaultfd', 'unshare'])
      expect(e).toContain(`${call}=EPERM`);
    expect(e).toMatch(/proc-fd3=(EACCES|EPERM)/);
    expect(e).toMatch(/proc-mem=(EACCES|EPERM)/);
  });

  it('a stolen nonce writes no record: later blocks keep their own', () => {
    expect(errorOf('nonceTheft')).toContain('stole nonce True, result channels 0');
    for (const name of ORDER.filter((n) => n.startsWith('honest')))
      expect(records[name], said(name)).toMatchObject({ status: 'passed', params: 10 });
  });

  it('a forged final record lies only about its own block', () => {
    // What a block can still do: claim its own result. The next block on the same worker is untouched.
    expect(records.forgeSelf.params).toBe(31337);
    const next = ORDER[ORDER.indexOf('forgeSelf') + 1];
    expect(records[next]).toMatchObject({ status: 'passed', params: 10, failureClass: null });
  });

  it('a malformed or code-carrying record is a protocol-error of that block only, and not cached', () => {
    expect(records.malformed).toMatchObject({ status: 'failed', failureClass: 'protocol-error' });
    expect(records.kwargInjection).toMatchObject({ status: 'failed', failureClass: 'protocol-error' });
    expect(records.kwargInjection.failureDetail).toContain('malformed record');
    const cached = puts.map((p) => JSON.parse(p) as ValidationRecord);
    expect(cached.some((r) => r.failureClass === 'protocol-error')).toBe(false);
    expect(puts.join('\n')).not.toContain("__import__('os')");
  });

  it('kills a process that outlived its block, zombie leader included, before the next block starts', () => {
    expect(records.zombieWriter).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(records.zombieWriter.failureDetail).toContain('outlived');
    expect(records[ORDER[ORDER.indexOf('zombieWriter') + 1]]).toMatchObject({ status: 'passed', params: 10 });
    expect(processesMatching(STRAY)).toEqual([]);
  });

  it('bounds a fork bomb by RLIMIT_NPROC and leaves nothing running', () => {
    const n = Number(/forked (\d+)/.exec(errorOf('forkBomb'))?.[1]);
    expect(n, said('forkBomb')).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(128);
    expect(records[ORDER[ORDER.indexOf('forkBomb') + 1]]).toMatchObject({ status: 'passed', params: 10 });
  });

  it('gets a size-capped private /tmp and /dev/shm, wiped before the next block', () => {
    const m = /wrote (\d+) (\w+)/.exec(errorOf('fillTmp'));
    expect(m?.[2]).toBe('ENOSPC');
    expect(Number(m?.[1])).toBeLessThanOrEqual(TMP_BYTES);
    expect(errorOf('readTmp')).not.toContain('nnb-marker');
    expect(errorOf('readTmp')).not.toContain('fill');
  });

  it('measures parameters, shapes and checksums with references the block cannot patch', () => {
    const honest = records[ORDER[ORDER.indexOf('patcher') + 1]];
    expect(records.patcher).toMatchObject({ status: 'passed', params: 10 });
    expect(records.patcher.outputs).toEqual(honest.outputs); // same seed, same layer, same input: same checksum
    expect(records.patcher.moduleTree?.children.fc?.params).toEqual({ weight: [2, 4], bias: [2] });
  });

  it('sees no secret of the environment, and no other source', () => {
    const all = JSON.stringify(records);
    expect(all).not.toContain(CANARY);
    expect(errorOf('canary')).toContain('PATH');
    expect(errorOf('otherSource')).toContain('found');
    expect(errorOf('otherSource')).not.toContain('secret.py');
  });
});

describe('the sandbox for a non-root user', () => {
  it.runIf(process.getuid?.() === 0)('drops the same privileges when nnblocks itself runs as uid 65534', () => {
    // A separate Node process started as an ordinary user: bubblewrap then runs as that user, unprivileged.
    const dir = tempDir('nnb-nonroot-');
    const { items: one } = fixtureItems({ identity: ATTACKS.identity, honest: HONEST }, dir);
    const stage = new URL('../../pipeline/validate/validate.ts', import.meta.url).pathname;
    const script = join(dir, 'run.mts');
    writeFileSync(
      script,
      `import { validateRun } from ${JSON.stringify(stage)};\n` +
        `const run = await validateRun(${JSON.stringify(one)}, ${JSON.stringify(baseOptions({ workers: 1 }))});\n` +
        `process.stdout.write(JSON.stringify(run));\n`,
    );
    const out = execFileSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', script],
      { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir }, cwd: process.cwd() },
    );
    const run = JSON.parse(out) as { records: ValidationRecord[]; sandbox: SandboxReport };
    expect(run.sandbox).toMatchObject({ uid: 65534, hostUid: 65534, capEff: '0000000000000000', noNewPrivs: true });
    expect(run.records[1]).toMatchObject({ status: 'passed', params: 10 });
    expect(run.records[0].stages.map((s) => s.error ?? '').join(' ')).toMatch(/CapEff:\s+0000000000000000/);
  });
});
