// Corpus config types: the JSON file as written (`CorpusConfigFile`) and the resolved form every stage reads.
import type { InputSpec } from '../contract/inputs.ts';
import type { Device } from './device.ts';

export type SourceKind = 'git' | 'python' | 'path';
export type Priority = 1 | 2;

/** Fields every source kind accepts. */
export interface SourceCommonFile {
  /** Slug naming the source everywhere (block ids, cache folder): lowercase letters, digits, `-`, `_`. */
  id: string;
  /**
   * The discovery scope: globs over paths relative to the source root whose classes become blocks; default
   * `["**\/*.py"]`. Resolution sees every Python file under the import root whatever the globs say.
   */
  include?: string[];
  /** Globs removed from the discovery scope (resolution still sees those files). */
  exclude?: string[];
  /**
   * OpenMMLab-style config files read as usage (never blocks): their `dict(type='X', ...)` are configurations of
   * registered class X (docs/config.md, "configs"); default `["configs/**\/*.py"]`, `[]` reads none.
   */
  configs?: string[];
  /** Glob-like patterns over block names, qualified names or ids: only matching blocks enter the catalog. */
  symbols?: string[];
  /** Changes to the requirements the source declares, which the validation environment installs. */
  requirements?: RequirementsChange;
  /** Whether blocks may inline definitions of the corpus's other sources (default true); false keeps their imports. */
  resolveAcross?: boolean;
  /** 1 = indexed first and preferred on name clashes; 2 = secondary. */
  priority?: Priority;
  /** Free-form area label shown on the site, e.g. `vision`, `detection`. */
  domain?: string;
  /** sys.path entry for the source's modules, relative to the source root; auto-detected when absent. */
  importRoot?: string;
}

export interface GitSourceFile extends SourceCommonFile {
  kind: 'git';
  url: string;
  /** The public https URL `url` mirrors; provenance and citations use it. */
  repository?: string;
  /** Branch, tag or 40-hex commit. */
  ref: string;
}

export interface PythonSourceFile extends SourceCommonFile {
  kind: 'python';
  /** Installed distribution name as pip knows it, e.g. `torchvision`. */
  distribution: string;
  /**
   * The upstream release's date (`2022-12`, `2022-12-15` or `2022`): an installed distribution records none, and a
   * citation needs a year. Stated by whoever writes the config, from the project's release page.
   */
  releaseDate?: string;
}

export interface PathSourceFile extends SourceCommonFile {
  kind: 'path';
  /** Folder, relative to the project root or absolute. */
  path: string;
  /** The public https URL the folder is a checkout of; default: its git origin remote when that is a forge URL. */
  repository?: string;
}

export type SourceFile = GitSourceFile | PythonSourceFile | PathSourceFile;

export interface RequirementsChange {
  /** Extra PEP 508 requirements. */
  add?: string[];
  /** Distribution names not installed although declared. */
  drop?: string[];
}

/** The managed validation environment (docs/config.md, "environment"). */
export interface EnvironmentConfigFile {
  /** torch version (`2.14.1`) or specifier (`>=2.1`). */
  torch?: string;
  /** torchvision version or specifier; false leaves it out. */
  torchvision?: string | false;
  /** Interpreter the environment is created from. */
  python?: string;
  /** Extra PEP 508 requirements for every source. */
  requirements?: string[];
  /** false: never run pip (offline). */
  install?: boolean;
}

/** Per-block recipe overrides from the config: used instead of the inferred candidates. */
export interface ValidateOverride {
  kwargs?: Record<string, unknown>;
  /** Names of kwargs holding dotted names to resolve before building (`"norm_layer": "torch.nn.BatchNorm2d"`). */
  refs?: string[];
  inputs?: InputSpec[];
}

export interface ValidateConfig {
  /** Where blocks run (default `auto`); `--device` overrides it. */
  device?: Device;
  /** Each block's time budget, wall clock: all its candidates, canonical counts and fidelity (default 60 s). */
  blockBudgetMs?: number;
  /** The run's time budget, wall clock (default 90 minutes): past it, the blocks left are skipped. */
  runBudgetMs?: number;
  /** Older name of blockBudgetMs. */
  timeoutMs?: number;
  memoryBytes?: number;
  /** Size of each block's private /tmp in the sandbox, bytes (default 256 MiB). */
  tmpBytes?: number;
  workers?: number;
  /** Keyed by block id or block name. */
  overrides?: Record<string, ValidateOverride>;
}

export interface DedupConfig {
  lexicalThreshold?: number;
  structuralThreshold?: number;
  seed?: number;
}

export interface SiteConfig {
  /** Base path the site is served under, e.g. `/nnblocks/`. */
  base?: string;
  /** Absolute site URL, e.g. `https://example.org`. */
  url?: string;
}

/** The config file as written by people. */
export interface CorpusConfigFile {
  $schema?: string;
  name: string;
  python?: string;
  cacheDir?: string;
  maxFileBytes?: number;
  sources: SourceFile[];
  environment?: EnvironmentConfigFile;
  validate?: ValidateConfig;
  dedup?: DedupConfig;
  site?: SiteConfig;
}

interface ResolvedCommon {
  id: string;
  include: string[];
  exclude: string[];
  /** Config files read as usage (default `["configs/**\/*.py"]`). */
  configs: string[];
  symbols: string[];
  /** False: this source's blocks keep imports of other sources instead of inlining their definitions. */
  resolveAcross: boolean;
  priority: Priority;
  domain?: string;
  /** Still relative to the source root (a git or python root is only known after fetching). */
  importRoot?: string;
  requirements: { add: string[]; drop: string[] };
}

export interface GitSource extends ResolvedCommon {
  kind: 'git';
  url: string;
  repository?: string;
  ref: string;
}
export interface PythonSource extends ResolvedCommon {
  kind: 'python';
  distribution: string;
  releaseDate?: string;
}
export interface PathSource extends ResolvedCommon {
  kind: 'path';
  /** Absolute folder. */
  path: string;
  repository?: string;
}
export type SourceConfig = GitSource | PythonSource | PathSource;

/** The resolved config: defaults filled, paths absolute. */
export interface CorpusConfig {
  name: string;
  /** Absolute path of the config file. */
  configPath: string;
  /** Folder relative paths are resolved against: the parent of `content/` when the config lives there, else the config's folder. */
  projectRoot: string;
  /** Interpreter path (absolute when it contained a slash) or command name; undefined → discovery. */
  python?: string;
  /** Absolute; default `<projectRoot>/.nnblocks`. */
  cacheDir: string;
  /** Default 1 MiB. */
  maxFileBytes: number;
  sources: SourceConfig[];
  /** The managed validation environment, defaults filled (pipeline/environment/). */
  environment: EnvironmentConfig;
  validate?: ValidateConfig;
  dedup?: DedupConfig;
  site?: SiteConfig;
}

export interface EnvironmentConfig {
  /** pip requirement for torch, e.g. `torch==2.14.1`. */
  torch: string;
  /** pip requirement for torchvision, or null to leave it out. */
  torchvision: string | null;
  /** Interpreter to create the environment from (absolute when it contained a slash); undefined → discovery. */
  python?: string;
  requirements: string[];
  install: boolean;
}

/**
 * The runtime a config gets when it names none: today's PyTorch from pip (the wheels' CPU path works on any
 * machine; CUDA is used where a GPU is present). Pinned, so a catalog is reproducible whatever PyPI serves later.
 */
export const DEFAULT_TORCH = '2.14.1';
export const DEFAULT_TORCHVISION = '0.29.1';

export const DEFAULT_CACHE_DIR = '.nnblocks';
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
export const DEFAULT_INCLUDE = ['**/*.py'];
/** OpenMMLab's layout: a repository's config files in `configs/` at its root. */
export const DEFAULT_CONFIGS = ['configs/**/*.py'];
