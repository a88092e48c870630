// The managed base environment: a virtual environment with the torch (and torchvision) a config asks for, made
// once per machine from an interpreter the sandbox's user can read, and shared by every corpus that asks for the
// same versions. Wheels only (`--only-binary :all:`): installing it runs no package's code on the host.
// See docs/config.md ("environment").
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../contract/context.ts';
import type { EnvironmentConfig } from '../config/types.ts';
import { closedOnTheWay, readableBy, sandboxHostUid } from '../sandbox/bwrap.ts';
import { withLock } from '../sources/lock.ts';
import { interpreterFacts, torchFacts, type InterpreterFacts, type TorchFacts } from './interpreter.ts';
import { PIP_FLAGS, runLogged } from './pip.ts';
import { readStamp } from './stamp.ts';

/** Bumped when the layout of a managed environment changes: older ones are made again. */
const FORMAT = 1;
const STAMP = 'nnblocks-env.json';

export interface BaseEnvironment {
  /** The interpreter: the venv's `bin/python`, or the interpreter the user named. */
  python: string;
  /** Site folders in sys.path order: what a layer on top of it adds to its own. */
  sites: string[];
  /** Folders the sandbox must show for it besides its prefix (none for a venv: its prefix is its folder). */
  roots: string[];
  facts: InterpreterFacts;
  torch: TorchFacts;
  managed: boolean;
  /** Identifies it in layer and cache keys: the spec for a managed one, the interpreter for a named one. */
  key: string;
}

interface Stamp {
  format: number;
  spec: { torch: string; torchvision: string | null };
  facts: InterpreterFacts;
  torch: TorchFacts;
}

export type BaseOutcome = { ok: true; base: BaseEnvironment } | { ok: false; message: string; hint: string };

/** The interpreter venvs are made from: the config's, else /usr/bin/python3, else `python3`, if usable. */
function pickCreator(env: EnvironmentConfig): { facts: InterpreterFacts } | { message: string; hint: string } {
  const candidates = env.python ? [env.python] : ['/usr/bin/python3', 'python3'];
  const why: string[] = [];
  for (const c of candidates) {
    const f = interpreterFacts(c);
    if ('error' in f) {
      why.push(`${c}: ${f.error}`);
      continue;
    }
    if (!f.venv) {
      why.push(`${c}: no venv/ensurepip module`);
      continue;
    }
    // The sandbox runs as another uid when nnblocks is root: it must read the interpreter and its standard library.
    if (!readableBy(f.basePrefix, sandboxHostUid()) || !readableBy(f.baseExecutable, sandboxHostUid())) {
      why.push(`${c}: ${f.basePrefix} is not readable by uid ${sandboxHostUid()}, the sandbox's user`);
      continue;
    }
    return { facts: f };
  }
  return {
    message: `no interpreter to create the validation environment from (${why.join('; ')})`,
    hint: env.python
      ? 'point "environment.python" at a Python 3 with the venv module that the sandbox can read, e.g. /usr/bin/python3'
      : 'install Debian\'s Python with venv (`apt-get install python3 python3-venv`), or set "environment.python"',
  };
}

const stampOf = (dir: string) => readStamp<Stamp>(dir, STAMP, FORMAT);

function fromStamp(dir: string, key: string, s: Stamp): BaseEnvironment {
  // Where the stamp's paths point once the environments' folder moved (NNBLOCKS_ENV_HOME changed).
  const here = (p: string) => (p.startsWith(s.facts.prefix) ? dir + p.slice(s.facts.prefix.length) : p);
  const facts = { ...s.facts, executable: here(s.facts.executable), prefix: dir, sites: s.facts.sites.map(here) };
  return {
    python: join(dir, 'bin', 'python'),
    sites: facts.sites,
    roots: [],
    facts,
    torch: s.torch,
    managed: true,
    key,
  };
}

/** `torch==2.14.1` + `torchvision==0.29.1` → `torch-2.14.1_torchvision-0.29.1`: a readable folder name prefix. */
function slug(reqs: string[]): string {
  return reqs.map((r) => r.replace(/[^A-Za-z0-9.]+/g, '-').replace(/^-|-$/g, '')).join('_');
}

/** Name and key of the managed base for `env`, made from `creator`. */
function baseName(env: EnvironmentConfig, creator: InterpreterFacts): { name: string; reqs: string[] } {
  const reqs = [env.torch, ...(env.torchvision ? [env.torchvision] : [])];
  const spec = { torch: env.torch, torchvision: env.torchvision };
  const key = createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, spec, python: creator.baseExecutable, v: creator.version }))
    .digest('hex')
    .slice(0, 12);
  return { name: `base-${slug(reqs)}-py${creator.version}-${key}`, reqs };
}

/** The managed base for `env` if it exists already (never makes one): tests and `doctor` ask. */
export function findManagedBase(env: EnvironmentConfig, home: string): BaseEnvironment | null {
  const creator = pickCreator(env);
  if (!('facts' in creator)) return null;
  const { name } = baseName(env, creator.facts);
  const stamp = stampOf(join(home, name));
  return stamp ? fromStamp(join(home, name), name, stamp) : null;
}

/**
 * Finds or makes the managed base for `env` under `home`. With `install: false` a missing base is an error that
 * says how to make it. Concurrent runs wait for each other (one lock per environment).
 */
export async function ensureManagedBase(env: EnvironmentConfig, home: string, log: Logger): Promise<BaseOutcome> {
  const creator = pickCreator(env);
  if (!('facts' in creator)) return { ok: false, ...creator };
  // Before gigabytes are installed where the sandbox can't read them (a home under a 0700 temporary folder): every
  // block would be skipped with the sandbox unable to start its interpreter.
  const closed = closedOnTheWay(home, sandboxHostUid(), 'stop');
  if (closed)
    return {
      ok: false,
      message: `the environments' folder ${home} can't be read by uid ${sandboxHostUid()}, the sandbox's user: ${closed} is closed to it`,
      hint: 'set NNBLOCKS_ENV_HOME to a folder every user can traverse (the default for root is /var/cache/nnblocks/envs), or `chmod o+rx` the folder named',
    };
  const { name, reqs } = baseName(env, creator.facts);
  const spec = { torch: env.torch, torchvision: env.torchvision };
  const dir = join(home, name);
  const ready = stampOf(dir);
  if (ready) return { ok: true, base: fromStamp(dir, name, ready) };
  if (!env.install)
    return {
      ok: false,
      message: `the validation environment (${reqs.join(', ')}) does not exist yet and "environment.install" is false`,
      hint: 'run once with network access and "install": true (nnblocks creates it), or set "python" to an interpreter that imports torch',
    };
  mkdirSync(home, { recursive: true, mode: 0o755 });
  return withLock(join(home, '.locks', name), async () => {
    const again = stampOf(dir);
    if (again) return { ok: true, base: fromStamp(dir, name, again) };
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    const logFile = join(home, `${name}.log`);
    writeFileSync(logFile, '');
    log.info(`environment: creating ${reqs.join(' ')} for Python ${creator.facts.version} (pip; minutes, once)`);
    const steps: [string, string[]][] = [
      [creator.facts.baseExecutable, ['-m', 'venv', partial]],
      [join(partial, 'bin', 'python'), ['-m', 'pip', 'install', ...PIP_FLAGS, '--only-binary', ':all:', ...reqs]],
    ];
    for (const [file, args] of steps) {
      const r = await runLogged(file, args, { logFile });
      if (!r.ok) {
        rmSync(partial, { recursive: true, force: true });
        return {
          ok: false,
          message: `creating the validation environment failed: ${r.tail}`,
          hint: `see ${logFile}; offline, set "python" (or NNBLOCKS_PYTHON) to an interpreter that imports torch`,
        };
      }
    }
    const facts = interpreterFacts(join(partial, 'bin', 'python'));
    const torch = torchFacts(join(partial, 'bin', 'python'));
    if ('error' in facts || 'error' in torch) {
      rmSync(partial, { recursive: true, force: true });
      const error = 'error' in facts ? facts.error : (torch as { error: string }).error;
      return {
        ok: false,
        message: `the new validation environment does not import torch: ${error}`,
        hint: `see ${logFile}`,
      };
    }
    // Paths as they will be once renamed: a venv computes its prefix from where its interpreter is run.
    const moved = (p: string) => (p.startsWith(partial) ? dir + p.slice(partial.length) : p);
    const stamp: Stamp = {
      format: FORMAT,
      spec,
      facts: {
        ...facts,
        executable: moved(facts.executable),
        prefix: moved(facts.prefix),
        sites: facts.sites.map(moved),
      },
      torch,
    };
    writeFileSync(join(partial, STAMP), JSON.stringify(stamp, null, 2) + '\n');
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    log.info(`environment: torch ${torch.torch}${torch.torchvision ? `, torchvision ${torch.torchvision}` : ''} ready`);
    return { ok: true, base: fromStamp(dir, name, stamp) };
  });
}
