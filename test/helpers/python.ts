// Runs the real Python that imports torch for tests that import emitted modules: the managed environment of a
// default config (torch 2.14.1 from pip, made by `npm test`'s setup), or Debian's torch 1.13 for the compatibility
// tests.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { defaultEnvironmentConfig } from '../../pipeline/config/load.ts';
import { findManagedBase } from '../../pipeline/environment/base.ts';
import { environmentHome } from '../../pipeline/environment/home.ts';

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
