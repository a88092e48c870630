// Bytecode of the originals' packages, compiled once on the host before validation (bytecode.py, docs/
// validate.md "Bytecode of the originals"). A block's child imports its original package for fidelity and writes no
// bytecode, so it compiled the package from its sources every time: on timm, 1.2 s of each block's 1.7 s import.
// Only the build's own checkouts get bytecode (git sources, in the cache folder): a user's folder is not written
// to, and an installed distribution has its bytecode from pip. Best effort: whatever goes wrong, validation runs as
// it did without, only slower.
import { execa } from 'execa';
import { existsSync, lstatSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./bytecode.py', import.meta.url));
/** Longer than this (the paper's corpus compiles in well under a minute on 2 cores), and validation goes on without. */
const TIMEOUT_MS = 180_000;

export interface BytecodeReport {
  files: number;
  compiled: number;
  failed: number;
  ms: number;
}

/** A source whose checkout this build made, and the top-level packages of its blocks' modules. */
export interface CheckoutPackages {
  kind: string;
  importRoot: string;
  packages: Iterable<string>;
}

/**
 * The package folders (or single-module files) to compile: each block's top-level package under its source's import
 * root, for git sources whose import root lies in `cacheDir`; never a path that leaves that root.
 */
export function bytecodeRoots(sources: CheckoutPackages[], cacheDir: string): string[] {
  const cache = resolve(cacheDir);
  const out = new Set<string>();
  for (const s of sources) {
    const root = resolve(s.importRoot);
    if (s.kind !== 'git' || !inside(root, cache)) continue;
    for (const pkg of s.packages) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(pkg)) continue;
      const dir = join(root, pkg);
      const file = `${dir}.py`;
      const found = isReal(dir, true) ? dir : isReal(file, false) ? file : null;
      if (found) out.add(found);
    }
  }
  return [...out].sort();
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** A real folder (or regular file), not a symlink to somewhere else. */
function isReal(path: string, dir: boolean): boolean {
  if (!existsSync(path)) return false;
  const st = lstatSync(path);
  return dir ? st.isDirectory() : st.isFile();
}

/**
 * Compiles `roots` with `python` (the validation environment's, whose bytecode tag the children read). Null when
 * there is nothing to compile or the compiler failed or ran out of time: the children then compile as before.
 */
export async function compileBytecode(python: string, roots: string[]): Promise<BytecodeReport | null> {
  if (roots.length === 0) return null;
  const t0 = performance.now();
  // -I: no user site, no PYTHON* variables, and no working folder on sys.path (only the script's own folder, ours):
  // nothing of an upstream tree can shadow py_compile.
  try {
    const res = await execa(python, ['-I', SCRIPT, ...roots], {
      reject: false,
      timeout: TIMEOUT_MS,
      stdin: 'ignore',
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      cwd: '/',
    });
    if (res.exitCode !== 0 || res.timedOut) return null;
    const r = JSON.parse(String(res.stdout).trim().split('\n').pop() ?? '') as Omit<BytecodeReport, 'ms'>;
    return { files: r.files, compiled: r.compiled, failed: r.failed, ms: performance.now() - t0 };
  } catch {
    return null; // no interpreter, or output that is not the report: the children compile as before
  }
}
