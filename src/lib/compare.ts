// What the comparison view (/compare/?a=…&b=…) shows of two blocks, as plain rows: the interface diff, composition
// side by side, sizes, how de-duplication relates them, provenance. Pure functions over two BlockSpecs, shared by the
// browser script (src/scripts/compare.ts, which renders the rows with textContent only) and the tests.
export { safeHref } from './safe-href.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { ParamSpec } from '../../pipeline/contract/common.ts';
import { SLUG_PATTERN } from '../../pipeline/contract/rules.ts';

const SLUG = new RegExp(SLUG_PATTERN);

/** A slug from the query string, or null: only a slug may become part of a fetched URL or a link. */
export function checkedSlug(v: string | null): string | null {
  return v !== null && SLUG.test(v) ? v : null;
}

/** One row of the side-by-side tables: a label and each block's value (null: the block has none). */
export interface Row {
  label: string;
  a: string | null;
  b: string | null;
  /** The values differ (a missing one counts as different). */
  differs: boolean;
}

const row = (label: string, a: string | null, b: string | null): Row => ({ label, a, b, differs: a !== b });

/** `kind`, annotation and default of a parameter as one line: `int = 8`, `*args`, `(keyword-only) bool = True`. */
export function paramText(p: ParamSpec): string {
  const star = p.kind === 'var-positional' ? '*' : p.kind === 'var-keyword' ? '**' : '';
  const ann = p.annotation ? `: ${p.annotation}` : '';
  const def = p.default !== undefined ? ` = ${p.default}` : '';
  const kw = p.kind === 'keyword-only' ? ' (keyword-only)' : p.kind === 'positional-only' ? ' (positional-only)' : '';
  return `${star}${p.name}${ann}${def}${kw}`;
}

/**
 * What a parameter means, for telling two apart: its kind, annotation and default by value when the default is a
 * literal (`0.` and `0.0`, `1e-5` and `0.00001` are one number), else by its text.
 */
function paramMeaning(p: ParamSpec): string {
  const def =
    p.defaultLiteral !== undefined
      ? `=${JSON.stringify(p.defaultLiteral)}`
      : p.default !== undefined
        ? `~${p.default}`
        : '';
  return `${p.kind}|${p.annotation ?? ''}|${def}`;
}

/**
 * Constructor parameters by name: A's order first, then B's own; a parameter one lacks shows null there. Each side
 * shows the parameter as its source writes it; they differ when they mean different things (paramMeaning).
 */
export function interfaceRows(a: BlockSpec, b: BlockSpec): Row[] {
  const byName = (s: BlockSpec) => new Map(s.interface.constructorParams.map((p) => [p.name, p]));
  const ma = byName(a);
  const mb = byName(b);
  const names = [...new Set([...ma.keys(), ...mb.keys()])];
  return names.map((n) => {
    const pa = ma.get(n);
    const pb = mb.get(n);
    return {
      ...row(n, pa ? paramText(pa) : null, pb ? paramText(pb) : null),
      differs: !pa || !pb || paramMeaning(pa) !== paramMeaning(pb),
    };
  });
}

/** Layer types and counts, union sorted by type. */
export function compositionRows(a: BlockSpec, b: BlockSpec): Row[] {
  const counts = (s: BlockSpec) => new Map(s.composition.layers.map((l) => [l.type, String(l.count)]));
  const ca = counts(a);
  const cb = counts(b);
  return [...new Set([...ca.keys(), ...cb.keys()])].sort().map((t) => row(t, ca.get(t) ?? null, cb.get(t) ?? null));
}

const num = (n: number | undefined) => (n === undefined ? null : n.toLocaleString('en-US'));

export function sizeRows(a: BlockSpec, b: BlockSpec): Row[] {
  const status = (s: BlockSpec) => s.validation?.status ?? 'unvalidated';
  return [
    row('Status', status(a), status(b)),
    row('Parameters (test configuration)', num(a.validation?.params), num(b.validation?.params)),
    row('Buffers', num(a.validation?.buffers), num(b.validation?.buffers)),
    row('Layer types', String(a.composition.layers.length), String(b.composition.layers.length)),
    row(
      'Forward',
      a.interface.forward ? a.interface.forward.params.map((p) => p.name).join(', ') || '()' : null,
      b.interface.forward ? b.interface.forward.params.map((p) => p.name).join(', ') || '()' : null,
    ),
  ];
}

/** How de-duplication relates the two: similarity either way, and the clusters they share at each level. */
export function similarity(a: BlockSpec, b: BlockSpec): { score: number | null; shared: string[] } {
  const ab = a.dedup?.nearest.find((n) => n.id === b.id)?.similarity;
  const ba = b.dedup?.nearest.find((n) => n.id === a.id)?.similarity;
  const score = ab ?? ba ?? null;
  const shared: string[] = [];
  if (a.id === b.id) return { score: 1, shared: ['same block'] };
  const da = a.dedup;
  const db = b.dedup;
  if (da && db) {
    // A representative's own field is null: its cluster id is its id, which is what members point at.
    const group = (
      d: NonNullable<BlockSpec['dedup']>,
      s: BlockSpec,
      k: 'exactGroup' | 'lexicalCluster' | 'structuralCluster',
    ) => d[k] ?? s.id;
    if (group(da, a, 'exactGroup') === group(db, b, 'exactGroup')) shared.push('exact copy');
    if (group(da, a, 'lexicalCluster') === group(db, b, 'lexicalCluster')) shared.push('lexical cluster');
    if (group(da, a, 'structuralCluster') === group(db, b, 'structuralCluster')) shared.push('structural cluster');
    if (da.archHash && da.archHash === db.archHash) shared.push('architecture');
  }
  return { score, shared };
}

export function provenanceRows(a: BlockSpec, b: BlockSpec): Row[] {
  const pin = (s: BlockSpec) =>
    s.provenance.commit ??
    (s.provenance.release
      ? `${s.provenance.release.distribution} ${s.provenance.release.version}${s.provenance.release.tag ? ` (tag ${s.provenance.release.tag})` : ''}`
      : null);
  const lines = (s: BlockSpec) => `${s.provenance.path}:${s.provenance.lines[0]}-${s.provenance.lines[1]}`;
  return [
    row('Source', a.sourceId, b.sourceId),
    row('Repository', a.provenance.repository, b.provenance.repository),
    row('Commit or release', pin(a), pin(b)),
    row('File and lines', lines(a), lines(b)),
    row('License', a.provenance.license.spdx, b.provenance.license.spdx),
    row('Module', `${a.module}.${a.qualname}`, `${b.module}.${b.qualname}`),
  ];
}
