// Loads content/corpus.json: parse, validate (schema + semantic checks), then resolve defaults and absolute paths.
//
// Project root: when the config file sits in a folder named `content`, the project root is that folder's parent
// (so `content/corpus.json` and `content/corpus.paper.json` share `<repo>/.nnblocks`); otherwise it is the
// config file's own folder. `cacheDir`, `path` sources and a `python` containing a slash resolve against it.
// See docs/config.md.
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { NnblocksError } from '../contract/diagnostics.ts';
import {
  DEFAULT_CACHE_DIR,
  DEFAULT_CONFIGS,
  DEFAULT_INCLUDE,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_TORCH,
  DEFAULT_TORCHVISION,
  type CorpusConfig,
  type CorpusConfigFile,
  type EnvironmentConfig,
  type EnvironmentConfigFile,
  type SourceConfig,
} from './types.ts';
import { validateConfig, type ConfigProblem } from './validate.ts';

export type { ConfigProblem } from './validate.ts';

/** A config that cannot be used; lists every problem, each with its field path and fix. */
export class ConfigError extends NnblocksError {
  constructor(
    readonly configPath: string,
    readonly problems: ConfigProblem[],
  ) {
    const n = problems.length;
    const lines = problems.map((p) => `  ${p.path}: ${p.message}\n    fix: ${p.fix}`);
    super(
      `${configPath} has ${n} problem${n === 1 ? '' : 's'}:\n${lines.join('\n')}`,
      'config',
      'the schema with a description of every field is content/corpus.schema.json',
    );
    this.name = 'ConfigError';
  }
}

export function projectRootFor(configPath: string): string {
  const dir = dirname(resolve(configPath));
  return basename(dir) === 'content' ? dirname(dir) : dir;
}

/** Line and column of a JSON.parse failure, when the engine reports a position. */
function jsonErrorAt(text: string, err: Error): string {
  const m = /position (\d+)/.exec(err.message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

export function loadConfig(path: string): CorpusConfig {
  const configPath = resolve(path);
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (err) {
    throw new ConfigError(configPath, [
      {
        path: '(file)',
        message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        fix: 'pass an existing config with --config, e.g. content/corpus.json',
      },
    ]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(configPath, [
      {
        path: '(file)',
        message: `is not valid JSON${jsonErrorAt(text, err as Error)}: ${(err as Error).message}`,
        fix: 'fix the JSON syntax (no trailing commas or comments)',
      },
    ]);
  }
  return resolveConfig(data, configPath);
}

/** Validates already-parsed config data as if it had been read from `configPath`. */
export function resolveConfig(data: unknown, configPath: string): CorpusConfig {
  const projectRoot = projectRootFor(configPath);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(projectRoot, p));
  const problems = validateConfig(data, projectRoot, abs);
  if (problems.length) throw new ConfigError(configPath, problems);
  const file = data as CorpusConfigFile;
  const sources = file.sources.map((s): SourceConfig => {
    const common = {
      id: s.id,
      include: s.include ?? [...DEFAULT_INCLUDE],
      exclude: s.exclude ?? [],
      configs: s.configs ?? [...DEFAULT_CONFIGS],
      symbols: s.symbols ?? [],
      resolveAcross: s.resolveAcross ?? true,
      priority: s.priority ?? 1,
      ...(s.domain !== undefined ? { domain: s.domain } : {}),
      ...(s.importRoot !== undefined ? { importRoot: s.importRoot.replace(/\/+$/, '') } : {}),
      requirements: { add: s.requirements?.add ?? [], drop: s.requirements?.drop ?? [] },
    };
    if (s.kind === 'git')
      return { ...common, kind: 'git', url: s.url, ref: s.ref, ...(s.repository ? { repository: s.repository } : {}) };
    if (s.kind === 'python')
      return {
        ...common,
        kind: 'python',
        distribution: s.distribution,
        ...(s.releaseDate !== undefined ? { releaseDate: s.releaseDate } : {}),
      };
    return { ...common, kind: 'path', path: abs(s.path), ...(s.repository ? { repository: s.repository } : {}) };
  });
  return {
    name: file.name,
    configPath,
    projectRoot,
    ...(file.python !== undefined ? { python: file.python.includes('/') ? abs(file.python) : file.python } : {}),
    cacheDir: abs(file.cacheDir ?? DEFAULT_CACHE_DIR),
    maxFileBytes: file.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    sources,
    environment: environmentOf(file.environment ?? {}, abs),
    ...(file.validate ? { validate: file.validate } : {}),
    ...(file.dedup ? { dedup: file.dedup } : {}),
    ...(file.site ? { site: file.site } : {}),
  };
}

/** `2.14.1` → `torch==2.14.1`; a specifier (`>=2.1`) is kept as written. */
function pin(name: string, version: string): string {
  return /^[<>=!~]/.test(version.trim()) ? `${name}${version.trim()}` : `${name}==${version.trim()}`;
}

/** The managed environment a config without `environment` gets (tests and `doctor` look for it). */
export function defaultEnvironmentConfig(): EnvironmentConfig {
  return environmentOf({}, (p) => p);
}

function environmentOf(env: EnvironmentConfigFile, abs: (p: string) => string): EnvironmentConfig {
  const torch = env.torch ?? DEFAULT_TORCH;
  // The default torchvision matches the default torch; with another torch, pip picks the torchvision that fits it.
  const torchvision =
    env.torchvision === false
      ? null
      : typeof env.torchvision === 'string'
        ? pin('torchvision', env.torchvision)
        : env.torch === undefined || env.torch === DEFAULT_TORCH
          ? pin('torchvision', DEFAULT_TORCHVISION)
          : 'torchvision';
  return {
    torch: pin('torch', torch),
    torchvision,
    ...(env.python !== undefined ? { python: env.python.includes('/') ? abs(env.python) : env.python } : {}),
    requirements: env.requirements ?? [],
    install: env.install ?? true,
  };
}
