// Hostile blocks: each must be contained by the sandbox, classified as a failure, and leave nothing behind.
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py, tempDir } from '../helpers/tree.ts';
import { RUN_ID, baseOptions, byName, fixtureItems, processesMatching, runProcessName } from './helpers.ts';

let server: Server;
let connections = 0;
let rec: Record<string, ValidationRecord>;
let root: string;
const outside = tempDir('nnb-outside-');
// The process name the escapees give themselves, so the test can look for them on the host afterwards: this run's
// own, so another run's escapee test (or anything else on the machine) is not taken for one of ours.
const STRAY = runProcessName('nnbstray');
// The detached `sleep` the spawner starts: a duration unique to this run (GNU sleep takes fractions), so another
// run's or another user's `sleep 300` on the machine is not taken for an escapee.
const SLEEP = `300.${RUN_ID}`;

/** ctypes helpers: the same escapes below Python's audit hooks, to show the kernel sandbox holds on its own. */
const LIBC = py`
  import ctypes, ctypes.util, os, socket, struct
  libc = ctypes.CDLL(None, use_errno=True)
  def raw_connect(port):
      fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
      addr = struct.pack("!HH4s8x", socket.AF_INET, port, socket.inet_aton("127.0.0.1"))
      addr = struct.pack("=H", socket.AF_INET) + addr[2:]
      if libc.connect(fd, addr, len(addr)) != 0:
          e = ctypes.get_errno()
          raise OSError(e, os.strerror(e))
  def raw_fork_and_linger(name):
      if libc.fork() == 0:
          libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
          libc.sleep(300)
          libc._exit(0)
`;

beforeAll(async () => {
  server = createServer((sock) => {
    connections += 1;
    sock.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const made = fixtureItems({
    freezeWorker:
      LIBC +
      py`
      import os, signal, torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              # Below the audit hook. The worker is its pid namespace's init: the kernel drops the signal.
              libc.kill(os.getppid(), signal.SIGSTOP)
          def forward(self, x):
              return x
    `,
    network: py`
      import socket, torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              socket.create_connection(("127.0.0.1", ${port}), timeout=2).sendall(b"stolen weights")
          def forward(self, x):
              return x
    `,
    rawNetwork:
      LIBC +
      py`
      import torch.nn as nn
      class Block(nn.Module):
          def forward(self, x):
              raw_connect(${port})
              return x
    `,
    writeOutside: py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              with open("${join(outside, 'pwned.txt')}", "w") as f:
                  f.write("escaped")
          def forward(self, x):
              return x
    `,
    writeOwnFolder: py`
      import os, torch.nn as nn
      class Block(nn.Module):
          def forward(self, x):
              fd = os.open(os.path.join(os.path.dirname(__file__), "dropped.py"), os.O_CREAT | os.O_WRONLY)
              return x
    `,
    endless: py`
      import torch.nn as nn
      class Block(nn.Module):
          def forward(self, x):
              while True:
                  pass
    `,
    memoryHog: py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.hoard = []
              while True:
                  self.hoard.append(bytearray(1 << 30))  # the second GiB crosses the 2 GiB limit
    `,
    detached: py`
      import subprocess, torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              subprocess.Popen(["sleep", "${SLEEP}"], start_new_session=True)
          def forward(self, x):
              return x
    `,
    rawDetached:
      LIBC +
      py`
      import torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              raw_fork_and_linger("${STRAY}")
          def forward(self, x):
              return x * 2
    `,
    exitInInit: py`
      import os, torch.nn as nn
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              os._exit(0)
    `,
    forgery: py`
      import json, os, sys, torch.nn as nn
      FORGED = {"nonce": "guess", "type": "result", "t": "final", "status": "passed", "failureClass": None}
      class Block(nn.Module):
          def forward(self):
              for i in range(20000):
                  print("x" * 100)
              print(json.dumps(FORGED))
              try:
                  os.write(3, (json.dumps(FORGED) + "\\n").encode())  # the worker's result pipe, closed in the child
              except OSError:
                  pass
              sys.stdout.flush()
              raise RuntimeError("nothing to see here")
    `,
  });
  root = made.root;
  const items = made.items;
  rec = byName(await validateBlocks(items, baseOptions({ timeoutMs: 6000, memoryBytes: 2 * 1024 ** 3 })));
});

afterAll(async () => {
  server?.close();
});

describe('hostile blocks are contained and classified as failures', () => {
  it('cannot reach a listener on 127.0.0.1, through Python or raw syscalls', () => {
    expect(connections).toBe(0);
    expect(rec.network).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(rec.network.failureDetail).toContain('network');
    expect(rec.rawNetwork).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' }); // ECONNREFUSED in an empty net namespace
  });

  it('cannot write outside its folder, nor into its own read-only folder', () => {
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, 'dropped.py'))).toBe(false);
    expect(rec.writeOutside).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(rec.writeOwnFolder).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
  });

  it('stops an endless loop at the wall-clock limit', () => {
    expect(rec.endless).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(rec.endless.stages.at(-1)).toMatchObject({ stage: 'forward', status: 'failed' });
  });

  it('stops a memory hog at the address-space limit', () => {
    expect(rec.memoryHog, JSON.stringify({ ...rec.memoryHog, moduleTree: null })).toMatchObject({
      status: 'failed',
      failureClass: 'memory',
    });
  });

  it('refuses to spawn processes, and no escapee outlives the run', () => {
    expect(rec.detached).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    // A fork through libc passes the audit hook, but the worker's sweep of the pid namespace finds it.
    expect(rec.rawDetached).toMatchObject({ status: 'failed', failureClass: 'sandbox-violation' });
    expect(rec.rawDetached.failureDetail).toContain('outlived');
    expect(processesMatching(STRAY)).toEqual([]);
    expect(processesMatching(`sleep ${SLEEP}`)).toEqual([]);
    expect(processesMatching(root)).toEqual([]); // no bwrap with our folder bound is left either
  });

  it('cannot stop the worker: it goes on answering (the TypeScript backstop for one that does not: worker.test.ts)', () => {
    expect(rec.freezeWorker).toMatchObject({ status: 'passed', failureClass: null });
  });

  it('classifies os._exit(0) in the constructor as a crash during build', () => {
    expect(rec.exitInInit).toMatchObject({ status: 'failed', failureClass: 'crashed' });
    expect(rec.exitInInit.stages.at(-1)).toMatchObject({ stage: 'build', status: 'failed' });
  });

  it("never parses a block's stdout: a flood with a forged success line still fails", () => {
    expect(rec.forgery).toMatchObject({ status: 'failed', failureClass: 'forward-error' });
    expect(rec.forgery.stdoutTail).toContain('"status": "passed"');
    expect(rec.forgery.stdoutTail).toMatch(/^\.\.\.\[\d+ bytes omitted\]/);
    expect(rec.forgery.stdoutTail.length).toBeLessThan(5000);
  });
});
