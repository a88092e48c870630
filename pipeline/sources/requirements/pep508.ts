// PEP 508 dependency specifiers (`numpy[extra] >=1.20, <2 ; python_version < "3.12"`): read by hand, as
// packaging's grammar does, so a malformed string becomes a message for a diagnostic, never an exception. Names are
// normalised per PEP 503 (`PyYAML` → `pyyaml`, `ruamel.yaml` → `ruamel-yaml`).
import { parseMarker, type Marker } from './markers.ts';
import { SPEC_OPS, validSpecVersion, type SpecOp } from './pep440.ts';

export interface ParsedRequirement {
  /** The name as written. */
  rawName: string;
  /** PEP 503: lower case, runs of `-`, `_`, `.` as one `-`. */
  name: string;
  extras: string[];
  /** The version specifiers, normalised: `>=1.20,<2` (declared order, no spaces); '' when none. */
  specifier: string;
  /** `name @ url`: a direct reference, not installable from an index. */
  url?: string;
  /** The marker's text as written (trimmed), and parsed. */
  markerText?: string;
  marker?: Marker;
}

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?/;

/** PEP 503 normalisation of a distribution name. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** Parses one requirement string; a message saying what is wrong when it is not PEP 508. */
export function parseRequirement(text: string): ParsedRequirement | string {
  let rest = text.trim();
  const name = NAME.exec(rest);
  if (!name) return `a requirement starts with a distribution name, not ${JSON.stringify(rest.slice(0, 20))}`;
  rest = rest.slice(name[0].length).trimStart();
  const req: ParsedRequirement = { rawName: name[0], name: normalizeName(name[0]), extras: [], specifier: '' };

  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return 'extras are not closed with `]`';
    const inside = rest.slice(1, close).trim();
    for (const extra of inside ? inside.split(',').map((e) => e.trim()) : []) {
      if (!NAME.test(extra) || NAME.exec(extra)![0] !== extra) return `bad extra name ${JSON.stringify(extra)}`;
      req.extras.push(normalizeName(extra));
    }
    rest = rest.slice(close + 1).trimStart();
  }

  if (rest.startsWith('@')) {
    // `name @ url ; marker`: the marker needs whitespace before its `;`, since a URL may hold a `;`.
    const m = /^@\s*(\S+)(?:\s+;\s*([\s\S]*))?$/.exec(rest);
    if (!m) return 'a direct reference `@` needs a URL';
    req.url = m[1];
    rest = m[2] !== undefined ? ';' + m[2] : '';
  } else {
    const semi = rest.indexOf(';');
    const spec = (semi < 0 ? rest : rest.slice(0, semi)).trim();
    rest = semi < 0 ? '' : rest.slice(semi);
    const specifier = parseSpecifiers(spec);
    if (typeof specifier === 'string') return specifier;
    req.specifier = specifier.join(',');
  }

  if (rest.startsWith(';')) {
    const markerText = rest.slice(1).trim();
    if (!markerText) return 'an empty marker after `;`';
    const marker = parseMarker(markerText);
    if (typeof marker === 'string') return marker;
    req.markerText = markerText;
    req.marker = marker;
  } else if (rest.trim()) return `unexpected ${JSON.stringify(rest.trim().slice(0, 20))} after the requirement`;
  return req;
}

/**
 * `>=1.20, <2` or `(>=1.20,<2)` → ['>=1.20', '<2']; [] for an empty string; a message when a clause is not
 * `operator version` with a version the operator accepts.
 */
function parseSpecifiers(text: string): string[] | string {
  let s = text.trim();
  if (s.startsWith('(')) {
    if (!s.endsWith(')')) return 'version specifiers opened with `(` are not closed';
    s = s.slice(1, -1).trim();
  }
  if (!s) return [];
  const out: string[] = [];
  for (const clause of s.split(',')) {
    const c = clause.trim();
    const op = SPEC_OPS.find((o) => c.startsWith(o));
    if (!op) return `expected a version operator (==, >=, ~=...), found ${JSON.stringify(c.slice(0, 20))}`;
    const version = c.slice(op.length).trim();
    if (!version || !validSpecVersion(op as SpecOp, version))
      return `${JSON.stringify(version)} is not a version ${op} accepts`;
    out.push(op + version);
  }
  return out;
}
