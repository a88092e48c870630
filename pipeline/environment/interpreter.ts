// Facts about an interpreter an environment is made from or layered on: version, prefixes, site folders, whether
// it can make virtual environments; and, for a managed base only, what torch it imports. Only interpreters nnblocks
// or the user chose are run here: a layer of declared requirements is never run on the host with its site
// processing on (its `.pth` files are upstream's choice); see `hostPython` in environment.ts.
import { execFileSync } from 'node:child_process';

export interface InterpreterFacts {
  /** sys.executable. */
  executable: string;
  /** The interpreter a venv made from this one links to (sys._base_executable). */
  baseExecutable: string;
  /** `3.11.2`. */
  version: string;
  prefix: string;
  basePrefix: string;
  /** Site folders in sys.path order (site.getsitepackages()). */
  sites: string[];
  /** Whether `-m venv` with pip works (Debian needs python3-venv). */
  venv: boolean;
}

const FACTS = `
import importlib.util, json, site, sys
print(json.dumps({
    "executable": sys.executable,
    "baseExecutable": getattr(sys, "_base_executable", sys.executable),
    "version": sys.version.split()[0],
    "prefix": sys.prefix,
    "basePrefix": sys.base_prefix,
    "sites": site.getsitepackages() if hasattr(site, "getsitepackages") else [],
    "venv": all(importlib.util.find_spec(m) is not None for m in ("venv", "ensurepip")),
}))
`;

/** Runs `script` (`-I`: no user site, no cwd on sys.path), reading its last line as JSON; or why it could not. */
function probe<T>(python: string, script: string, timeout: number): T | { error: string } {
  try {
    const out = execFileSync(python, ['-I', '-c', script], {
      cwd: '/',
      encoding: 'utf8',
      timeout,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return JSON.parse(out.trim().split('\n').pop()!) as T;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    return {
      error: e.code === 'ENOENT' ? 'not found' : (e.stderr?.trim().split('\n').pop() ?? e.message).slice(0, 500),
    };
  }
}

/** Facts about `python`; an error says why it could not run. */
export function interpreterFacts(python: string): InterpreterFacts | { error: string } {
  return probe<InterpreterFacts>(python, FACTS, 60_000);
}

export interface TorchFacts {
  /** torch.__version__, local label included: `2.14.1+cu130`. */
  torch: string;
  /** torch.version.cuda: the CUDA the build targets (null for a CPU build). */
  cuda: string | null;
  torchvision: string | null;
}

const TORCH = `
import json, torch
try:
    import torchvision
    tv = torchvision.__version__
except Exception:
    tv = None
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "torchvision": tv}))
`;

/** What torch a managed base imports (it holds only the torch wheels and their dependencies). Seconds. */
export function torchFacts(python: string): TorchFacts | { error: string } {
  return probe<TorchFacts>(python, TORCH, 300_000);
}
