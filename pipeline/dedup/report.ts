// The corpus report in the layout of NN-RAG's table 4: records in, removed at each level, unique out, per source.
import type { BlockDedup, DedupItem, ReportRow } from './types.ts';

function emptyRow(source: string): ReportRow {
  return {
    source,
    recordsIn: 0,
    removedExact: 0,
    removedLexical: 0,
    removedStructural: 0,
    uniqueOut: 0,
    uniqueShare: 0,
    validatedIn: 0,
    validatedUniqueOut: 0,
    withArchitecture: 0,
    uniqueArchitectures: 0,
  };
}

/**
 * Levels are nested (each merges the previous level's clusters), so every block is removed at exactly one
 * level or kept: removed at the first level where it is not its cluster's canonical member. A block removed
 * in favour of a member of another source counts against its own source.
 */
export function corpusReport(items: DedupItem[], blocks: BlockDedup[]): ReportRow[] {
  const all = emptyRow('all');
  const bySource = new Map<string, ReportRow>();
  for (let i = 0; i < items.length; i++) {
    const b = blocks[i];
    let row = bySource.get(b.sourceId);
    if (row === undefined) {
      row = emptyRow(b.sourceId);
      bySource.set(b.sourceId, row);
    }
    for (const r of [all, row]) {
      r.recordsIn++;
      if (!b.unique.exact) r.removedExact++;
      else if (!b.unique.lexical) r.removedLexical++;
      else if (!b.unique.structural) r.removedStructural++;
      else r.uniqueOut++;
      if (items[i].validated) {
        r.validatedIn++;
        if (b.unique.structural) r.validatedUniqueOut++;
      }
      if (b.archHash !== null) {
        r.withArchitecture++;
        if (b.unique.architecture) r.uniqueArchitectures++;
      }
    }
  }
  const rows = [
    all,
    ...[...bySource.values()].sort((x, y) => (x.source < y.source ? -1 : x.source > y.source ? 1 : 0)),
  ];
  for (const r of rows) r.uniqueShare = r.recordsIn === 0 ? 0 : Math.round((r.uniqueOut / r.recordsIn) * 1e4) / 1e4;
  return rows;
}
