// Runs the real Python that imports torch for tests that import emitted modules: the managed environment of a
// default config (torch 2.14.1 from pip, made by `npm test`'s setup), or Debian's torch 1.13 for the compatibility
// tests.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { defaultEnvironmentConfig } from '../../pipeline/config/load.ts';
import { findManagedBase } from '../../pipeline/environment/base.ts';
import { environmentHome } from '../../pipeline/environment/home.ts';
import { skipBecause } from './skip.ts';

let managed: { python: string; sites: string[] } | null | undefined;

function managedBase(): { python: string; sites: string[] } | null {
  managed ??= findManagedBase(defaultEnvironmentConfig(), environmentHome());
  return managed;
}

/** The interpreter tests use: $NNBLOCKS_PYTHON, else the managed environment a default config gets, else Debian's. */
export function testPython(): string {
  return process.env.NNBLOCKS_PYTHON ?? managedBase()?.python ?? debianPython();
}

/** The runtime's site folders for `testPython()` (ValidateOptions.runtimeRoots): the managed base's, else none. */
export function testRuntimeRoots(): string[] {
  return process.env.NNBLOCKS_PYTHON ? [] : (managedBase()?.sites ?? []);
}

/** Debian's Python with its torch 1.13 (python3-torch): the compatibility path. */
export function debianPython(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** Debian's torchvision 0.14 (python3-torchvision), the real code several suites parse, mine and build. */
export const DEBIAN_TORCHVISION = '/usr/lib/python3/dist-packages/torchvision';

/**
 * A suite on Debian's torchvision. Without it, one test in its place says why the suite does not run: on Debian it
 * fails, since npm test's setup (pipeline/setup.mjs) installs python3-torchvision there and its absence means a
 * broken setup, not a machine without it; elsewhere it is skipped with the reason on stderr, so a run never loses a
 * suite without a word.
 */
export function describeOnDebianTorchvision(name: string, body: () => void): void {
  if (existsSync(DEBIAN_TORCHVISION)) {
    describe(name, body);
    return;
  }
  const debian = existsSync('/usr/bin/dpkg-query');
  it(`${name} (needs ${DEBIAN_TORCHVISION})`, (ctx) => {
    if (!debian) skipBecause(ctx, `not a Debian system, so no python3-torchvision at ${DEBIAN_TORCHVISION}`);
    throw new Error(
      `${DEBIAN_TORCHVISION} is missing: npm test's setup installs python3-torchvision on Debian; ` +
        'run `node pipeline/setup.mjs --for test` as root (or `apt-get install python3-torchvision`)',
    );
  });
}

/**
 * Imports each (importRoot, module, className) in one fresh isolated interpreter (`-I`: no user site, no cwd on
 * sys.path) with the named packages blocked by a meta-path finder; returns per-module 'ok' or the error. An
 * item's `run` (Python source) then runs with the class as `Block` and torch imported.
 */
export function importInFreshPython(
  items: { importRoot: string; module: string; className: string; run?: string }[],
  blocked: string[],
  opts: { build?: boolean } = {},
): Map<string, string> {
  const script = `
import importlib, importlib.abc, json, sys, traceback
BLOCKED = set(json.loads(sys.argv[1]))
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError(f"import of {name} is blocked")
        return None
sys.meta_path.insert(0, Refuse())
out = {}
for it in json.load(sys.stdin):
    try:
        if it['importRoot'] not in sys.path:
            sys.path.insert(0, it['importRoot'])
        cls = getattr(importlib.import_module(it['module']), it['className'])
        if it.get('run'):
            exec(it['run'], {'Block': cls, 'torch': importlib.import_module('torch')})
        if ${opts.build ? 'True' : 'False'}:
            obj = cls()
            out[it['module']] = 'ok:%d' % sum(p.numel() for p in obj.parameters())
        else:
            out[it['module']] = 'ok'
    except BaseException as e:
        out[it['module']] = '%s: %s' % (type(e).__name__, str(e).splitlines()[0] if str(e) else '')
print(json.dumps(out))
`;
  const res = execFileSync(testPython(), ['-I', '-c', script, JSON.stringify(blocked)], {
    input: JSON.stringify(items),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return new Map(Object.entries(JSON.parse(res.trim().split('\n').pop()!) as Record<string, string>));
}
