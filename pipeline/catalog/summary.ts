// Corpus-level records of the catalog: sources.json, clusters.json and stats.json, computed from the block specs,
// the source snapshots and the de-duplication result.
import type { DedupResult } from '../dedup/types.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import type { BlockSpec } from '../contract/block.ts';
import type { Cluster, ClustersFile } from '../contract/clusters.ts';
import type { CategoryCount, FailureCount } from '../contract/common.ts';
import type { SourceRecord, SourcesFile } from '../contract/sources.ts';
import type { DedupTableRow, KindCount, StatsFile } from '../contract/stats.ts';
import type { DedupLevel } from '../contract/vocabulary.ts';
import { BLOCK_KINDS, CATALOG_FORMAT_VERSION, DEDUP_LEVELS } from '../contract/vocabulary.ts';
import {
  causeGroups,
  notRunCauses,
  paperTotals,
  sourceFigures,
  unblockTable,
  type SourceBuildCounts,
  type SourceFacts,
} from './figures.ts';
import { wilsonProportion } from './proportion.ts';
import { provenanceOf } from './provenance.ts';

function countBy<T>(items: T[], key: (t: T) => string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) {
    const k = key(i);
    if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

const byCountThenKey =
  <T extends { count: number }>(key: (t: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Multi-label: a block counts once under each of its categories, so the counts add up to more than the blocks. */
function categories(specs: BlockSpec[]): CategoryCount[] {
  return [
    ...countBy(
      specs.flatMap((s) => s.categories),
      (c) => c,
    ),
  ]
    .map(([category, count]) => ({ category: category as CategoryCount['category'], count }))
    .sort(byCountThenKey((x) => x.category));
}

/** Blocks per kind (network blocks, transforms, losses), in BLOCK_KINDS order; every kind listed, 0 included. */
function kinds(specs: BlockSpec[]): KindCount[] {
  const m = countBy(specs, (s) => s.kind);
  return BLOCK_KINDS.map((kind) => ({ kind, count: m.get(kind) ?? 0 }));
}

function failures(specs: BlockSpec[]): FailureCount[] {
  return [
    ...countBy(specs, (s) =>
      s.validation?.status === 'failed' ? (s.validation.failureClass ?? 'unknown') : undefined,
    ),
  ]
    .map(([failureClass, count]) => ({ failureClass, count }))
    .sort(byCountThenKey((x) => x.failureClass));
}

function uniqueCounts(specs: BlockSpec[]): Record<DedupLevel, number> | undefined {
  if (!specs.some((s) => s.dedup)) return undefined;
  const out = {} as Record<DedupLevel, number>;
  for (const level of DEDUP_LEVELS) out[level] = specs.filter((s) => s.dedup?.unique[level]).length;
  return out;
}

/**
 * Validated blocks by outcome. Blocked blocks (a distribution not installed) and not-run ones (the harness could not
 * run them: contract/harness.ts) are validated but not attempts: the rate is passed / (passed + failed).
 */
function validationCounts(specs: BlockSpec[]) {
  const status = (st: string) => specs.filter((s) => s.validation?.status === st).length;
  const passed = status('passed');
  const failed = status('failed');
  return {
    validated: specs.filter((s) => s.validation).length,
    passed,
    failed,
    notRun: status('not-run'),
    blocked: status('blocked'),
    passRate: passed + failed ? wilsonProportion(passed, passed + failed) : null,
  };
}

/** A snapshot as the figures need it: URLs and the number of files indexed. */
function factsOf(s: SourceSnapshot): SourceFacts {
  const repository = provenanceOf({ snapshot: s, path: '', lines: [1, 1], blobSha1: '', sha256: '' }).repository;
  return { id: s.id, repository, ...(s.url && s.url !== repository ? { url: s.url } : {}), files: s.files.length };
}

export function sourcesFile(specs: BlockSpec[], snapshots: SourceSnapshot[]): SourcesFile {
  const sources: SourceRecord[] = [...snapshots]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((s) => {
      const mine = specs.filter((b) => b.sourceId === s.id);
      const v = validationCounts(mine);
      const prov = provenanceOf({ snapshot: s, path: '', lines: [1, 1], blobSha1: '', sha256: '' });
      const rec: SourceRecord = {
        id: s.id,
        kind: s.kind === 'python' ? 'distribution' : s.kind === 'path' ? 'local' : 'git',
        repository: prov.repository,
        license: prov.license,
        counts: {
          blocks: mine.length,
          validated: v.validated,
          passed: v.passed,
          failed: v.failed,
          notRun: v.notRun,
          blocked: v.blocked,
        },
        passRate: v.passRate,
        byCategory: categories(mine),
        failureCauses: failures(mine),
      };
      if (prov.commit) rec.commit = prov.commit;
      if (prov.release) rec.release = prov.release;
      if (s.installable !== undefined) rec.installable = s.installable;
      const u = uniqueCounts(mine);
      if (u) rec.unique = u;
      return rec;
    });
  return { formatVersion: CATALOG_FORMAT_VERSION, sources };
}

export function clustersFile(dedup: DedupResult | undefined): ClustersFile {
  const clusters: Cluster[] = [];
  if (dedup) {
    for (const level of DEDUP_LEVELS) {
      for (const c of dedup.clusters[level]) {
        clusters.push({ id: c.canonical, level, representative: c.canonical, members: [...c.members].sort() });
      }
    }
  }
  clusters.sort((a, b) => DEDUP_LEVELS.indexOf(a.level) - DEDUP_LEVELS.indexOf(b.level) || (a.id < b.id ? -1 : 1));
  return { formatVersion: CATALOG_FORMAT_VERSION, clusters };
}

const LEVEL_METHOD: Record<DedupLevel, string> = {
  exact: 'normalized source hash (SHA-256)',
  lexical: 'token shingles, MinHash/LSH, Jaccard >= threshold',
  structural: 'syntax-tree fingerprint (WL subtrees), Jaccard >= threshold',
  architecture: 'hash of the built module tree',
};

/** stats.json; `counts` are the build's per-source counts of abstract and extracted blocks (absent: not shown). */
export function statsFile(specs: BlockSpec[], snapshots: SourceSnapshot[], counts?: SourceBuildCounts[]): StatsFile {
  const v = validationCounts(specs);
  const stats: StatsFile = {
    formatVersion: CATALOG_FORMAT_VERSION,
    blocks: specs.length,
    sources: snapshots.length,
    validation: v,
    byCategory: categories(specs),
    byKind: kinds(specs),
    failureCauses: failures(specs),
    notRunCauses: notRunCauses(specs),
    dedupTable: [],
    perSource: sourceFigures(specs, snapshots.map(factsOf), counts),
    causeGroups: causeGroups(specs),
    paper: paperTotals(),
    unblock: unblockTable(specs),
  };
  const u = uniqueCounts(specs);
  if (u) {
    stats.unique = u;
    let before = specs.length;
    // Cumulative: a block removed at a stricter level stays removed at the looser ones.
    const rows: DedupTableRow[] = [];
    for (const level of DEDUP_LEVELS) {
      const after = specs.filter((s) =>
        DEDUP_LEVELS.slice(0, DEDUP_LEVELS.indexOf(level) + 1).every(
          (l) => s.dedup?.unique[l] || (l === 'architecture' && !s.dedup?.archHash),
        ),
      ).length;
      rows.push({
        level,
        method: LEVEL_METHOD[level],
        before,
        removed: before - after,
        after,
        uniqueShare: specs.length ? Math.round((after / specs.length) * 1e4) / 1e4 : 0,
      });
      before = after;
    }
    stats.dedupTable = rows;
  }
  return stats;
}
