// Issue 23: the NN-RAG paper's whole corpus (content/corpus.paper.json: 22 repositories, pinned; the GitHub ones
// read offline from their local mirrors, see paper-corpus.ts; the rest installed distributions from PyPI) in ONE
// build, cold in a fresh cache folder and again warm, through the CLI as a child process so its whole process tree
// is measured. Per repository: blocks, import-only OK (the paper's criterion), passed, blocked, failed by class,
// beside the paper's count (its Fig. 2). The blocks that did not pass grouped as the paper groups its failures, from
// stats.json `causeGroups` (the catalog step's one table, contract/cause-groups.ts), beside its counts. Overall:
// passed of the blocks not blocked and not failing on a compiled extension, needs-arguments of all blocks, blocks
// failing on a module the corpus provides, times and peak memory.
// The validation environment is made once per machine (as for `devcorpus`): a cold run on a machine without it
// includes making it. Skipped, saying why, where a mirror is absent. Only when named (`npm run bench -- paper`:
// twenty minutes and more); the catalog is kept in bench-results/paper-catalog/, the config in
// bench-results/paper-corpus.json; the whole working folder in NNB_PAPER_WORKDIR when set.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAUSE_GROUPS } from '../../pipeline/contract/cause-groups.ts';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import type { StatsFile } from '../../pipeline/contract/stats.ts';
import { paperFailureAnalysis, paperOthers } from '../../pipeline/catalog/paper.ts';
import { corpusPackages, tallyCatalog, total, type CatalogTally } from './catalog-tally.ts';
import { round, type Figure } from './harness.ts';
import { gib, timedBuild, type Measured } from './measure.ts';
import { MIRRORS, paperMirrorsConfig, type MirroredCorpus } from './paper-corpus.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RESULTS = join(ROOT, 'bench-results');
const KEEP = join(RESULTS, 'paper-catalog');
const ISSUE = 23;
/** The paper's figures for the repositories it does not name one by one (stats.json `paper`, from its data file). */
const PAPER_OTHERS = paperOthers();
/** The paper's import-only outcome: 348 failures of the 1,289 blocks of its failure analysis. */
const PAPER = paperFailureAnalysis();
const PAPER_IMPORT_OK = round((100 * (PAPER.blocks - PAPER.failures)) / PAPER.blocks, 1);

const pct = (part: number, whole: number) => (whole ? round((100 * part) / whole, 1) : 0);
const list = (xs: { label: string; count: number }[]) => xs.map((x) => `${x.label} ${x.count}`).join(', ') || 'none';

export async function run(): Promise<Figure[]> {
  // Twenty minutes and more: only when named, like `fresh`.
  if (!process.argv.slice(2).includes('paper'))
    return [
      { issue: ISSUE, figure: 'the paper corpus (22 repositories)', value: 'skipped: run `npm run bench -- paper`' },
    ];
  // NNB_PAPER_WORKDIR keeps the cache and both catalogs there, for profiling a warm run afterwards.
  const kept = process.env.NNB_PAPER_WORKDIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'nnb-bench-paper-'));
  if (kept) mkdirSync(kept, { recursive: true });
  try {
    const corpus = paperMirrorsConfig(join(dir, 'cache'));
    if (corpus.missing.length > 0) {
      const why = `${corpus.missing.length} of the corpus's git repositories have no usable mirror in ${MIRRORS}: ${corpus.missing.map((m) => m.id).join(', ')} (bring them with the fetch tool)`;
      process.stderr.write(`bench paper: skipped: ${why}\n`);
      for (const m of corpus.missing) process.stderr.write(`  ${m.id}: ${m.why}\n`);
      return [{ issue: ISSUE, figure: 'the paper corpus (22 repositories)', value: `skipped: ${why}` }];
    }
    const config = join(dir, 'corpus.json');
    writeFileSync(config, JSON.stringify(corpus.config, null, 2));
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'paper-corpus.json'), JSON.stringify(corpus.config, null, 2) + '\n');

    const out = join(dir, 'catalog');
    const cold = await timedBuild(config, out);
    const warm = await timedBuild(config, join(dir, 'catalog-warm'));
    rmSync(KEEP, { recursive: true, force: true });
    cpSync(out, KEEP, { recursive: true });
    // Where each run's time went: the stages of both build-info.json files (the warm catalog is not kept).
    const stages = (dir: string) =>
      Object.fromEntries(
        ((JSON.parse(readFileSync(join(dir, 'build-info.json'), 'utf8')) as BuildInfo).stages ?? []).map((x) => [
          x.stage,
          round(x.ms / 1000, 1),
        ]),
      );
    writeFileSync(
      join(RESULTS, 'paper-stages.json'),
      JSON.stringify({ cold: stages(out), warm: stages(join(dir, 'catalog-warm')) }, null, 2) + '\n',
    );
    // The corpus's own top-level packages come from the (now warm) index: a missing one is our resolver's fault.
    return paperFigures(out, corpus, tallyCatalog(out, await corpusPackages(config)), cold, warm);
  } finally {
    if (!kept && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures of a built catalog `out` (its stats.json and the tally of its block specs) and the two runs. */
export function paperFigures(
  out: string,
  corpus: MirroredCorpus,
  tally: CatalogTally,
  cold: Measured,
  warm: Measured,
): Figure[] {
  const stats = JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')) as StatsFile;
  const figures: Figure[] = [
    {
      issue: ISSUE,
      figure: `sources: ${corpus.mirrored.length} git snapshots (local mirrors), ${corpus.distributions.length} installed distributions`,
      value: `${stats.perSource.length} built`,
      target: '22',
      ok: stats.perSource.length === 22,
      detail: { mirrored: corpus.mirrored, distributions: corpus.distributions },
    },
  ];
  for (const r of stats.perSource)
    figures.push({
      issue: ISSUE,
      figure: `${r.sourceId}: blocks (paper) / import OK / passed / blocked / failed`,
      value: `${r.blocks} (${r.paper?.blocks ?? '-'}) / ${r.importOk} / ${r.passed} / ${r.blocked} / ${r.failed}`,
      detail: {
        repository: r.repository,
        files: r.files,
        failedByClass: r.failedByClass,
        blockedBy: r.blockedBy,
        passRate: r.passRate,
        paper: r.paper,
      },
    });
  // The paper names seven repositories (a figure each); the rest of ours sit beside its "other 12 together".
  const others = stats.perSource.filter((r) => !r.paper);
  const sum = (rows: typeof others, key: 'blocks' | 'importOk' | 'passed') => rows.reduce((a, r) => a + r[key], 0);
  figures.push({
    issue: ISSUE,
    figure: `others together (${others.length} sources; paper: ${PAPER_OTHERS.repositories} repositories): blocks (paper) / import OK / passed`,
    value: `${sum(others, 'blocks')} (${PAPER_OTHERS.blocks}) / ${sum(others, 'importOk')} / ${sum(others, 'passed')}`,
    detail: others.map((r) => r.sourceId),
  });
  for (const r of stats.perSource.filter((x) => x.failedByClass.length > 0))
    figures.push({
      issue: ISSUE,
      figure: `${r.sourceId}: failed by class`,
      value: list(r.failedByClass.map((f) => ({ label: f.failureClass, count: f.count }))),
    });

  figures.push(...causeFigures(stats));

  const all = stats.validation;
  const importOk = stats.perSource.reduce((a, r) => a + r.importOk, 0);
  const nonBlocked = all.validated - all.blocked;
  const attempted = nonBlocked - tally.native;
  const needsArguments = total(tally.needsArguments);
  const corpusMissing = total(tally.corpusMissing);
  figures.push(
    {
      issue: ISSUE,
      figure: `all: blocks ${stats.blocks}, validated ${all.validated}, passed ${all.passed}, blocked ${all.blocked}, failed ${all.failed}`,
      value: `failed by class: ${list(stats.failureCauses.map((f) => ({ label: f.failureClass, count: f.count })))}`,
      detail: { stats: stats.validation, unblock: stats.unblock },
    },
    {
      issue: ISSUE,
      figure: 'blocked, by distribution that would unblock them',
      value: list(stats.unblock.map((u) => ({ label: u.distribution, count: u.blocks }))),
    },
    {
      issue: ISSUE,
      figure: `import OK of non-blocked validated (${importOk}/${nonBlocked}; paper's import-only: ${PAPER_IMPORT_OK}%)`,
      value: pct(importOk, nonBlocked),
      unit: '%',
    },
    {
      issue: ISSUE,
      figure: `passed of the blocks neither blocked nor failing on a compiled extension (${all.passed}/${attempted}; native-extension ${tally.native})`,
      value: pct(all.passed, attempted),
      unit: '%',
      target: '>= 85%',
      ok: pct(all.passed, attempted) >= 85,
    },
    {
      issue: ISSUE,
      figure: `needs-arguments of all blocks (${needsArguments}/${stats.blocks})`,
      value: pct(needsArguments, stats.blocks),
      unit: '%',
      target: '<= 3%',
      ok: pct(needsArguments, stats.blocks) <= 3,
      detail: Object.fromEntries(tally.needsArguments),
    },
    {
      issue: ISSUE,
      figure: 'missing-module of a corpus package',
      value: corpusMissing,
      target: '0',
      ok: corpusMissing === 0,
      detail: Object.fromEntries(tally.corpusMissing),
    },
    {
      issue: ISSUE,
      figure: 'blocks blocked by a distribution their source declares',
      value: total(tally.blockedDeclared),
      detail: Object.fromEntries(tally.blockedDeclared),
    },
    {
      issue: ISSUE,
      figure: 'cold build (fresh cache)',
      value: round(cold.s, 1),
      unit: 's',
      target: '<= 1200 s',
      ok: cold.s <= 1200,
    },
    {
      issue: ISSUE,
      figure: 'cold build peak memory: process tree PSS / tree RSS / largest process',
      value: `${gib(cold.treePeakPssBytes)} / ${gib(cold.treePeakBytes)} / ${cold.maxRssBytes === null ? 'n/a' : gib(cold.maxRssBytes)}`,
      unit: 'GiB',
      target: '<= 4 GiB (tree PSS)',
      ok: gib(cold.treePeakPssBytes) <= 4,
      // Who held it: the build, the workers, the blocks' children (each forked from a worker).
      detail: Object.fromEntries(
        Object.entries(cold.peakPssByRole).map(([role, r]) => [role, `${r.processes} × ${gib(r.bytes)} GiB in all`]),
      ),
    },
    {
      issue: ISSUE,
      figure: 'warm re-run (nothing changed)',
      value: round(warm.s, 1),
      unit: 's',
      target: '<= 30 s',
      ok: warm.s <= 30,
    },
  );
  return figures;
}

/**
 * One figure per group of stats.json `causeGroups` (the catalog step grouped them: contract/cause-groups.ts), ours
 * beside the paper's, as counts and shares of blocks; none from a catalog made before the groups.
 */
function causeFigures(stats: StatsFile): Figure[] {
  const label = new Map<string, string>(CAUSE_GROUPS.map((g) => [g.id, g.label]));
  const share = (x: number) => `${round(100 * x, 1)}%`;
  return (stats.causeGroups ?? []).map((r) => ({
    issue: ISSUE,
    figure: `cause: ${label.get(r.group) ?? r.group}: ours of ${stats.blocks} blocks (import failed) / paper of ${PAPER.blocks}`,
    value: `${r.count} ${share(r.share)} (${r.importFailed}) / ${r.paper ? `${r.paper.count} ${share(r.paper.share)}` : 'no group'}`,
    detail: { byRule: r.byRule },
  }));
}
