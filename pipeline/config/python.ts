// Finds the Python interpreter that imports torch: config `python`, else $NNBLOCKS_PYTHON, else the first of
// `python3`, `/usr/bin/python3` that imports torch. One probe per interpreter per process (importing torch is slow).
import { execFileSync } from 'node:child_process';
import { NnblocksError, type Diagnostic } from '../contract/diagnostics.ts';

export interface PythonAttempt {
  /** What was run: a command name or a path. */
  candidate: string;
  /** Where the candidate came from. */
  from: 'config' | 'env NNBLOCKS_PYTHON' | 'default';
  ok: boolean;
  /** Why it was rejected. */
  error?: string;
}

export interface PythonInfo {
  /** Absolute path of the interpreter (sys.executable). */
  path: string;
  version: string;
  torchVersion: string;
  /** The CUDA version torch was built for (torch.version.cuda); null for a CPU build. */
  cudaVersion: string | null;
  cudaAvailable: boolean;
  tried: PythonAttempt[];
}

export type PythonLookup =
  { ok: true; python: PythonInfo } | { ok: false; diagnostic: Diagnostic; tried: PythonAttempt[] };

const PROBE = `
import json, sys
out = {"path": sys.executable, "version": sys.version.split()[0]}
try:
    import torch
    out["torch"] = torch.__version__
    out["cuda"] = bool(torch.cuda.is_available())
    out["cudaVersion"] = torch.version.cuda
except BaseException as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
`;

type Probe = {
  path: string;
  version: string;
  torch?: string;
  cuda?: boolean;
  cudaVersion?: string | null;
  error?: string;
};
const probes = new Map<string, Probe | { error: string }>();

function probe(candidate: string): Probe | { error: string } {
  let r = probes.get(candidate);
  if (!r) {
    try {
      const out = execFileSync(candidate, ['-c', PROBE], {
        encoding: 'utf8',
        timeout: 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      r = JSON.parse(out.trim().split('\n').pop()!) as Probe;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      r = { error: e.code === 'ENOENT' ? 'not found' : (e.stderr?.trim().split('\n').pop() ?? e.message) };
    }
    probes.set(candidate, r);
  }
  return r;
}

/** The command that installs torch for the system Python, as this user can run it. */
export function torchInstallHint(): string {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return `${root ? '' : 'sudo '}apt-get install -y python3-torch python3-torchvision`;
}

export function lookupPython(config: { python?: string } = {}, env: NodeJS.ProcessEnv = process.env): PythonLookup {
  // An explicit choice is never silently replaced by another interpreter.
  const candidates: { candidate: string; from: PythonAttempt['from'] }[] = config.python
    ? [{ candidate: config.python, from: 'config' }]
    : env.NNBLOCKS_PYTHON
      ? [{ candidate: env.NNBLOCKS_PYTHON, from: 'env NNBLOCKS_PYTHON' }]
      : [
          { candidate: 'python3', from: 'default' },
          { candidate: '/usr/bin/python3', from: 'default' },
        ];
  const tried: PythonAttempt[] = [];
  for (const c of candidates) {
    const r = probe(c.candidate);
    if ('torch' in r && r.torch) {
      tried.push({ ...c, ok: true });
      return {
        ok: true,
        python: {
          path: r.path,
          version: r.version,
          torchVersion: r.torch,
          cudaVersion: r.cudaVersion ?? null,
          cudaAvailable: Boolean(r.cuda),
          tried,
        },
      };
    }
    tried.push({ ...c, ok: false, error: r.error ?? 'torch did not import' });
  }
  const explicit = candidates[0].from !== 'default';
  return {
    ok: false,
    tried,
    diagnostic: {
      code: 'python-not-found',
      severity: 'error',
      stage: 'config',
      message: `no Python interpreter that imports torch; tried ${tried.map((t) => `${t.candidate} (${t.from}): ${t.error}`).join('; ')}`,
      hint: explicit
        ? `fix or remove ${candidates[0].from === 'config' ? 'the config field "python"' : 'NNBLOCKS_PYTHON'}, or install torch for it: ${torchInstallHint()}`
        : `install torch for the system Python: ${torchInstallHint()}, or point NNBLOCKS_PYTHON at an interpreter that imports torch`,
    },
  };
}

/** Like `lookupPython`, but throws a NnblocksError naming what was tried and the fix. */
export function findPython(config: { python?: string } = {}, env: NodeJS.ProcessEnv = process.env): PythonInfo {
  const r = lookupPython(config, env);
  if (r.ok) return r.python;
  throw new NnblocksError(r.diagnostic.message, 'config', r.diagnostic.hint);
}
