// Issue 14: the development corpus (content/corpus.mirrors.example.json: eight pinned local git mirrors of NN-RAG
// repositories plus the installed torchvision), built cold in a fresh cache and again warm, through the CLI as a
// child process so its whole process tree (validate workers included) is measured. Reports per repository and
// overall: blocks, import OK, passed, blocked (by distribution), failed by class; missing-module of a corpus package;
// import OK and passed as shares of the blocks that are not blocked; emitted module sizes; times and peak memory.
// Skipped, saying why, where the mirrors are absent. `npm run bench -- devcorpus`; the catalog is kept in
// bench-results/devcorpus-catalog/ for a look at the site (`nnblocks site`).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import type { StatsFile } from '../../pipeline/contract/stats.ts';
import { percentile, round, type Figure } from './harness.ts';
import { corpusPackages, tallyCatalog, total } from './catalog-tally.ts';
import { gib, timedBuild } from './measure.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, 'content', 'corpus.mirrors.example.json');
const MIRRORS = '/work/.mirror';
const KEEP = join(ROOT, 'bench-results', 'devcorpus-catalog');
const ISSUE = 14;

const pct = (part: number, whole: number) => (whole ? round((100 * part) / whole, 1) : 0);
const list = (xs: { label: string; count: number }[]) => xs.map((x) => `${x.label} ${x.count}`).join(', ') || 'none';

export async function run(): Promise<Figure[]> {
  const mirrorsMissing = !existsSync(MIRRORS);
  if (mirrorsMissing || !existsSync(CONFIG)) {
    const why = mirrorsMissing
      ? `${MIRRORS} is absent (the pinned mirrors of the development repositories)`
      : `${CONFIG} is absent`;
    process.stderr.write(`bench devcorpus: skipped: ${why}\n`);
    return [{ issue: ISSUE, figure: 'development corpus (mirrors)', value: `skipped: ${why}` }];
  }
  const dir = mkdtempSync(join(tmpdir(), 'nnb-bench-devcorpus-'));
  try {
    const { $schema: _schema, ...base } = JSON.parse(readFileSync(CONFIG, 'utf8')) as Record<string, unknown>;
    const config = join(dir, 'corpus.json');
    writeFileSync(config, JSON.stringify({ ...base, cacheDir: join(dir, 'cache') }, null, 2));
    const out = join(dir, 'catalog');
    const cold = await timedBuild(config, out);
    const warm = await timedBuild(config, join(dir, 'catalog-warm'));
    const stats = JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')) as StatsFile;
    rmSync(KEEP, { recursive: true, force: true });
    cpSync(out, KEEP, { recursive: true });

    // The corpus's own top-level packages, from the (now warm) index: a missing one is our resolver's fault.
    const tally = tallyCatalog(out, await corpusPackages(config));
    const corpusMissing = total(tally.corpusMissing);
    const native = tally.native;
    const env = (JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8')) as BuildInfo).environment;
    // Emitted (assembled) modules: local files of this build, never published; their sizes in lines.
    const emitted = join(dir, 'cache', 'extracted', 'blocks');
    const lines = existsSync(emitted)
      ? readdirSync(emitted)
          .filter((f) => f.endsWith('.py'))
          .map((f) => readFileSync(join(emitted, f), 'utf8').split('\n').length - 1)
      : [];

    const figures: Figure[] = stats.perSource.map((r) => ({
      issue: ISSUE,
      figure: `${r.sourceId}: blocks / import OK / passed / blocked / failed${r.paper ? ` (paper: ${r.paper.blocks})` : ''}`,
      value: `${r.blocks} / ${r.importOk} / ${r.passed} / ${r.blocked} / ${r.failed}`,
      detail: {
        files: r.files,
        abstract: r.abstract,
        extracted: r.extracted,
        blockedBy: r.blockedBy,
        failedByClass: r.failedByClass,
        passRate: r.passRate,
        paper: r.paper,
      },
    }));
    for (const [sourceId, per] of [...tally.origins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      figures.push({
        issue: 15,
        figure: `${sourceId}: passing recipes by origin`,
        value: list([...per].sort(([a], [b]) => (a < b ? -1 : 1)).map(([label, count]) => ({ label, count }))),
      });
    const all = stats.validation;
    const importOk = stats.perSource.reduce((a, r) => a + r.importOk, 0);
    const nonBlocked = all.validated - all.blocked;
    const byClass = stats.failureCauses.map((f) => ({ label: f.failureClass, count: f.count }));
    figures.push(
      {
        issue: ISSUE,
        figure: `all: blocks ${stats.blocks}, validated ${all.validated}, passed ${all.passed}, blocked ${all.blocked}, failed ${all.failed}`,
        value: `failed by class: ${list(byClass)}`,
        detail: { stats: stats.validation, unblock: stats.unblock },
      },
      {
        issue: ISSUE,
        figure: 'blocked, by distribution that would unblock them',
        value: list(stats.unblock.map((u) => ({ label: u.distribution, count: u.blocks }))),
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
        figure: `import OK of non-blocked validated (${importOk}/${nonBlocked})`,
        value: pct(importOk, nonBlocked),
        unit: '%',
        target: '>= 95%',
        ok: pct(importOk, nonBlocked) >= 95,
      },
      {
        issue: ISSUE,
        figure: `import OK of non-blocked validated that need no compiled extension (${importOk}/${nonBlocked - native})`,
        value: pct(importOk, nonBlocked - native),
        unit: '%',
      },
      {
        issue: ISSUE,
        figure: `passed of non-blocked validated (${all.passed}/${nonBlocked})`,
        value: pct(all.passed, nonBlocked),
        unit: '%',
        target: '>= 73%',
        ok: pct(all.passed, nonBlocked) >= 73,
      },
      {
        issue: 20,
        figure: 'blocks blocked by a distribution their source declares',
        value: total(tally.blockedDeclared),
        target: '0',
        ok: tally.blockedDeclared.size === 0,
        detail: Object.fromEntries(tally.blockedDeclared),
      },
      {
        issue: 20,
        figure: `passed of non-blocked validated that need no compiled extension (${all.passed}/${nonBlocked - native}; installed for the corpus: ${env?.requirements.length ?? 0}, missing: ${list((env?.missing ?? []).map((m) => ({ label: m.name, count: 1 })))})`,
        value: pct(all.passed, nonBlocked - native),
        unit: '%',
        target: '>= 80%',
        ok: pct(all.passed, nonBlocked - native) >= 80,
      },
      {
        issue: ISSUE,
        figure: `emitted module size, median / largest (${lines.length} modules)`,
        value: `${percentile(lines, 50)} / ${Math.max(0, ...lines)}`,
        unit: 'lines',
      },
      { issue: ISSUE, figure: 'cold build (fresh cache)', value: round(cold.s, 1), unit: 's' },
      {
        issue: ISSUE,
        figure: 'cold build peak memory: process tree PSS / tree RSS / largest process',
        value: `${gib(cold.treePeakPssBytes)} / ${gib(cold.treePeakBytes)} / ${cold.maxRssBytes === null ? 'n/a' : gib(cold.maxRssBytes)}`,
        unit: 'GiB',
      },
      { issue: ISSUE, figure: 'warm re-run (nothing changed)', value: round(warm.s, 1), unit: 's' },
    );
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
