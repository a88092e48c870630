// PEP 440 versions, as far as reading declared requirements needs them: is a specifier's version well formed, and
// how do two versions compare (environment markers: `python_version < "3.8"`). Local versions (`+cu118`) are
// accepted and ignored in comparisons, as a specifier does.

/** packaging's VERSION_PATTERN (PEP 440, appendix B), whole string, case-insensitive. */
const VERSION = new RegExp(
  String.raw`^\s*v?(?:(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)` +
    String.raw`([-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?` +
    String.raw`((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?` +
    String.raw`([-_.]?(dev)[-_.]?([0-9]+)?)?)` +
    String.raw`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`,
  'i',
);

/** A parsed version: enough to order it. */
export interface Version {
  epoch: number;
  release: number[];
  /** [rank, n]: a=0, b=1, rc=2; absent for a final release. */
  pre?: [number, number];
  post?: number;
  dev?: number;
  local?: string;
}

const PRE_RANK: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

export function parseVersion(text: string): Version | undefined {
  const m = VERSION.exec(text);
  if (!m) return undefined;
  const v: Version = { epoch: Number(m[1] ?? 0), release: m[2].split('.').map(Number) };
  if (m[3]) v.pre = [PRE_RANK[m[4].toLowerCase()], Number(m[5] ?? 0)];
  if (m[6]) v.post = Number(m[7] ?? m[9] ?? 0);
  if (m[10]) v.dev = Number(m[12] ?? 0);
  if (m[13]) v.local = m[13];
  return v;
}

/**
 * Orders two versions (PEP 440 "summary of permitted suffixes and relative ordering"): `1.0.dev0 < 1.0a1 < 1.0 <
 * 1.0.post1`; trailing zeros of the release do not count (`3.8 == 3.8.0`). Local labels are ignored.
 */
export function compareVersions(a: Version, b: Version): number {
  if (a.epoch !== b.epoch) return a.epoch - b.epoch;
  const n = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < n; i++) {
    const d = (a.release[i] ?? 0) - (b.release[i] ?? 0);
    if (d) return d;
  }
  const ka = suffixKey(a);
  const kb = suffixKey(b);
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
  return 0;
}

/** [pre rank, pre n, post, dev] with the infinities PEP 440 orders by (a dev-only release sorts before its pre). */
function suffixKey(v: Version): number[] {
  const pre =
    v.pre ?? (v.post === undefined && v.dev !== undefined ? [-Infinity, 0] : ([Infinity, 0] as [number, number]));
  return [pre[0], pre[1], v.post ?? -Infinity, v.dev ?? Infinity];
}

/** The comparison operators of a version specifier, longest first (so `===` is not read as `==`). */
export const SPEC_OPS = ['===', '~=', '==', '!=', '<=', '>=', '<', '>'] as const;
export type SpecOp = (typeof SPEC_OPS)[number];

/**
 * Whether `version` may follow `op` in a specifier (packaging's rules): `==`/`!=` may end in `.*` (a release
 * prefix only, no local label); `~=` needs two release segments and no local label; the ordering operators take no
 * local label and no `.*`; `===` takes any string without whitespace.
 */
export function validSpecVersion(op: SpecOp, version: string): boolean {
  if (op === '===') return /^[^\s;,)]+$/.test(version);
  if ((op === '==' || op === '!=') && version.endsWith('.*')) {
    const v = parseVersion(version.slice(0, -2));
    return !!v && v.local === undefined && !version.includes('+');
  }
  const v = parseVersion(version);
  if (!v) return false;
  if (op === '~=') return v.release.length >= 2 && v.local === undefined;
  if (op !== '==' && op !== '!=') return v.local === undefined;
  return true;
}

/**
 * Whether `candidate` satisfies `op version` (for markers: packaging builds `Specifier(op + rhs)` and asks whether it
 * contains the left side). undefined when either side is not a version.
 */
export function satisfies(candidate: string, op: SpecOp, version: string): boolean | undefined {
  if (op === '===') return candidate.trim().toLowerCase() === version.trim().toLowerCase();
  const c = parseVersion(candidate);
  if (!c) return undefined;
  if ((op === '==' || op === '!=') && version.endsWith('.*')) {
    const prefix = parseVersion(version.slice(0, -2));
    if (!prefix) return undefined;
    const head: Version = { epoch: c.epoch, release: c.release.slice(0, prefix.release.length) };
    while (head.release.length < prefix.release.length) head.release.push(0);
    const same = compareVersions(head, { epoch: prefix.epoch, release: prefix.release }) === 0;
    return op === '==' ? same : !same;
  }
  const v = parseVersion(version);
  if (!v) return undefined;
  const d = compareVersions(c, v);
  switch (op) {
    case '==':
      return d === 0;
    case '!=':
      return d !== 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    case '~=': {
      // ~=2.2.1 is >=2.2.1, ==2.2.*
      if (d < 0) return false;
      const prefix = v.release.slice(0, -1).join('.') + '.*';
      return satisfies(candidate, '==', prefix);
    }
  }
}
