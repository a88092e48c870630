// Runs the real Python that imports torch (Debian's /usr/bin/python3 here) for tests that import emitted modules.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The interpreter tests use: $NNBLOCKS_PYTHON, else /usr/bin/python3. */
export function testPython(): string {
  return process.env.NNBLOCKS_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
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
