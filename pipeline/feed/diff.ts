// The change feed's diff: what changed between the previous published catalog and the one just built — blocks
// new, removed, moved (same content under a new path or id) and changed (which facts), and upstream pins bumped.
// Pure and deterministic: the same two snapshots always give the same feed, in the same order.
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { ParamSpec } from '../contract/common.ts';
import type { SourceRecord } from '../contract/sources.ts';
import { paramList } from '../util/params-text.ts';
import {
  CHANGE_KINDS,
  CHANGED_FIELDS,
  CHANGES_FORMAT_VERSION,
  type BlockChange,
  type BlockRef,
  type ChangedField,
  type ChangeFeed,
  type FieldChange,
  type MoveEvidence,
  type SourceChange,
  type UpstreamPin,
} from '../contract/changes.ts';
import type { CatalogSnapshot, SnapshotBlock } from './types.ts';

/** Used when the current catalog has no build-info: the feed still needs a date, and must not invent "now". */
export const UNKNOWN_DATE = '1970-01-01T00:00:00Z';

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function blockRef(b: SnapshotBlock): BlockRef {
  const p = b.spec?.provenance;
  return { id: b.id, slug: b.slug, name: b.name, sourceId: b.sourceId, ...(p ? { path: p.path, lines: p.lines } : {}) };
}

/** A Python-like parameter list: `(dim: int, *, norm_layer=None)`; inferred roles are not part of the interface. */
export function paramsText(params: ParamSpec[]): string {
  return `(${paramList(params).join(', ')})`;
}

const NONE = '(none)';

/**
 * The comparable facts of a block as short text. A fact is absent when this snapshot does not know it (a summary
 * has no interface; a catalog built without dedup has no clusters), and absent facts are never compared.
 * `rename` maps block ids of the previous catalog to their moved ids, so cluster ids follow their members.
 */
export function facts(
  b: SnapshotBlock,
  rename: (id: string) => string = (id) => id,
  full = true,
): Map<ChangedField, string> {
  const f = new Map<ChangedField, string>([
    ['slug', b.slug],
    ['name', b.name],
    ['category', b.category],
    ['license', b.license],
  ]);
  // Compared with a summary, a spec must say no more than the summary can, or `failed` would differ from `failed: timeout`.
  const s = full ? b.spec : undefined;
  f.set(
    'validation.status',
    s?.validation
      ? s.validation.failureClass
        ? `${s.validation.status}: ${s.validation.failureClass}`
        : s.validation.status
      : b.status,
  );
  if (b.params !== null) f.set('validation.params', String(b.params));
  if (!s) return f;
  const i = s.interface;
  f.set('interface.constructorParams', paramsText(i.constructorParams));
  f.set(
    'interface.forward',
    i.forward
      ? `${paramsText(i.forward.params)}${i.forward.returns !== undefined ? ` -> ${i.forward.returns}` : ''}`
      : NONE,
  );
  f.set('interface.bases', i.bases.join(', ') || NONE);
  f.set('interface.methods', i.methods.join(', ') || NONE);
  if (s.validation)
    f.set(
      'validation.outputs',
      s.validation.outputs.map((o) => `${o.dtype}[${o.shape.join(', ')}]`).join('; ') || NONE,
    );
  if (s.dedup) {
    const d = s.dedup;
    const cluster = (id: string | null) => (id === null ? NONE : rename(id));
    f.set('dedup.exactGroup', cluster(d.exactGroup));
    f.set('dedup.lexicalCluster', cluster(d.lexicalCluster));
    f.set('dedup.structuralCluster', cluster(d.structuralCluster));
    f.set('dedup.archHash', d.archHash ?? NONE);
  }
  return f;
}

/** The facts that differ between two versions of a block; `rename` maps previous ids to their moved ids. */
function fieldChanges(
  a: SnapshotBlock,
  b: SnapshotBlock,
  rename: (id: string) => string,
  skip: ReadonlySet<ChangedField>,
): FieldChange[] {
  const full = a.spec !== undefined && b.spec !== undefined;
  const before = facts(a, rename, full);
  const after = facts(b, undefined, full);
  const out: FieldChange[] = [];
  for (const field of CHANGED_FIELDS) {
    const a = before.get(field);
    const b = after.get(field);
    if (a !== undefined && b !== undefined && a !== b && !skip.has(field)) out.push({ field, before: a, after: b });
  }
  return out;
}

/** Keys that identify the same content across builds, strongest first; null when the block has none. */
const MOVE_KEYS: {
  evidence: MoveEvidence;
  key: (b: SnapshotBlock, rename: (id: string) => string) => string | null;
}[] = [
  // The file's git blob and the class's line range: the file was moved or its module renamed, nothing edited.
  {
    evidence: 'blob',
    key: (b) => (b.spec ? `${b.spec.provenance.blobSha1}:${b.spec.provenance.lines.join('-')}` : null),
  },
  // Same exact-duplicate group (normalized source identical to the same canonical block).
  { evidence: 'exact-group', key: (b, rename) => (b.spec?.dedup?.exactGroup ? rename(b.spec.dedup.exactGroup) : null) },
];

interface Move {
  from: SnapshotBlock;
  to: SnapshotBlock;
  evidence: MoveEvidence;
}

/** Pairs removed with added blocks of the same content, one to one, in id order (so ties resolve the same way). */
function findMoves(removed: SnapshotBlock[], added: SnapshotBlock[]): Move[] {
  const moves: Move[] = [];
  const renamed = new Map<string, string>();
  const rename = (id: string) => renamed.get(id) ?? id;
  let left = removed;
  let right = added;
  for (const { evidence, key } of MOVE_KEYS) {
    const candidates = new Map<string, SnapshotBlock[]>();
    for (const b of right) {
      const k = key(b, (id) => id);
      if (k === null) continue;
      const list = candidates.get(k);
      if (list) list.push(b);
      else candidates.set(k, [b]);
    }
    const taken = new Set<string>();
    const unmatched: SnapshotBlock[] = [];
    for (const b of left) {
      const k = key(b, rename);
      const to = k === null ? undefined : candidates.get(k)?.find((c) => !taken.has(c.id));
      if (!to) {
        unmatched.push(b);
        continue;
      }
      taken.add(to.id);
      renamed.set(b.id, to.id);
      moves.push({ from: b, to, evidence });
    }
    left = unmatched;
    right = right.filter((b) => !taken.has(b.id));
  }
  return moves;
}

function pinOf(s: SourceRecord): UpstreamPin {
  return {
    ...(s.commit ? { commit: s.commit } : {}),
    ...(s.release ? { version: s.release.version, ...(s.release.tag ? { tag: s.release.tag } : {}) } : {}),
  };
}

export function diffSources(previous: SourceRecord[], current: SourceRecord[]): SourceChange[] {
  const before = new Map(previous.map((s) => [s.id, s]));
  const after = new Map(current.map((s) => [s.id, s]));
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort(byString);
  const out: SourceChange[] = [];
  for (const sourceId of ids) {
    const a = before.get(sourceId);
    const b = after.get(sourceId);
    const blocks = { before: a?.counts.blocks ?? 0, after: b?.counts.blocks ?? 0 };
    if (!a) out.push({ sourceId, kind: 'added', after: pinOf(b!), blocks });
    else if (!b) out.push({ sourceId, kind: 'removed', before: pinOf(a), blocks });
    else if (JSON.stringify(pinOf(a)) !== JSON.stringify(pinOf(b)))
      out.push({ sourceId, kind: 'bumped', before: pinOf(a), after: pinOf(b), blocks });
  }
  return out;
}

const changeId = (c: BlockChange) => c.block.id;

/**
 * Compares two catalogs. With no previous catalog the feed is a baseline: no block changes (a site that could
 * not be reached must not announce every block as new), and the diagnostics passed in say why.
 */
export function diffCatalogs(
  previous: CatalogSnapshot | null,
  current: CatalogSnapshot,
  diagnostics: Diagnostic[] = [],
): ChangeFeed {
  const notes = [...diagnostics];
  if (!current.builtAt) {
    notes.push({
      code: 'feed-no-build-info',
      severity: 'warning',
      stage: 'feed',
      message: `the current catalog has no build-info.json builtAt; the feed is dated ${UNKNOWN_DATE}`,
      hint: 'run `nnblocks build`, which writes build-info.json',
    });
  }
  const changes: BlockChange[] = [];
  if (previous) {
    const before = new Map(previous.blocks.map((b) => [b.id, b]));
    const after = new Map(current.blocks.map((b) => [b.id, b]));
    const removed = [...before.values()].filter((b) => !after.has(b.id)).sort((x, y) => byString(x.id, y.id));
    const added = [...after.values()].filter((b) => !before.has(b.id)).sort((x, y) => byString(x.id, y.id));
    const moves = findMoves(removed, added);
    const renamed = new Map(moves.map((m) => [m.from.id, m.to.id]));
    const rename = (id: string) => renamed.get(id) ?? id;
    const movedFrom = new Set(moves.map((m) => m.from.id));
    const movedTo = new Set(moves.map((m) => m.to.id));
    const skipForMoves = new Set<ChangedField>(['slug']);

    for (const b of added) if (!movedTo.has(b.id)) changes.push({ kind: 'new', block: blockRef(b) });
    for (const b of removed) if (!movedFrom.has(b.id)) changes.push({ kind: 'removed', block: blockRef(b) });
    for (const m of moves) {
      changes.push({
        kind: 'moved',
        from: blockRef(m.from),
        block: blockRef(m.to),
        matchedBy: m.evidence,
        fields: fieldChanges(m.from, m.to, rename, skipForMoves),
      });
    }
    for (const [id, b] of after) {
      const a = before.get(id);
      if (!a) continue;
      const pathA = a.spec?.provenance.path;
      const pathB = b.spec?.provenance.path;
      if (pathA !== undefined && pathB !== undefined && pathA !== pathB) {
        changes.push({
          kind: 'moved',
          from: blockRef(a),
          block: blockRef(b),
          matchedBy: 'id',
          fields: fieldChanges(a, b, rename, skipForMoves),
        });
        continue;
      }
      const fields = fieldChanges(a, b, rename, new Set());
      if (fields.length) changes.push({ kind: 'changed', block: blockRef(b), fields });
    }
    const order = new Map(CHANGE_KINDS.map((k, i) => [k, i]));
    changes.sort((x, y) => order.get(x.kind)! - order.get(y.kind)! || byString(changeId(x), changeId(y)));
  }
  const upstream = previous ? diffSources(previous.sources, current.sources) : [];
  const count = (k: BlockChange['kind']) => changes.filter((c) => c.kind === k).length;
  return {
    formatVersion: CHANGES_FORMAT_VERSION,
    generatedAt: current.builtAt ?? UNKNOWN_DATE,
    previous: previous
      ? {
          origin: previous.origin,
          ...(previous.builtAt ? { builtAt: previous.builtAt } : {}),
          blocks: previous.blocks.length,
        }
      : null,
    current: { blocks: current.blocks.length },
    summary: {
      new: count('new'),
      removed: count('removed'),
      moved: count('moved'),
      changed: count('changed'),
      upstream: upstream.length,
    },
    upstream,
    changes,
    diagnostics: notes,
  };
}
