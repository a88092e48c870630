// Per-repository figures and the unblock table of stats.json: per source, from files indexed to blocks
// passing, with blocked blocks (a distribution not installed) kept apart from failed ones, the pass rate over
// attempts only, and the NN-RAG paper's count for the same repository beside ours; and the blocks that did not pass
// grouped as the paper groups its failures (contract/cause-groups.ts), beside its counts.
import type { BlockSpec } from '../contract/block.ts';
import { CAUSE_GROUPS, causeRule, type CauseFacts } from '../contract/cause-groups.ts';
import type { FailureCount } from '../contract/common.ts';
import { harnessRule } from '../contract/harness.ts';
import type { CauseGroupRow, HarnessCount, PaperTotals, SourceFigures, UnblockRow } from '../contract/stats.ts';
import { paperFailureAnalysis, paperFigureFor, paperOthers } from './paper.ts';
import { wilsonProportion } from './proportion.ts';

/** What a source contributes besides its blocks: its URLs and the size of what was indexed. */
export interface SourceFacts {
  id: string;
  /** The published repository URL (sources.json `repository`). */
  repository: string;
  /** A git source's clone URL, when it differs. */
  url?: string;
  /** Python files indexed. */
  files: number;
}

/** Counts only the build knows (blocks that never reach the catalog, or reach it without trace of the step). */
export interface SourceBuildCounts {
  sourceId: string;
  /** Abstract blocks: discovered, no concrete forward, left out of the catalog. */
  abstract: number;
  /** Blocks assembled into a single module. */
  extracted: number;
}

const byCount =
  <T extends { count: number }>(key: (t: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Not-run blocks by the harness rule that set them (HARNESS_RULES), most first, then by rule. */
export function notRunCauses(specs: BlockSpec[]): HarnessCount[] {
  const m = new Map<string, number>();
  for (const s of specs) {
    if (s.validation?.status !== 'not-run') continue;
    const rule = harnessRule(s.validation)?.id ?? 'unknown';
    m.set(rule, (m.get(rule) ?? 0) + 1);
  }
  return [...m].map(([rule, count]) => ({ rule, count })).sort(byCount((x) => x.rule));
}

/** Did the block's import stage pass (its own upstream packages refused)? */
const importOk = (s: BlockSpec) => s.validation?.stages.some((st) => st.stage === 'import' && st.status === 'ok');

export function sourceFigures(
  specs: BlockSpec[],
  sources: SourceFacts[],
  counts?: SourceBuildCounts[],
): SourceFigures[] {
  const build = new Map((counts ?? []).map((c) => [c.sourceId, c]));
  return [...sources]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((src) => {
      const mine = specs.filter((s) => s.sourceId === src.id);
      const status = (st: string) => mine.filter((s) => s.validation?.status === st);
      const passed = status('passed').length;
      const failed = status('failed');
      const notRun = status('not-run');
      const blocked = status('blocked');
      const tally = (values: string[]) => {
        const m = new Map<string, number>();
        for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
        return [...m];
      };
      const row: SourceFigures = {
        sourceId: src.id,
        repository: src.repository,
        files: src.files,
        blocks: mine.length,
        validated: mine.filter((s) => s.validation).length,
        importOk: mine.filter(importOk).length,
        passed,
        blocked: blocked.length,
        blockedBy: tally(blocked.flatMap((s) => (s.validation!.blockedBy ?? []).map((b) => b.distribution)))
          .map(([distribution, count]) => ({ distribution, count }))
          .sort(byCount((x) => x.distribution)),
        failed: failed.length,
        failedByClass: tally(failed.map((s) => s.validation!.failureClass ?? 'unknown'))
          .map(([failureClass, count]): FailureCount => ({ failureClass, count }))
          .sort(byCount((x) => x.failureClass)),
        notRun: notRun.length,
        notRunByRule: notRunCauses(notRun),
        passRate: passed + failed.length > 0 ? wilsonProportion(passed, passed + failed.length) : null,
        paper: paperFigureFor([src.repository, src.url]),
      };
      const b = build.get(src.id);
      if (b) {
        row.abstract = b.abstract;
        row.extracted = b.extracted;
      }
      return row;
    });
}

/** "Distributions that would unblock N blocks": every distribution a blocked block needs, with how many need it. */
export function unblockTable(specs: BlockSpec[]): UnblockRow[] {
  const rows = new Map<string, { modules: Set<string>; blocks: number; alone: number; known: boolean }>();
  for (const s of specs) {
    if (s.validation?.status !== 'blocked') continue;
    const needs = s.validation.blockedBy ?? [];
    for (const n of needs) {
      const row = rows.get(n.distribution) ?? { modules: new Set<string>(), blocks: 0, alone: 0, known: true };
      if (!n.known) row.known = false;
      row.modules.add(n.module);
      row.blocks += 1;
      if (needs.length === 1) row.alone += 1;
      rows.set(n.distribution, row);
    }
  }
  return [...rows]
    .map(([distribution, r]) => ({
      distribution,
      modules: [...r.modules].sort(),
      blocks: r.blocks,
      alone: r.alone,
      ...(r.known ? {} : { known: false }),
    }))
    .sort((a, b) => b.blocks - a.blocks || (a.distribution < b.distribution ? -1 : 1));
}

/** What the cause rules read of a block that did not pass; null for one that passed or was not validated. */
export function causeFacts(s: BlockSpec): CauseFacts | null {
  const v = s.validation;
  if (!v || v.status === 'passed') return null;
  return { status: v.status, failureClass: v.failureClass, reason: v.reason, diagnostics: s.diagnostics };
}

const share = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1e4) / 1e4 : 0);

/**
 * stats.json `causeGroups`: every block that did not pass in the group of the first cause rule that fires, one row
 * per group in CAUSE_GROUPS order, with the rules that put it there and the paper's count for the group.
 */
export function causeGroups(specs: BlockSpec[]): CauseGroupRow[] {
  const paper = paperFailureAnalysis();
  const rows = new Map(
    CAUSE_GROUPS.map((g) => [g.id as string, { count: 0, importFailed: 0, rules: new Map<string, number>() }]),
  );
  for (const s of specs) {
    const facts = causeFacts(s);
    if (!facts) continue;
    const rule = causeRule(facts);
    const row = rows.get(rule.group)!;
    row.count += 1;
    if (!importOk(s)) row.importFailed += 1;
    row.rules.set(rule.id, (row.rules.get(rule.id) ?? 0) + 1);
  }
  return CAUSE_GROUPS.map((g) => {
    const r = rows.get(g.id)!;
    const theirs = paper.causes.find((c) => c.group === g.id);
    return {
      group: g.id,
      count: r.count,
      share: share(r.count, specs.length),
      importFailed: r.importFailed,
      byRule: [...r.rules].map(([rule, count]) => ({ rule, count })).sort(byCount((x) => x.rule)),
      paper: theirs ? { count: theirs.count, share: share(theirs.count, paper.blocks) } : null,
    };
  });
}

/** stats.json `paper`: the paper's corpus-level figures beside ours. */
export function paperTotals(): PaperTotals {
  const { blocks, failures } = paperFailureAnalysis();
  return { blocks, failures, importOk: blocks - failures, others: paperOthers() };
}
