// PEP 508 environment markers (`; python_version < "3.8" and sys_platform != "win32"`): parsed, then evaluated for
// the one environment nnblocks installs into — Linux x86_64, CPython, a given Python version. Evaluation is
// three-valued: a variable we cannot know (`platform_release`, the kernel's) makes a comparison `unknown`, and
// `unknown and false` is still false, so a requirement is dropped only when its marker is false whatever we do
// not know.
import { satisfies, SPEC_OPS, type SpecOp } from './pep440.ts';

export type Truth = true | false | 'unknown';

type MarkerOp = SpecOp | 'in' | 'not in';
type Operand = { variable: string } | { literal: string };
export type Marker =
  | { kind: 'compare'; left: Operand; op: MarkerOp; right: Operand }
  | { kind: 'and' | 'or'; left: Marker; right: Marker };

/**
 * Marker variables, with the legacy spellings packaging still accepts mapped to their PEP 508 names
 * (`os.name`, `sys.platform`, `platform.machine`, `python_implementation`).
 */
const VARIABLES: Record<string, string> = {
  python_version: 'python_version',
  python_full_version: 'python_full_version',
  os_name: 'os_name',
  'os.name': 'os_name',
  sys_platform: 'sys_platform',
  'sys.platform': 'sys_platform',
  platform_release: 'platform_release',
  platform_system: 'platform_system',
  platform_version: 'platform_version',
  'platform.version': 'platform_version',
  platform_machine: 'platform_machine',
  'platform.machine': 'platform_machine',
  platform_python_implementation: 'platform_python_implementation',
  'platform.python_implementation': 'platform_python_implementation',
  python_implementation: 'platform_python_implementation',
  implementation_name: 'implementation_name',
  implementation_version: 'implementation_version',
  extra: 'extra',
};

const TOKEN = new RegExp(
  [
    String.raw`\s+`,
    String.raw`\(|\)`,
    String.raw`'[^']*'|"[^"]*"`,
    SPEC_OPS.map((o) => o.replace(/[<>=!~]/g, (c) => '\\' + c)).join('|'),
    String.raw`not\s+in\b|in\b|and\b|or\b`,
    String.raw`[A-Za-z_][A-Za-z0-9_.]*`,
  ].join('|'),
  'y',
);

/** Parses a marker's text; a string saying what is wrong when it is not a marker. */
export function parseMarker(text: string): Marker | string {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) return `unexpected ${JSON.stringify(text.slice(at, at + 10))} in marker`;
    if (m[0].trim()) tokens.push(m[0].replace(/^not\s+in$/, 'not in'));
  }
  let i = 0;
  const orExpr = (): Marker | string => {
    let left = andExpr();
    while (typeof left !== 'string' && tokens[i] === 'or') {
      i++;
      const right = andExpr();
      if (typeof right === 'string') return right;
      left = { kind: 'or', left, right };
    }
    return left;
  };
  const andExpr = (): Marker | string => {
    let left = atom();
    while (typeof left !== 'string' && tokens[i] === 'and') {
      i++;
      const right = atom();
      if (typeof right === 'string') return right;
      left = { kind: 'and', left, right };
    }
    return left;
  };
  const operand = (): Operand | string => {
    const t = tokens[i++];
    if (t === undefined) return 'marker ends early';
    if (t[0] === '"' || t[0] === "'") return { literal: t.slice(1, -1) };
    if (t in VARIABLES) return { variable: VARIABLES[t] };
    return `unknown marker variable ${JSON.stringify(t)}`;
  };
  const atom = (): Marker | string => {
    if (tokens[i] === '(') {
      i++;
      const inner = orExpr();
      if (typeof inner === 'string') return inner;
      if (tokens[i++] !== ')') return 'unbalanced parenthesis in marker';
      return inner;
    }
    const left = operand();
    if (typeof left === 'string') return left;
    const op = tokens[i++];
    if (!op || !(SPEC_OPS.includes(op as SpecOp) || op === 'in' || op === 'not in'))
      return `expected a comparison operator in marker, found ${JSON.stringify(op ?? 'the end')}`;
    const right = operand();
    if (typeof right === 'string') return right;
    return { kind: 'compare', left, op: op as MarkerOp, right };
  };
  const marker = orExpr();
  if (typeof marker !== 'string' && i < tokens.length) return `unexpected ${JSON.stringify(tokens[i])} in marker`;
  return marker;
}

/** A marker environment; a variable left out is unknown. */
export type MarkerEnvironment = Partial<Record<string, string>>;

/**
 * The environment nnblocks installs requirements into: Linux on x86_64, CPython `python` (`3.11`, or `3.11.4`).
 * Given only major.minor, `python_full_version` stays a range (see evaluateMarker); `platform_release` and
 * `platform_version` (the kernel's) are unknown. `extra` is empty: no extras are asked for, so `extra == "test"`
 * is false, as when pip installs the bare distribution.
 */
export function linuxEnvironment(python = '3.11'): MarkerEnvironment {
  const parts = python.split('.');
  const env: MarkerEnvironment = {
    python_version: parts.slice(0, 2).join('.'),
    os_name: 'posix',
    sys_platform: 'linux',
    platform_system: 'Linux',
    platform_machine: 'x86_64',
    platform_python_implementation: 'CPython',
    implementation_name: 'cpython',
    extra: '',
  };
  if (parts.length >= 3) env.python_full_version = env.implementation_version = python;
  return env;
}

/** Kleene logic: false wins an `and`, true wins an `or`, otherwise unknown stays unknown. */
export function evaluateMarker(marker: Marker, env: MarkerEnvironment): Truth {
  if (marker.kind !== 'compare') {
    const decisive = marker.kind === 'or'; // true decides an `or`, false an `and`
    const a = evaluateMarker(marker.left, env);
    if (a === decisive) return decisive;
    const b = evaluateMarker(marker.right, env);
    if (b === decisive) return decisive;
    return a === 'unknown' || b === 'unknown' ? 'unknown' : !decisive;
  }
  const left = valueOf(marker.left, env);
  const right = valueOf(marker.right, env);
  const fullVersion = (o: Operand) => 'variable' in o && /^(python_full|implementation)_version$/.test(o.variable);
  if (left === undefined || right === undefined) {
    // `python_full_version >= "3.6.2"` with only `3.11` known: true for every 3.11.x, so decided. Compare at both
    // ends of the release's patch range; the same answer at both is the answer (not for ==, which may hit between).
    const range = env.python_version;
    if (!range || !(fullVersion(marker.left) || fullVersion(marker.right)) || (left ?? right) === undefined)
      return 'unknown';
    const at = (patch: string) =>
      compare(left ?? `${range}.${patch}`, marker.op, right ?? `${range}.${patch}`, marker.left, marker.right);
    const lo = at('0');
    const hi = at('999999');
    return lo === hi && lo !== 'unknown' && !/^(==|!=|===|~=)$/.test(marker.op) ? lo : 'unknown';
  }
  return compare(left, marker.op, right, marker.left, marker.right);
}

function valueOf(o: Operand, env: MarkerEnvironment): string | undefined {
  return 'literal' in o ? o.literal : env[o.variable];
}

/**
 * packaging's `_eval_op`: a version comparison when the right side makes a valid specifier and the left a version,
 * else Python's own operator on the strings (`in` is a substring test). `extra` names compare PEP 503-normalised.
 */
function compare(lhs: string, op: MarkerOp, rhs: string, left: Operand, right: Operand): Truth {
  if (('variable' in left && left.variable === 'extra') || ('variable' in right && right.variable === 'extra')) {
    const norm = (s: string) => s.toLowerCase().replace(/[-_.]+/g, '-');
    lhs = norm(lhs);
    rhs = norm(rhs);
  }
  if (op === 'in') return rhs.includes(lhs);
  if (op === 'not in') return !rhs.includes(lhs);
  const asVersions = satisfies(lhs, op, rhs);
  if (asVersions !== undefined) return asVersions;
  switch (op) {
    case '==':
    case '===':
      return lhs === rhs;
    case '!=':
      return lhs !== rhs;
    case '<':
      return lhs < rhs;
    case '<=':
      return lhs <= rhs;
    case '>':
      return lhs > rhs;
    case '>=':
      return lhs >= rhs;
    default:
      return 'unknown'; // `~=` between strings that are no versions: packaging raises, we cannot decide
  }
}
