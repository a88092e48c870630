// The TypeScript backstop of a validate worker: a worker that says it is ready and then never answers (stopped,
// hung) is killed with its whole process group once the backstop passes, and the block is lost, not waited for.
// No block can stop the real worker any more (it is its sandbox's pid 1, see walls.test.ts), so a stand-in runner
// that hangs on purpose plays the stopped one here.
import { describe, expect, it } from 'vitest';
import { RunnerWorker, type WorkerJob } from '../../pipeline/validate/worker.ts';
import { debianPython } from '../helpers/python.ts';
import { RUN_ID, processesMatching } from './helpers.ts';

// The stand-in's child: a duration unique to this run (GNU sleep takes fractions), so no other `sleep` on the
// machine is taken for one the backstop left alive.
const SLEEP = `297.${RUN_ID}`;

/** Answers the hello like runner.py, then reads one job and sleeps through it with a child of its own. */
const HANGS = `
import json, os, subprocess, sys, time
hello = json.loads(sys.stdin.readline())
ready = {"nonce": hello["nonce"], "type": "ready", "device": "cpu", "torchVersion": "0", "identity": {"uid": 1, "gid": 1}}
os.write(3, (json.dumps(ready) + "\\n").encode())
sys.stdin.readline()
subprocess.Popen(["sleep", "${SLEEP}"])
time.sleep(300)
`;

const JOB: WorkerJob = {
  id: 'fixture:hangs',
  importRoot: '/nonexistent',
  module: 'm',
  className: 'Block',
  blocked: [],
  overrides: null,
  usage: [],
  usageInputs: [],
  original: null,
  seed: 0,
  timeoutMs: 100,
  memoryBytes: 1 << 30,
  corpus: { packages: [], native: [] },
};

describe('RunnerWorker backstop', () => {
  it('kills a worker that never answers, with its children, and reports the block lost', async () => {
    const { worker, hello } = await RunnerWorker.start(
      { file: debianPython(), args: ['-c', HANGS] },
      { device: 'cpu', workRoot: '/tmp', sandboxed: false, nativeLibraries: [], preload: [] },
    );
    expect(hello.device).toBe('cpu');
    const started = Date.now();
    const outcome = await worker.run(JOB, 500);
    expect(outcome).toMatchObject({ ok: false, reason: 'backstop' });
    expect(outcome.ok ? '' : outcome.detail).toContain('sandbox was killed');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(worker.alive).toBe(false);
    await worker.close(); // returns at once: the process group is gone
    for (let i = 0; i < 50 && processesMatching(`sleep ${SLEEP}`).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(processesMatching(`sleep ${SLEEP}`)).toEqual([]);
    expect(await worker.run(JOB, 500)).toMatchObject({ ok: false, reason: 'exited' });
  });
});
