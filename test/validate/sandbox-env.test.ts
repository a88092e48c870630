// Nothing fails because of the sandbox: what torch 2.x, timm and transformers ask for at import (who the user is,
// where home and the caches are) answers inside it, without showing anything of the host, and torch.compile runs
// eagerly instead of starting a compiler. Real sandbox, real torch (the managed environment's, torch 2.x).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { py } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from './helpers.ts';

const fixtures = {
  // torch 2.x's cache folders ask getpass.getuser(); pwd too; home and the caches must be writable there.
  account: py`
    import getpass, os, pwd
    import torch.nn as nn
    class Block(nn.Module):
        def forward(self, x):
            user = getpass.getuser()
            entry = pwd.getpwuid(os.getuid())
            accounts = [l.split(":")[0] for l in open("/etc/passwd").read().splitlines()]
            cache = os.environ["XDG_CACHE_HOME"]
            os.makedirs(os.path.join(cache, "torch"), exist_ok=True)
            open(os.path.join(os.path.expanduser("~"), "probe"), "w").write("ok")
            print("facts", user, entry.pw_uid, sorted(accounts), cache.startswith(os.getcwd()), flush=True)
            return x * 2
  `,
  // A library picking its config folder at import: ~/.config when writable, else /tmp (outside the work folder,
  // which the audit hook refuses). Home must have one.
  configDir: py`
    import os
    from pathlib import Path
    import torch.nn as nn
    home_config = Path.home() / ".config"
    CONFIG = (home_config if os.access(home_config, os.W_OK) else Path("/tmp")) / "SomeTool"
    CONFIG.mkdir(exist_ok=True)
    class Block(nn.Module):
        def forward(self, x):
            return x + 1
  `,
  // A forward that compiles itself: eager in the sandbox (TorchDynamo off), never a refused compiler process.
  compiled: py`
    import torch
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.fast = torch.compile(self.lin)
        def forward(self, x):
            return self.fast(x)
  `,
  // A builder that looks for pretrained weights (detr's backbone: `pretrained=is_main_process()`) and falls back to
  // random ones when the download fails. The lookup fails in Python, with no DNS query below the audit hook for
  // the kernel to count: an ordinary unreachable host, not a sandbox violation.
  weights: py`
    import socket, urllib.request
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            try:
                urllib.request.urlopen("https://download.pytorch.org/models/resnet50-0676ba61.pth", timeout=5)
                print("downloaded", flush=True)
            except OSError as e:
                print("no weights", type(e).__name__, flush=True)
            try:
                socket.getaddrinfo("example.org", 443)
            except OSError as e:
                print("no lookup", type(e).__name__, flush=True)
            print("host", socket.gethostname(), socket.gethostbyname(socket.gethostname()), flush=True)
        def forward(self, x):
            return self.lin(x)
  `,
};

describe.runIf(bwrapAvailable().ok)('the sandbox answers what libraries ask at import', () => {
  let rec: Record<string, ValidationRecord>;
  beforeAll(async () => {
    const { items } = fixtureItems(fixtures);
    items.forEach((it) => (it.overrides = { inputs: [{ shape: [2, 4], dtype: 'float32' }] }));
    rec = byName(await validateBlocks(items, baseOptions()));
  }, 120_000);

  it("has an account entry for its user, and only root's and its own", () => {
    expect(rec.account.status).toBe('passed');
    expect(rec.account.stdoutTail).toContain("facts nobody 65534 ['nobody', 'root'] True");
  });

  it('gives the block a home with .config and .cache it may write', () => {
    expect(rec.configDir.status).toBe('passed');
  });

  it('lets a lookup for pretrained weights fail in Python, with no packet for the kernel to count', () => {
    expect(rec.weights.failureClass).toBeNull();
    expect(rec.weights.status).toBe('passed');
    expect(rec.weights.stdoutTail).toContain('no weights URLError');
    expect(rec.weights.stdoutTail).toContain('no lookup gaierror');
  });

  it('names itself, not the host, and resolves its own name without DNS', () => {
    expect(rec.weights.stdoutTail).toContain('host nnblocks-sandbox 127.0.0.1');
  });

  it('runs torch.compile eagerly instead of starting a compiler the sandbox would refuse', () => {
    expect(rec.compiled.status).toBe('passed');
    expect(rec.compiled.failureClass).toBeNull();
  });
});

describe.runIf(bwrapAvailable().ok)("a source folder under the host's /tmp", () => {
  // A source under /tmp is bound read-only below the sandbox's own /tmp, where the kernel witness lists what a block
  // wrote outside its folder. The build changes files there meanwhile (the index's SQLite journal, when the cache
  // sits inside the source as with `"path": "."`): those are the host's doing, not the block's.
  it('is not counted as the block writing outside its folder when the host changes it meanwhile', async () => {
    const { root, items } = fixtureItems({
      slow: py`
        import time
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)
                time.sleep(1.5)
            def forward(self, x):
                time.sleep(0.5)
                return self.lin(x)
      `,
    });
    items[0].overrides = { inputs: [{ shape: [2, 4], dtype: 'float32' }] };
    // The original, for fidelity: its import root is what the sandbox binds at its own path.
    items[0].original = { importRoot: root, module: 'slow', className: 'Block' };
    const journal = setInterval(() => appendFileSync(join(root, 'index.sqlite-wal'), 'x'.repeat(64)), 100);
    try {
      const [r] = await validateBlocks(items, baseOptions({ workers: 1 }));
      expect(r.failureDetail ?? null).toBeNull();
      expect(r.status).toBe('passed');
    } finally {
      clearInterval(journal);
    }
  }, 120_000);
});
