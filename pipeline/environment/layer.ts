// The requirements layer: a virtual environment on top of a base (managed or named) that holds what the corpus's
// sources declare, the config adds, and the distributions of `python` sources. Made once per (base, requirement
// set) and shared. A layer is upstream's choice, so nothing of it runs on the host: pip runs inside a bubblewrap
// sandbox (uid 65534, no capabilities, seccomp, the network but nothing of the host's files or environment beyond
// what pip is configured with), where a source distribution's setup.py may run; compilers are switched off, so
// compiled extensions are not built. Its `.pth` files are processed only inside validation sandboxes.
// See docs/config.md ("environment").
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../context.ts';
import {
  accountBinds,
  bwrapAvailable,
  underUsr,
  hostIdentity,
  outermost,
  privilegeArgs,
  sandboxEnv,
  SANDBOX_UID,
  seccompFds,
  systemBinds,
} from '../sandbox/bwrap.ts';
import { withLock } from '../sources/lock.ts';
import type { BaseEnvironment } from './base.ts';
import { installedDistributions, type InstalledDistribution } from './installed.ts';
import { configFileText, pipConfiguration, PIP_FLAGS, runLogged } from './pip.ts';
import type { MissingRequirement, RequirementEntry } from './types.ts';

const FORMAT = 1;
const STAMP = 'nnblocks-layer.json';
/** What pip inside the sandbox needs of /etc besides the loader's files: name resolution and certificates. */
const NETWORK_ETC = [
  'resolv.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'services',
  'protocols',
  'ssl',
  'ca-certificates',
];

export interface Layer {
  dir: string;
  python: string;
  /** Its own site folder. */
  site: string;
}

interface Stamp {
  format: number;
  requirements: string[];
  missing: MissingRequirement[];
}

/** `layer` null: none could be made (offline, no sandbox); `missing` says which requirements that leaves out. */
export type LayerOutcome =
  { ok: true; layer: Layer | null; missing: MissingRequirement[] } | { ok: false; message: string; hint: string };

/** The layer's site folder: venvs of one Python version put it at the same relative place. */
function siteOf(dir: string, version: string): string {
  return join(dir, 'lib', `python${version.split('.').slice(0, 2).join('.')}`, 'site-packages');
}

function chownTree(path: string, uid: number): void {
  const st = lstatSync(path);
  chownSync(path, uid, uid);
  if (st.isDirectory()) for (const n of readdirSync(path)) chownTree(join(path, n), uid);
}

function readStamp(dir: string): Stamp | null {
  try {
    const s = JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) as Stamp;
    return s.format === FORMAT ? s : null;
  } catch {
    return null;
  }
}

/** Pins for everything the base has (torch above all): a requirement may use them, never replace them. */
function constraintsText(base: InstalledDistribution[]): string {
  const free = new Set(['pip', 'setuptools', 'wheel']);
  return base
    .filter((d) => !free.has(d.name))
    .map((d) => `${d.name}==${d.version}\n`)
    .join('');
}

interface InstallSandbox {
  run(specs: string[]): Promise<{ ok: boolean; tail: string }>;
  close(): void;
}

/**
 * pip inside bubblewrap: the layer bound writable at its final path, the base read-only, the user's pip
 * configuration as one file, the local indexes it names read-only, and the network. As root, bubblewrap runs as
 * uid 65534, which owns the layer while pip runs.
 */
function installSandbox(
  base: BaseEnvironment,
  dir: string,
  partial: string,
  logFile: string,
  hostEnv: NodeJS.ProcessEnv,
): InstallSandbox {
  // World-readable: bubblewrap runs as the sandbox's uid when nnblocks is root, and binds from here.
  const staging = mkdtempSync(join(tmpdir(), 'nnblocks-install-'));
  chmodSync(staging, 0o755);
  const cfg = pipConfiguration(base.python, hostEnv);
  writeFileSync(join(staging, 'pip.conf'), configFileText(cfg), { mode: 0o644 });
  writeFileSync(join(staging, 'constraints.txt'), constraintsText(installedDistributions(base.sites)), { mode: 0o644 });
  const roots = outermost([base.facts.prefix, base.facts.basePrefix, ...base.sites, ...base.roots]).filter(
    (p) => !underUsr(p),
  );
  const env = Object.entries({
    ...cfg.env,
    PIP_CONFIG_FILE: '/nnb/pip/pip.conf',
    PIP_NO_CACHE_DIR: '1', // a cache shared between layers would let one corpus's setup.py poison another's
    CC: '/bin/false', // no compiled extensions: a build that needs a compiler fails, and the requirement is missing
    CXX: '/bin/false',
  }).flatMap(([k, v]) => ['--setenv', k, v]);
  const args = (specs: string[]) => [
    ...privilegeArgs({ network: true }),
    '--clearenv',
    ...sandboxEnv(),
    ...env,
    ...systemBinds(NETWORK_ETC),
    ...accountBinds(staging),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...roots.flatMap((r) => ['--ro-bind', r, r]),
    ...cfg.localPaths.flatMap((p) => ['--ro-bind', p, p]),
    '--ro-bind',
    staging,
    '/nnb/pip',
    '--bind',
    partial,
    dir,
    '--chdir',
    '/tmp',
    join(dir, 'bin', 'python'),
    '-m',
    'pip',
    'install',
    ...PIP_FLAGS,
    '-c',
    '/nnb/pip/constraints.txt',
    ...specs,
  ];
  return {
    run: async (specs) => {
      const fds = seccompFds(staging);
      try {
        return await runLogged('bwrap', args(specs), {
          logFile,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          ...hostIdentity(),
          fds,
        });
      } finally {
        for (const fd of fds) closeSync(fd);
      }
    },
    close: () => rmSync(staging, { recursive: true, force: true }),
  };
}

/**
 * Finds or makes the layer of `requirements` on `base`. Everything is tried at once; when that fails, each
 * requirement alone, so one that can't be installed (no network, no wheel and no pure build) costs only itself.
 */
export async function ensureLayer(
  base: BaseEnvironment,
  requirements: RequirementEntry[],
  home: string,
  opts: { install: boolean; log: Logger; env?: NodeJS.ProcessEnv },
): Promise<LayerOutcome> {
  const specs = [...new Set(requirements.flatMap((r) => r.specs))].sort();
  const key = createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, base: base.key, specs }))
    .digest('hex');
  const name = `layer-${key.slice(0, 16)}`;
  const dir = join(home, name);
  const site = siteOf(dir, base.facts.version);
  const done = (s: Stamp): LayerOutcome => ({
    ok: true,
    layer: { dir, python: join(dir, 'bin', 'python'), site },
    missing: s.missing,
  });
  const ready = readStamp(dir);
  if (ready) return done(ready);
  const notInstalled = (reason: string): MissingRequirement[] =>
    requirements.map((r) => ({ name: r.name, spec: r.specs.join('; '), from: r.from, reason }));
  if (!opts.install)
    return { ok: true, layer: null, missing: notInstalled('not installed: "environment.install" is false (offline)') };
  if (!bwrapAvailable().ok)
    return {
      ok: true,
      layer: null,
      missing: notInstalled('not installed: requirements are installed inside the sandbox, and bubblewrap is missing'),
    };
  mkdirSync(home, { recursive: true, mode: 0o755 });
  return withLock(join(home, '.locks', name), async () => {
    const again = readStamp(dir);
    if (again) return done(again);
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    const logFile = join(home, `${name}.log`);
    writeFileSync(logFile, '');
    opts.log.info(`environment: installing ${specs.length} declared requirements in a sandbox (${specs.join(' ')})`);
    const made = await runLogged(base.facts.baseExecutable, ['-m', 'venv', '--without-pip', partial], { logFile });
    if (!made.ok)
      return { ok: false, message: `creating the requirements layer failed: ${made.tail}`, hint: `see ${logFile}` };
    // The base's site folders (pip among them), after the layer's own, with their .pth files processed.
    writeFileSync(
      join(siteOf(partial, base.facts.version), '_nnblocks_base.pth'),
      `import site; list(map(site.addsitedir, ${JSON.stringify(base.sites)}))\n`,
    );
    const root = process.getuid?.() === 0;
    if (root) chownTree(partial, SANDBOX_UID);
    const box = installSandbox(base, dir, partial, logFile, opts.env ?? process.env);
    const missing: MissingRequirement[] = [];
    try {
      const all = await box.run(specs);
      if (!all.ok) {
        for (const r of requirements) {
          const one = await box.run(r.specs);
          if (!one.ok) missing.push({ name: r.name, spec: r.specs.join('; '), from: r.from, reason: one.tail });
        }
      }
    } finally {
      box.close();
      // Back to the host user: the sandbox's uid may read the layer, never change it again.
      if (root) chownTree(partial, 0);
    }
    const stamp: Stamp = { format: FORMAT, requirements: specs, missing };
    writeFileSync(join(partial, STAMP), JSON.stringify(stamp, null, 2) + '\n');
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    if (missing.length)
      opts.log.warn(
        `environment: ${missing.length} requirements could not be installed (${missing.map((m) => m.name).join(', ')})`,
      );
    return done(stamp);
  });
}
