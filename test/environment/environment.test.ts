// The validation environment for real: the managed torch base, a requirements layer made by pip inside the
// sandbox from what a fixture repository declares (wheels and a source distribution written by the test, no
// network), a hostile setup.py built offline that reaches nothing of the host nor the network, offline use, and the
// installed set in the key.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEnvironmentConfig, resolveConfig } from '../../pipeline/config/load.ts';
import { ensureManagedBase, findManagedBase } from '../../pipeline/environment/base.ts';
import { resolveEnvironment } from '../../pipeline/environment/environment.ts';
import { environmentHome } from '../../pipeline/environment/home.ts';
import type { Environment } from '../../pipeline/environment/types.ts';
import { silentLogger } from '../../pipeline/contract/context.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { validateBlocks } from '../../pipeline/validate/validate.ts';
import { skipBecause } from '../helpers/skip.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';
import { baseOptions, byName, fixtureItems } from '../validate/helpers.ts';
import { writeSdist, writeWheel } from './packages.ts';

const tag = Math.random().toString(36).slice(2, 8);
const GOOD = `nnbgood-${tag}`;
const EVIL = `nnbevil-${tag}`;
const ABSENT = `nnbabsent-${tag}`;
const SECRET = `secret-${tag}`;
const HOST_MARK = `/tmp/nnb-evil-mark-${tag}`;

const base = findManagedBase(defaultEnvironmentConfig(), environmentHome());
const wheelhouse = tempDir('nnb-wheels-');
/** pip sees only the test's wheelhouse: no index, no network. */
const pipEnv = { ...process.env, PIP_FIND_LINKS: wheelhouse, PIP_NO_INDEX: '1', NNB_TEST_SECRET: SECRET };
const made: string[] = [];

function corpus(requirements: string, extra: Record<string, unknown> = {}) {
  const repo = writeTree({
    'requirements.txt': requirements,
    'fx/__init__.py': '',
    'fx/blocks.py': py`
      import torch.nn as nn
      class Plain(nn.Module):
          def forward(self, x):
              return x * 2
    `,
  });
  const cfg = tempDir('nnb-cfg-');
  return resolveConfig(
    { name: 't', cacheDir: join(cfg, 'cache'), sources: [{ id: 'fx', kind: 'path', path: repo }], ...extra },
    join(cfg, 'corpus.json'),
  );
}

async function environmentFor(requirements: string, extra: Record<string, unknown> = {}, env = pipEnv) {
  const config = corpus(requirements, extra);
  const { snapshots } = await fetchSources(config, {
    log: silentLogger,
    progress: () => ({ tick() {}, set() {}, done() {} }),
    diagnostics: { add() {}, all: [] },
  });
  const r = await resolveEnvironment(config, snapshots, { log: silentLogger }, env);
  if (r.ok && r.environment.python !== base?.python) made.push(join(r.environment.python, '..', '..'));
  return r;
}

describe('the validation environment', () => {
  let layered: Environment;
  beforeAll(() => {
    // An honest package, with a .pth file beside it as some wheels ship: it must never run in a validate worker
    // (the worker holds the result channel), nor on the host.
    writeWheel(wheelhouse, GOOD, '1.0', {
      [`${GOOD.replace(/-/g, '_')}/__init__.py`]: 'VALUE = 42\n',
      [`${GOOD.replace(/-/g, '_')}_hook.pth`]: 'import os; os.environ["NNB_PTH_RAN"] = "yes"\n',
    });
    // matplotlib's font manager as the real one behaves at its first import: it lists the system's fonts by running
    // `fc-list` (a process: a violation inside a block's contained child). The workers import it first.
    writeWheel(wheelhouse, 'matplotlib', '0.0.1', {
      'matplotlib/__init__.py': '',
      'matplotlib/font_manager.py': py`
        import subprocess
        try:
            FONTS = subprocess.run(["fc-list"], capture_output=True).returncode
        except OSError as e:
            FONTS = type(e).__name__
      `,
    });
    // A source distribution whose setup.py tries what a hostile one would: read the build's secrets, write on the
    // host, change the base environment. It runs inside the install sandbox.
    const pkg = EVIL.replace(/-/g, '_');
    writeSdist(wheelhouse, EVIL, '1.0', {
      'setup.py': py`
        import os, socket
        from setuptools import setup
        os.makedirs("${pkg}", exist_ok=True)
        seen = {"secret": os.environ.get("NNB_TEST_SECRET", ""), "home": os.path.expanduser("~")}
        try:
            socket.create_connection(("pypi.org", 443), timeout=5).close()
            seen["network"] = "connected"
        except OSError as e:
            seen["network"] = type(e).__name__
        for target in ("${HOST_MARK}", "${base?.sites[0] ?? '/nonexistent'}/nnb_planted_${tag}.py"):
            try:
                open(target, "w").write("planted")
                seen[target] = "written"
            except OSError as e:
                seen[target] = type(e).__name__
        with open("${pkg}/__init__.py", "w") as f:
            f.write("SEEN = %r\\n" % (seen,))
        setup(name="${EVIL}", version="1.0", packages=["${pkg}"])
      `,
    });
  });
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('installs what a source declares in a sandboxed layer on the torch base, and lists what it could not', async (ctx) => {
    if (!base) return skipBecause(ctx, 'no managed environment on this machine (`npm test` makes it in setup)');
    if (!bwrapAvailable().ok) return skipBecause(ctx, 'bubblewrap is not available');
    const r = await environmentFor(`${GOOD}>=1.0\n${EVIL}\n${ABSENT}\ntorch>=1.7\nmatplotlib\n`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    layered = r.environment;
    const e = r.environment.report;
    expect(e.kind).toBe('managed');
    expect(e.torch).toMatch(/^2\.14\.1/);
    // torch is the base's, never replaced by a declared `torch>=1.7`.
    expect(e.requirements.map((q) => q.name)).toEqual([EVIL, GOOD, 'matplotlib'].sort());
    expect(e.requirements.find((q) => q.name === GOOD)).toEqual({ name: GOOD, version: '1.0', from: ['fx'] });
    expect(e.missing.map((m) => m.name)).toEqual([ABSENT]);
    expect(e.missing[0].reason).toMatch(/no matching distribution|could not find/i);
    expect(e.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.environment.roots).toContain(join(base.python, '..', '..'));
    expect(r.diagnostics.map((d) => d.code)).toEqual(['requirement-missing']);
  });

  it("runs a source distribution's setup.py in the sandbox: no host secret, no write on the host or the base", (ctx) => {
    if (!layered) return skipBecause(ctx, 'the layer was not made (see the test above)');
    const site = readdirSync(join(layered.python, '..', '..', 'lib')).map((v) =>
      join(layered.python, '..', '..', 'lib', v, 'site-packages'),
    )[0];
    const seen = readFileSync(join(site, EVIL.replace(/-/g, '_'), '__init__.py'), 'utf8');
    expect(seen).toContain("'secret': ''");
    expect(seen).not.toContain(SECRET);
    expect(seen).toContain("'home': '/tmp'");
    // Built offline: the network is there only for pip, which imports nothing a package brings.
    expect(seen).toMatch(/'network': '(gaierror|OSError|ConnectionRefusedError)'/);
    expect(existsSync(HOST_MARK)).toBe(false);
    expect(readdirSync(base!.sites[0]).some((n) => n.includes(`nnb_planted_${tag}`))).toBe(false);
  });

  it('validates a block that imports a declared requirement: passed, not blocked', async (ctx) => {
    if (!layered) return skipBecause(ctx, 'the layer was not made');
    const mod = GOOD.replace(/-/g, '_');
    const { items } = fixtureItems({
      uses: py`
        import torch.nn as nn
        import ${mod}
        import os
        class Block(nn.Module):
            def forward(self, x):
                print("pth", os.environ.get("NNB_PTH_RAN"), flush=True)
                return x * ${mod}.VALUE
      `,
      // Imports matplotlib's font manager, whose first import runs a process: the worker made it before any block.
      plots: py`
        import torch.nn as nn
        import matplotlib.font_manager
        class Block(nn.Module):
            def forward(self, x):
                return x * 3
      `,
      absent: py`
        import torch.nn as nn
        import ${ABSENT.replace(/-/g, '_')}
        class Block(nn.Module):
            def forward(self, x):
                return x
      `,
    });
    const recs = byName(
      await validateBlocks(
        items,
        baseOptions({
          python: layered.python,
          pythonRoots: layered.roots,
          runtimeRoots: layered.runtime,
          sites: layered.sites,
          environmentKey: layered.key,
        }),
      ),
    );
    expect(recs.uses.status).toBe('passed');
    expect(recs.uses.stdoutTail).toContain('pth None');
    expect(recs.absent.status).toBe('blocked');
    expect(recs.plots.status, recs.plots.failureDetail ?? '').toBe('passed');
  });

  it('offline (install: false) installs nothing and says so; the key follows the installed set', async (ctx) => {
    if (!base || !layered) return skipBecause(ctx, 'needs the managed base and the layer above');
    const r = await environmentFor(`${GOOD}\n`, { environment: { install: false } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.environment.python).toBe(base.python);
    expect(r.environment.report.missing).toEqual([
      { name: GOOD, spec: GOOD, from: ['fx'], reason: 'not installed: "environment.install" is false (offline)' },
    ]);
    expect(r.environment.key).not.toBe(layered.key);
  });
});

// A fresh home under a private folder (mkdtemp makes 0700 folders): as root the sandbox runs as uid 65534, which
// could not read an environment made there, and every block would be skipped. It is refused before pip runs.
describe('an environments folder the sandbox cannot read', () => {
  it.runIf(process.getuid?.() === 0)('is refused before anything is installed, naming the closed folder', async () => {
    const closed = tempDir('nnb-closed-');
    chmodSync(closed, 0o700);
    const home = join(closed, 'envs');
    const out = await ensureManagedBase(defaultEnvironmentConfig(), home, silentLogger);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.message).toContain(`${closed} is closed to it`);
    expect(out.hint).toContain('NNBLOCKS_ENV_HOME');
    expect(existsSync(home)).toBe(false);
  });
});
