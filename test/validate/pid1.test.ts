// The worker's own check after every block (nnblocks_runner/pid1.py), where the seccomp filter is not there to
// refuse the change first (outside x86-64): a block that changed the worker's limits or scheduling, or left a SysV
// IPC object, is reported and the sandbox retires. Run here outside any sandbox, by a real Python: a child changes
// its parent the way a block would change the worker.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { debianPython } from '../helpers/python.ts';

const RUNNER_DIR = fileURLToPath(new URL('../../pipeline/validate/python/', import.meta.url));

/** Runs `code` (through `through`, e.g. `unshare --ipc`) with the runner's package importable; the last line's JSON. */
function run(code: string, through: string[] = []): unknown {
  const [file, ...args] = [...through, debianPython(), '-c', code];
  const out = execFileSync(file, args, { encoding: 'utf8', env: { PYTHONPATH: RUNNER_DIR, PATH: process.env.PATH } });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('the worker notices what a block left in its sandbox', () => {
  it('nothing, when the block kept to itself', () => {
    const out = run(`
import json, os, resource
from nnblocks_runner.pid1 import leftovers, worker_state
base = worker_state()
if os.fork() == 0:
    os.nice(5); resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)); os._exit(0)
os.wait()
print(json.dumps(leftovers(base)))
`);
    expect(out).toEqual([]);
  });

  it("a change to the worker's limits, priority or scheduler", () => {
    const out = run(`
import json, os, resource
from nnblocks_runner.pid1 import leftovers, worker_state
base = worker_state()
if os.fork() == 0:
    parent = os.getppid()
    soft, hard = resource.prlimit(parent, resource.RLIMIT_NOFILE)
    resource.prlimit(parent, resource.RLIMIT_NOFILE, (soft - 1, hard))
    os.setpriority(os.PRIO_PROCESS, parent, os.getpriority(os.PRIO_PROCESS, parent) + 1)
    os.sched_setscheduler(parent, os.SCHED_IDLE, os.sched_param(0))
    os._exit(0)
os.wait()
print(json.dumps(leftovers(base)))
`);
    expect(out).toEqual(["process: the block changed the worker's rlimits, nice, scheduler"]);
  });

  it('a SysV IPC object (in an IPC namespace of its own, like the sandbox; a user namespace lets any user make one)', () => {
    const out = run(
      `
import ctypes, json
from nnblocks_runner.pid1 import leftovers, worker_state
base = worker_state()
ctypes.CDLL(None).shmget(0x4e4e, 4096, 0o1600)
print(json.dumps(leftovers(base)))
`,
      ['unshare', '--user', '--ipc'],
    );
    expect(out).toEqual(['ipc: 1 SysV IPC object(s) outlived the block']);
  });

  it('catches no signal as pid 1, and gives the block back its KeyboardInterrupt', () => {
    const out = run(`
import json, signal
from nnblocks_runner.pid1 import catch_no_signal, restore_child_signals
catch_no_signal()
worker = [s for s in signal.valid_signals() if callable(signal.getsignal(s))]
restore_child_signals()
print(json.dumps([len(worker), signal.getsignal(signal.SIGINT) is signal.default_int_handler]))
`);
    expect(out).toEqual([0, true]);
  });
});
