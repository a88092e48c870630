// What a block page tells a reader to run, from the catalog's facts: the extract command with the corpus
// config the catalog was built from, the interpreter and torch to run with, the versions a requirement can be
// installed at. Like usage-snippet.ts and replay.ts, a value becomes command text only when it passes its pattern;
// one that fails gives words instead of a line.
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import { shellQuote } from './format.ts';

/** A config as build-info.json records it: a relative posix path to a `.json` file, no `..`, no odd characters. */
const CONFIG_PATH = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\.json$/;

/** The config recorded in build-info.json when it is a safe relative path; undefined otherwise (or unrecorded). */
export function configOf(info: BuildInfo | undefined): string | undefined {
  const c = info?.config;
  return typeof c === 'string' && CONFIG_PATH.test(c) ? c : undefined;
}

/**
 * `nnblocks extract <id> --config <file> --out blocks`: the config is the one the catalog was built from, so the
 * block id matches (another corpus answers "no block matches"). Without a recorded config, `config` is undefined
 * and the page says which config to pass in words. A bare `nnblocks`, never `npx nnblocks`: a reader is outside
 * the nnblocks checkout, where npx would fetch whatever registry package has that name (README, "Running it").
 */
export function extractCommand(id: string, config: string | undefined): string {
  return ['nnblocks extract', shellQuote(id), ...(config ? ['--config', shellQuote(config)] : []), '--out blocks'].join(
    ' ',
  );
}

/** Python `3.11.2`, torch `2.14.1+cu130`, CUDA `13.0`: versions as interpreters print them, nothing else. */
const PYTHON_VERSION = /^[0-9]+\.[0-9]+(\.[0-9]+)?([a-z]+[0-9]*)?\+?$/;
const TORCH_VERSION = /^[0-9]+(\.[0-9]+)*[0-9A-Za-z.]*(\+[0-9A-Za-z.]+)?$/;
const CUDA_VERSION = /^[0-9]+(\.[0-9]+)*$/;

/** The interpreter and torch the blocks were validated with (build-info.json `environment`), when readable. */
export interface Runtime {
  python: string;
  torch: string;
  /** The torch release to install (`installableVersion`), null when there is none to name. */
  torchRelease: string | null;
  cuda: string | null;
}

export function runtimeOf(info: BuildInfo | undefined): Runtime | undefined {
  const e = info?.environment;
  if (!e || typeof e.python !== 'string' || typeof e.torch !== 'string') return undefined;
  if (!PYTHON_VERSION.test(e.python) || e.torch.length > 64 || !TORCH_VERSION.test(e.torch)) return undefined;
  const cuda = typeof e.cuda === 'string' && CUDA_VERSION.test(e.cuda) ? e.cuda : null;
  return { python: e.python, torch: e.torch, torchRelease: installableVersion(e.torch), cuda };
}

/** PEP 440, split: epoch, release, pre-release, post, dev, local label. */
const PEP440 =
  /^(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)(?:(a|b|rc)([0-9]+))?(?:\.post([0-9]+))?(?:\.dev([0-9]+))?(?:\+([a-z0-9]+(?:\.[a-z0-9]+)*))?$/;

/**
 * The version of a release a user can install, for the version found installed (docs/catalog.md, "Requirement
 * versions on the page"): PEP 440's public version, without the local label; and when there was a local label, the
 * build is not a release at all but a build from source (a distribution's, `1.13.0a0+gitunknown` in Debian), whose
 * pre-release and dev markers only say the tree was between releases — PyTorch's source says `1.13.0a0` until a
 * release build overrides it — so the release it names is shown: `1.13.0`. A public pre-release without a local
 * label (`2.0.0rc1`, on the index) stays. null when the text is not a PEP 440 version.
 */
export function installableVersion(version: string): string | null {
  const m = PEP440.exec(version.trim().toLowerCase());
  if (!m) return null;
  const [, epoch, release, pre, preN, post, dev, local] = m;
  const head = `${epoch ? `${epoch}!` : ''}${release}`;
  if (local) return `${head}${post ? `.post${post}` : ''}`;
  return `${head}${pre ? `${pre}${preN}` : ''}${post ? `.post${post}` : ''}${dev ? `.dev${dev}` : ''}`;
}

/** `torch==1.13.0` for a requirement found installed at `1.13.0a0+gitunknown`; the bare name when no version is. */
export function requirementText(name: string, version: string | null): string {
  const v = version === null ? null : installableVersion(version);
  return v ? `${name}==${v}` : name;
}
