// Nothing fails because of the sandbox: what torch 2.x, timm and transformers ask for at import (who the user is,
// where home and the caches are) answers inside it, without showing anything of the host, and torch.compile runs
// eagerly instead of starting a compiler. Real sandbox, real torch (the managed environment's, torch 2.x).
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

  it('runs torch.compile eagerly instead of starting a compiler the sandbox would refuse', () => {
    expect(rec.compiled.status).toBe('passed');
    expect(rec.compiled.failureClass).toBeNull();
  });
});
