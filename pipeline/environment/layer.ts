// The requirements layer: a virtual environment on top of a base (managed or named) that holds what the corpus's
// sources declare, the config adds, and the distributions of `python` sources. Made once per (base, requirement
// set) and shared. A layer is upstream's choice, so none of it runs on the host, and none of it runs with the
// network: wheels are installed by a sandboxed pip that imports nothing they bring; a requirement with no wheel is
// downloaded by the host as data (sdist.ts) and built into one in an offline sandbox (install-sandbox.ts). Its
// `.pth` files are processed only inside offline sandboxes. See docs/config.md ("environment").
import { createHash } from 'node:crypto';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../contract/context.ts';
import { bwrapAvailable, SANDBOX_UID } from '../sandbox/bwrap.ts';
import { normalizeName } from '../sources/requirements/pep508.ts';
import { withLock } from '../sources/lock.ts';
import type { BaseEnvironment } from './base.ts';
import { readStamp } from './stamp.ts';
import { installSandboxes, type InstallSandboxes } from './install-sandbox.ts';
import { pipConfiguration, runLogged } from './pip.ts';
import { fetchSdist, indexSources, type IndexSources } from './sdist.ts';
import type { MissingRequirement, RequirementEntry } from './types.ts';

const FORMAT = 2;
const STAMP = 'nnblocks-layer.json';
/** Rounds of "install, build the sdists pip found no wheel for, install again" (fvcore → iopath → ...). */
const MAX_ROUNDS = 6;

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

const stampOf = (dir: string) => readStamp<Stamp>(dir, STAMP, FORMAT);

/**
 * What pip found no wheel for (`Could not find a version that satisfies the requirement iopath>=0.1.7 (from
 * fvcore)`): the requirement as pip wrote it, keyed by name.
 */
export function wheelless(lines: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of lines) {
    const m = /(?:satisfies the requirement|No matching distribution found for) ([A-Za-z0-9][^\s(]*)/.exec(l);
    const name = m && /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(m[1]);
    if (m && name) out.set(normalizeName(name[0]), m[1]);
  }
  return out;
}

/**
 * Installs `specs` (wheels only), building the source distributions pip found no wheel for and trying again, until
 * it works or nothing new can be built. Returns pip's last outcome.
 */
async function installRounds(box: InstallSandboxes, specs: string[], src: IndexSources, built: Set<string>) {
  let out = await box.install(specs);
  for (let round = 0; !out.ok && round < MAX_ROUNDS; round++) {
    let progress = false;
    for (const [name, spec] of wheelless(out.lines)) {
      if (built.has(name)) continue;
      built.add(name);
      const file = await fetchSdist(
        name,
        [spec, ...specs.filter((s) => normalizeName(s.split(/[^A-Za-z0-9._-]/)[0]) === name)],
        src,
        box.downloads,
      );
      if (file && (await box.build(file)).ok) progress = true;
    }
    if (!progress) break;
    out = await box.install(specs);
  }
  return out;
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
  const done = (s: Stamp): LayerOutcome => ({
    ok: true,
    layer: { dir, python: join(dir, 'bin', 'python'), site: siteOf(dir, base.facts.version) },
    missing: s.missing,
  });
  const ready = stampOf(dir);
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
    const again = stampOf(dir);
    if (again) return done(again);
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    const logFile = join(home, `${name}.log`);
    writeFileSync(logFile, '');
    opts.log.info(`environment: installing ${specs.length} requirements in a sandbox (${specs.join(' ')})`);
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
    const pip = pipConfiguration(base.python, opts.env ?? process.env);
    const box = installSandboxes({ base, dir, partial, pip, logFile });
    const src = indexSources(pip);
    const built = new Set<string>();
    const missing: MissingRequirement[] = [];
    try {
      if (!(await installRounds(box, specs, src, built)).ok)
        for (const r of requirements) {
          const one = await installRounds(box, r.specs, src, built);
          if (!one.ok) missing.push({ name: r.name, spec: r.specs.join('; '), from: r.from, reason: one.tail });
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
