// "Use it": the install line and the plain import of a block from its upstream package, shown first on a block page.
// Same defence as replay.ts: every value that becomes shell or Python text is checked against a pattern
// first (module and class names are ASCII identifiers, not keywords; a distribution is a PEP 508 name; a version a
// PEP 440 public version; a git URL plain https without credentials; a commit 40 hex digits). A value that fails
// gives no line at all, never an escaped one; the page then says what to do in words.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { isDistributionName, isDottedModule, isKwargName, isPartPath } from '../../pipeline/contract/rules.ts';
import { installableVersion } from './instructions.ts';
import { pyLiteral, pyStr } from './py-literal.ts';

/** PEP 440 public versions in normal form (`0.14.1`, `2.0rc1`, `1.0.post2.dev3`, `1!2.0`). */
const PUBLIC_VERSION = /^([0-9]+!)?[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$/;
/** An https URL pip can fetch: host and path of URL-safe characters, no user-info, query or fragment. */
const HTTPS_REPO = /^https:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9._~-]+)+\/?$/;
const COMMIT = /^[0-9a-f]{40}$/;

export type Install =
  /** `pip install torchvision==0.14.1` */
  | { kind: 'pip'; command: string }
  /** `pip install git+https://github.com/x/y@<sha>`, and the clone commands as an alternative */
  | { kind: 'git'; command: string; clone: string }
  /**
   * A checkout pip cannot install (no setup.py, no pyproject.toml with [project] or [build-system] at its top), or
   * one not known to be installable: the clone commands only, and the page says to use the clone or the extracted
   * module.
   */
  | { kind: 'clone'; clone: string }
  /** Nothing safe to write: the page points at the repository in words. */
  | { kind: 'none' };

export interface Usage {
  install: Install;
  /** `from torchvision.ops.misc import SqueezeExcitation`, or null when a name is not a plain identifier. */
  importLine: string | null;
  /**
   * `block = SqueezeExcitation(dim=64)`: the configuration validation built, when it was plain literals; for a part,
   * the builder's import and `block = builder(...).get_submodule('path')`.
   */
  construct: string | null;
}

const isIdentifier = (s: string) => isKwargName(s);

/**
 * How to install the block's package. `installable`: the source's `installable` fact (sources.json), whether pip can
 * install the checkout; the pip line for a git source needs it true.
 */
export function installOf(spec: BlockSpec, installable?: boolean): Install {
  const p = spec.provenance;
  if (p.release) {
    const version = spec.citation.version ?? installableVersion(p.release.version);
    if (!isDistributionName(p.release.distribution) || !version || !PUBLIC_VERSION.test(version))
      return { kind: 'none' };
    return { kind: 'pip', command: `pip install ${p.release.distribution}==${version}` };
  }
  if (p.commit && COMMIT.test(p.commit) && HTTPS_REPO.test(p.repository)) {
    const url = p.repository.replace(/\/$/, '');
    const dir = url
      .split('/')
      .pop()!
      .replace(/\.git$/, '');
    const clone = `git clone ${url} && git -C ${dir} checkout ${p.commit}`;
    return installable === true
      ? { kind: 'git', command: `pip install git+${url}@${p.commit}`, clone }
      : { kind: 'clone', clone };
  }
  return { kind: 'none' };
}

/**
 * `block = Name(k=v, ...)` from a passed block's recipe, when the class built from literals alone; a part (origin
 * `part`) is taken from the model its source's builder makes, with the builder's literal kwargs.
 */
function constructLine(spec: BlockSpec, top: string, path: string): string | null {
  const r = spec.validation?.status === 'passed' ? spec.validation.recipe : undefined;
  const part = r?.origin === 'part';
  if (!r || (r.builder && !part) || r.refs?.length || r.calls?.length) return null;
  const args: string[] = [];
  for (const k of r.kwargs) {
    const value = pyLiteral(k.value);
    if (!isKwargName(k.name) || value === null) return null;
    args.push(`${k.name}=${value}`);
  }
  if (!part) return isIdentifier(top) ? `block = ${path}(${args.join(', ')})` : null;
  if (!isKwargName(r.builder) || !isDottedModule(r.builderModule) || !isPartPath(r.path)) return null;
  return [
    `from ${r.builderModule} import ${r.builder}`,
    `block = ${r.builder}(${args.join(', ')}).get_submodule(${pyStr(r.path)})  # fed what the model passes it`,
  ].join('\n');
}

export function usageOf(spec: BlockSpec, installable?: boolean): Usage {
  const parts = spec.qualname.split('.');
  const top = parts[0];
  const ok = isDottedModule(spec.module) && parts.every(isIdentifier);
  return {
    install: installOf(spec, installable),
    importLine: ok ? `from ${spec.module} import ${top}` : null,
    construct: ok ? constructLine(spec, top, parts.join('.')) : null,
  };
}
