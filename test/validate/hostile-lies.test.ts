// Lies a record must not tell, as root: a block that disables the audit hook in its own process, or goes below it
// through libc, is still caught by what the kernel saw (read by the worker, outside the block's process); a block
// that patches the torch functions the runner judges it with (isfinite, backward, allclose, its own state_dict) gets
// its gradients and fidelity measured anyway. Honest blocks between them keep their records. Real bubblewrap, real
// torch.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateItem, ValidationRecord } from '../../pipeline/validate/types.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { py, writeTree } from '../helpers/tree.ts';
import { baseOptions, fixtureItems } from './helpers.ts';

/**
 * Turns the runner's audit hook into a no-op from inside the block's process: finds the hook function and replaces
 * every set and every function its closure holds (what it refuses, how it reports). Prints how many it found.
 */
const DISABLE_HOOK = py`
  import errno, gc, os, socket, subprocess, types
  def disable_hook():
      found = 0
      for f in gc.get_objects():
          if type(f) is types.FunctionType and f.__name__ == "hook" and (f.__module__ or "").startswith("nnblocks_runner"):
              for cell in f.__closure__ or ():
                  v = cell.cell_contents
                  if isinstance(v, (set, frozenset, tuple)):
                      cell.cell_contents = type(v)()
                  elif callable(v):
                      cell.cell_contents = lambda *a, **k: False
              found += 1
      print("hooks disabled:", found, flush=True)
  def outcome(fn):
      try:
          fn()
          return "ok"
      except OSError as e:
          return errno.errorcode.get(e.errno, str(e.errno)) + " " + str(e)
`;

/** A block that disables the hook, then runs `body` in its constructor and prints what it got. */
function bypass(body: string): string {
  return (
    DISABLE_HOOK +
    py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              disable_hook()
              self.fc = nn.Linear(4, 2)
              print("attempt:", ${body}, flush=True)
          def forward(self, x):
              return self.fc(x)
    `
  );
}

const HONEST = py`
  import os, torch.nn as nn
  class Block(nn.Module):
      def __init__(self):
          super().__init__()
          print("priority:", os.getpriority(os.PRIO_PROCESS, 0), flush=True)
          self.fc = nn.Linear(4, 2)
      def forward(self, x):
          return self.fc(x)
`;

const ESCAPED = `/tmp/nnb-escaped-${process.pid}`;

let server: Server;
let connections = 0;
let rec: Record<string, ValidationRecord>;

beforeAll(async () => {
  server = createServer((sock) => {
    connections += 1;
    sock.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const attacks: Record<string, string> = {
    hookNetwork: bypass(`outcome(lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=2))`),
    hookWrite: bypass(`outcome(lambda: open("${ESCAPED}", "w").write("escaped"))`),
    hookProcess: bypass(`outcome(lambda: subprocess.run(["/usr/bin/true"], check=True))`),
    libcFork: py`
      import ctypes, os, torch.nn as nn
      libc = ctypes.CDLL(None, use_errno=True)
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              pid = libc.fork()  # below the audit hook
              if pid == 0:
                  libc._exit(0)
              os.waitpid(pid, 0)
              self.fc = nn.Linear(4, 2)
          def forward(self, x):
              return self.fc(x)
    `,
    // Renices its worker through libc: every later block on that worker would inherit the priority (and, on a
    // loaded machine, a timeout that looks like its own). Refused by seccomp where the filter covers it.
    renice: py`
      import ctypes, os, torch.nn as nn
      libc = ctypes.CDLL(None, use_errno=True)
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              r = libc.setpriority(0, os.getppid(), 19)  # PRIO_PROCESS
              print("renice:", "ok" if r == 0 else os.strerror(ctypes.get_errno()), flush=True)
              self.fc = nn.Linear(4, 2)
          def forward(self, x):
              return self.fc(x)
    `,
    // The runner must judge gradients with the isfinite it took before any block was imported.
    isfinite: py`
      import torch, torch.nn as nn
      torch.isfinite = lambda t: torch.ones_like(t, dtype=torch.bool)
      torch.Tensor.isfinite = lambda t: torch.ones_like(t, dtype=torch.bool)
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(4, 4)
              self.w = nn.Parameter(torch.ones(4))
          def forward(self, x):
              return self.fc(x) + torch.sqrt(self.w - self.w)  # finite outputs, NaN gradient for w
    `,
    // ... and back-propagate through the engine, not through a patched Tensor.backward.
    noBackward: py`
      import torch, torch.nn as nn
      torch.Tensor.backward = lambda self, *a, **k: None
      torch.autograd.backward = lambda *a, **k: None
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(4, 2)
          def forward(self, x):
              return self.fc(x)
    `,
  };
  // Fidelity against an original that differs: outputs (hidden by a patched allclose), a buffer (hidden by the
  // block's own state_dict).
  const origRoot = writeTree({
    'orig_block.py': py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(4, 2)
          def forward(self, x):
              return self.fc(x)
    `,
  });
  const fidelity: Record<string, string> = {
    allclose: py`
      import torch, torch.nn as nn
      torch.allclose = lambda *a, **k: True
      torch.equal = lambda *a, **k: True
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(4, 2)
          def forward(self, x):
              return self.fc(x) + 1
    `,
    stateDict: py`
      import torch, torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.fc = nn.Linear(4, 2)
              self.register_buffer("extra", torch.zeros(3))
          def forward(self, x):
              return self.fc(x)
          def state_dict(self, *a, **k):
              d = super().state_dict(*a, **k)
              d.pop("extra", None)
              return d
    `,
  };
  const order = [...Object.keys(attacks), ...Object.keys(fidelity)].flatMap((n, i) => [n, `honest${i}`]);
  const code = { ...attacks, ...fidelity };
  const made = fixtureItems(Object.fromEntries(order.map((n) => [n, n.startsWith('honest') ? HONEST : code[n]])));
  const original = { importRoot: origRoot, module: 'orig_block', className: 'Block' };
  const items: ValidateItem[] = order.map((n) => {
    const it = made.items.find((x) => x.id === `fixture:${n}`)!;
    return n in fidelity ? { ...it, original } : it;
  });
  const records = await validateBlocks(items, baseOptions({ workers: 1, timeoutMs: 30_000 }));
  rec = Object.fromEntries(records.map((r) => [r.id.replace(/^fixture:/, ''), r]));
}, 240_000);

afterAll(() => {
  server?.close();
});

const said = (r: ValidationRecord) =>
  `${r.status} ${r.failureClass ?? ''} ${r.failureDetail ?? ''} | ${r.stdoutTail} | ${r.stderrTail.slice(-600)}`;

describe('an audit hook disabled from inside the block is caught from outside it', () => {
  it('network: the kernel counted the attempt the hook did not refuse', () => {
    const r = rec.hookNetwork;
    expect(r.stdoutTail, said(r)).toContain('hooks disabled: 1');
    expect(r.stdoutTail).toMatch(/attempt: (ECONNREFUSED|ENETUNREACH)/); // the kernel's refusal, not the hook's
    expect(connections).toBe(0);
    expect(r, said(r)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(r.failureDetail).toMatch(/^network: .*kernel/);
  });

  it('filesystem: a file left outside its folder is seen before the wipe', () => {
    const r = rec.hookWrite;
    expect(r.stdoutTail, said(r)).toContain('attempt: ok');
    expect(r, said(r)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(r.failureDetail).toMatch(/^filesystem: .*nnb-escaped/);
    expect(existsSync(ESCAPED)).toBe(false); // the sandbox's /tmp, never the host's
  });

  it('process: a process it started and waited for left its page faults with the kernel', () => {
    const r = rec.hookProcess;
    expect(r.stdoutTail, said(r)).toContain('attempt: ok');
    expect(r, said(r)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(r.failureDetail).toMatch(/^process: /);
  });

  it('process: so is a fork through libc, which no audit hook sees', () => {
    expect(rec.libcFork, said(rec.libcFork)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(rec.libcFork.failureDetail).toMatch(/^process: /);
  });
});

describe('the worker a block changed', () => {
  it('is recorded and replaced: the next block runs at the usual priority', () => {
    const r = rec.renice;
    if (r.stdoutTail.includes('renice: ok')) {
      expect(r, said(r)).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
      expect(r.failureDetail).toContain("changed its worker's priority");
    } else expect(r.stdoutTail, said(r)).toMatch(/renice: (Operation not permitted|Permission denied)/);
    const next =
      rec[
        `honest${Object.keys(rec)
          .filter((n) => !n.startsWith('honest'))
          .indexOf('renice')}`
      ];
    expect(next.stdoutTail, said(next)).toContain('priority: 0');
  });
});

describe('the functions that judge a block are the runner’s own', () => {
  it('NaN gradients fail backward though torch.isfinite says otherwise', () => {
    const r = rec.isfinite;
    expect(r, said(r)).toMatchObject({ status: 'failed', failureClass: 'backward-error' });
    expect(r.stages.find((s) => s.stage === 'backward')?.error).toContain('non-finite');
  });

  it('gradients are computed though Tensor.backward and autograd.backward are no-ops', () => {
    expect(rec.noBackward, said(rec.noBackward)).toMatchObject({
      status: 'passed',
      gradients: { withGrad: 2, without: 0 },
    });
  });

  it('fidelity compares outputs with its own allclose, and tensors from the modules’ own tables', () => {
    expect(rec.allclose, said(rec.allclose)).toMatchObject({ status: 'passed', fidelity: { status: 'differs' } });
    expect(rec.allclose.fidelity.reason).toContain('outputs');
    expect(rec.stateDict, said(rec.stateDict)).toMatchObject({ status: 'passed', fidelity: { status: 'differs' } });
    expect(rec.stateDict.fidelity.reason).toContain('state-dict');
  });

  it('honest blocks between them keep their records', () => {
    for (const [name, r] of Object.entries(rec))
      if (name.startsWith('honest'))
        expect(r, `${name}: ${said(r)}`).toMatchObject({ status: 'passed', params: 10, failureClass: null });
  });
});
