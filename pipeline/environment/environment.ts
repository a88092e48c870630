// The environment stage's entry: the Python every later stage runs, resolved once per run. A base (the managed
// torch environment, or the interpreter the config or $NNBLOCKS_PYTHON names) plus, when the corpus asks for
// anything, a requirements layer on top. Problems become diagnostics; the run goes on with what is installed.
// See docs/config.md ("environment").
import { createHash } from 'node:crypto';
import type { StageContext } from '../contract/context.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { lookupPython } from '../config/python.ts';
import type { CorpusConfig } from '../config/types.ts';
import { outermost, underUsr } from '../sandbox/bwrap.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import { ensureManagedBase, type BaseEnvironment, type BaseOutcome } from './base.ts';
import { environmentHome } from './home.ts';
import { installedDigest, installedDistributions } from './installed.ts';
import { interpreterFacts } from './interpreter.ts';
import { ensureLayer } from './layer.ts';
import { collectRequirements } from './requirements.ts';
import type { EnvironmentResult } from './types.ts';

const stage = 'environment';

/** The interpreter the config or $NNBLOCKS_PYTHON names, used as it is (it must import torch). */
function namedBase(config: CorpusConfig, env: NodeJS.ProcessEnv): BaseOutcome & { diagnostic?: Diagnostic } {
  const py = lookupPython(config, env);
  if (!py.ok) return { ok: false, message: py.diagnostic.message, hint: py.diagnostic.hint ?? '' };
  const facts = interpreterFacts(py.python.path);
  if ('error' in facts)
    return { ok: false, message: `${py.python.path}: ${facts.error}`, hint: 'run `nnblocks doctor`' };
  const torch = { torch: py.python.torchVersion, cuda: py.python.cudaVersion, torchvision: null };
  return {
    ok: true,
    base: {
      python: py.python.path,
      sites: facts.sites,
      // A virtualenv outside /usr: the sandbox shows its prefix (the interpreter's own is found from its path).
      roots: outermost([facts.prefix, ...facts.sites]).filter((p) => !underUsr(p)),
      facts,
      torch,
      managed: false,
      key: `named:${facts.executable}:${facts.version}:${torch.torch}`,
    },
  };
}

/** Whether this run may run pip: the config's `environment.install`, unless NNBLOCKS_OFFLINE=1. */
function mayInstall(config: CorpusConfig, env: NodeJS.ProcessEnv): boolean {
  return config.environment.install && env.NNBLOCKS_OFFLINE !== '1';
}

/**
 * Resolves the validation environment for `config` over the fetched `snapshots` (their declared requirements).
 * Creates what is missing (minutes, once per machine); a later run finds it by its stamp in milliseconds.
 */
export async function resolveEnvironment(
  config: CorpusConfig,
  snapshots: SourceSnapshot[],
  ctx: Pick<StageContext, 'log'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const named = config.python !== undefined || Boolean(env.NNBLOCKS_PYTHON);
  const home = environmentHome(env);
  const got = named
    ? namedBase(config, env)
    : await ensureManagedBase({ ...config.environment, install: mayInstall(config, env) }, home, ctx.log);
  if (!got.ok)
    return {
      ok: false,
      diagnostics: [
        { code: 'environment-unavailable', severity: 'error', stage, message: got.message, hint: got.hint },
      ],
    };
  const base: BaseEnvironment = got.base;
  const { entries } = collectRequirements(config, snapshots, installedDistributions(base.sites));
  const diagnostics: Diagnostic[] = [];
  let layer = null;
  let missing: { name: string; spec: string; from: string[]; reason: string }[] = [];
  if (entries.length > 0) {
    const made = await ensureLayer(base, entries, home, { install: mayInstall(config, env), log: ctx.log, env });
    if (!made.ok) {
      diagnostics.push({
        code: 'environment-layer-failed',
        severity: 'error',
        stage,
        message: made.message,
        hint: made.hint,
      });
      missing = entries.map((e) => ({ name: e.name, spec: e.specs.join('; '), from: e.from, reason: made.message }));
    } else {
      layer = made.layer;
      missing = made.missing;
    }
  }
  for (const m of missing)
    diagnostics.push({
      code: 'requirement-missing',
      severity: 'warning',
      stage,
      message: `${m.name} (${m.spec}), asked for by ${m.from.join(', ')}, is not installed: ${m.reason}`,
      hint: 'blocks that import it are `blocked`; fix the network or the requirement, or drop it (requirements.drop)',
    });
  const sites = layer ? [layer.site, ...base.sites] : base.sites;
  const installed = installedDistributions(sites);
  const digest = installedDigest(installed);
  const version = new Map(installed.map((d) => [d.name, d.version]));
  const lost = new Set(missing.map((m) => m.name));
  const report = {
    kind: base.managed ? ('managed' as const) : ('named' as const),
    python: base.facts.version,
    torch: base.torch.torch,
    torchvision: base.torch.torchvision ?? version.get('torchvision') ?? null,
    cuda: base.torch.cuda,
    packages: installed.length,
    digest,
    requirements: entries
      .filter((e) => !lost.has(e.name))
      .map((e) => ({ name: e.name, version: version.get(e.name) ?? null, from: e.from })),
    missing,
  };
  const key = createHash('sha256')
    .update(JSON.stringify({ python: report.python, torch: report.torch, cuda: report.cuda, digest }))
    .digest('hex');
  return {
    ok: true,
    diagnostics,
    environment: {
      python: layer ? layer.python : base.python,
      // Under a layer, the base's folders (a managed base is a venv outside /usr) must be visible too.
      roots: layer
        ? outermost([base.facts.prefix, ...base.sites, ...base.roots]).filter((p) => !underUsr(p))
        : base.roots,
      runtime: base.sites,
      sites: layer ? [...base.sites, layer.site] : base.sites,
      host: layer ? { path: layer.python, sites: [...base.sites, layer.site] } : { path: base.python },
      key,
      report,
    },
  };
}
