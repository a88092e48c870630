// `stats.json` (schemas/catalog/stats.schema.json): the corpus's headline figures — validation outcomes, the
// de-duplication table, categories and kinds, per-repository figures, and what would unblock blocked blocks.
import { CAUSE_GROUP_IDS, CAUSE_GROUPS } from './cause-groups.ts';
import { common } from './common.ts';
import { DISTRIBUTION_PATTERN, MODULE_NAME_PATTERN } from './rules.ts';
import { Enum, OneOf, refs, schemaFile, Type, type Static } from './schema.ts';
import { DEDUP_LEVELS } from './vocabulary.ts';

const definitions = {
  distribution: Type.String({ pattern: DISTRIBUTION_PATTERN }),
  module: Type.String({ pattern: MODULE_NAME_PATTERN }),
};
const local = refs('#/definitions/', definitions);

const passRate = () => OneOf([Type.Null(), common.ref.proportion()]);

/** Not-run blocks by the harness rule that set them (HARNESS_RULES in contract/harness.ts), most first, then by rule. */
const harnessCounts = () =>
  Type.Array(Type.Object({ rule: common.ref.kebab(), count: common.ref.count() }, { additionalProperties: false }), {
    description: 'Not-run blocks by the harness rule that set them (contract/harness.ts), most first.',
  });

const dedupTableRow = Type.Object(
  {
    level: common.ref.dedupLevel(),
    /** What the level compares, e.g. `normalized source hash`, `token shingles (MinHash, J >= 0.9)`. */
    method: common.ref.nonEmpty(),
    /** Blocks entering this level. */
    before: common.ref.count(),
    /** Blocks removed as duplicates at this level. */
    removed: common.ref.count(),
    /** Blocks remaining (unique) after this level. */
    after: common.ref.count(),
    /** after / total blocks, in [0, 1]. */
    uniqueShare: common.ref.unit(),
  },
  { additionalProperties: false },
);

/**
 * One source's figures (stats.json `perSource`): from files to passing blocks, side by side with the NN-RAG paper's
 * count for the same repository when the paper gives one. Counts of stages that did not run are absent.
 */
const sourceFigures = Type.Object(
  {
    sourceId: common.ref.slug(),
    repository: Type.String({ pattern: '^((https?|file)://|local:)' }),
    /** Python files indexed (after include/exclude and the size cap). */
    files: common.ref.count(),
    /** Blocks in the catalog (concrete `nn.Module` subclasses). */
    blocks: common.ref.count(),
    /** Abstract blocks (no concrete forward), found but not in the catalog; absent when not recorded. */
    abstract: Type.Optional(common.ref.count()),
    /** Blocks assembled into a single module; absent when not recorded. */
    extracted: Type.Optional(common.ref.count()),
    /** Blocks with a validation record. */
    validated: common.ref.count(),
    /** Blocks whose import stage passed (their upstream packages refused). */
    importOk: common.ref.count(),
    passed: common.ref.count(),
    blocked: common.ref.count(),
    /** Blocked blocks per distribution they need, most first, then by name. */
    blockedBy: Type.Array(
      Type.Object({ distribution: local.distribution(), count: common.ref.count() }, { additionalProperties: false }),
    ),
    failed: common.ref.count(),
    /** Failed blocks by class, most first, then by class. */
    failedByClass: common.ref.failureCounts(),
    /** Blocks the harness could not run (contract/harness.ts): neither passed nor failed. */
    notRun: common.ref.count(),
    notRunByRule: harnessCounts(),
    /**
     * passed / (passed + failed) with its 95% Wilson interval; blocked and not-run blocks are not attempts. Null
     * without any.
     */
    passRate: passRate(),
    /** The paper's block count for this repository (its Fig. 2), matched by repository URL; null when it has none. */
    paper: OneOf([
      Type.Null(),
      Type.Object({ repository: common.ref.nonEmpty(), blocks: common.ref.count() }, { additionalProperties: false }),
    ]),
  },
  { additionalProperties: false },
);

/**
 * One group of blocks that did not pass, as the NN-RAG paper groups its failures (CAUSE_GROUPS and the rule table
 * CAUSE_RULES in contract/cause-groups.ts): ours beside the paper's, as counts and shares of blocks.
 */
const causeGroupRow = Type.Object(
  {
    group: Enum(CAUSE_GROUP_IDS),
    /** Blocks in the catalog that did not pass (failed, not-run or blocked) and fall in this group. */
    count: common.ref.count(),
    /** count / blocks in the catalog, in [0, 1], rounded to 4 places. */
    share: common.ref.unit(),
    /** Of `count`, the blocks whose import stage did not pass: failures by the paper's import-only criterion. */
    importFailed: common.ref.count(),
    /** The rules that put blocks here (CAUSE_RULES ids), most first, then by rule. */
    byRule: Type.Array(
      Type.Object({ rule: common.ref.kebab(), count: common.ref.count() }, { additionalProperties: false }),
    ),
    /** The paper's count for the group and its share of the paper's 1,289 blocks; null: the paper has no such group. */
    paper: OneOf([
      Type.Null(),
      Type.Object({ count: common.ref.count(), share: common.ref.unit() }, { additionalProperties: false }),
    ]),
  },
  { additionalProperties: false },
);

/** The NN-RAG paper's corpus-level figures, for the comparison (pipeline/catalog/data/nn-rag-paper.json). */
const paperTotals = Type.Object(
  {
    /** Blocks of the paper's failure analysis (1,289). */
    blocks: common.ref.count(),
    /** Of those, failures of its import-only criterion (348). */
    failures: common.ref.count(),
    /** blocks - failures: the assembled module imports (941). */
    importOk: common.ref.count(),
    /** The repositories its Fig. 2 does not name one by one, counted together (12, 335 blocks). */
    others: Type.Object(
      { repositories: common.ref.count(), blocks: common.ref.count() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** One row of "distributions that would unblock N blocks". */
const unblockRow = Type.Object(
  {
    /** The distribution; with `known: false`, the module's own name: no known distribution provides it. */
    distribution: local.distribution(),
    /**
     * false when no known distribution provides the module (the module table, the corpus's declared requirements and
     * the environment's know none): the site lists it as a module to check, never as a package to install. Absent in
     * older catalogs (read as true).
     */
    known: Type.Optional(
      Type.Boolean({
        description: "false: no known distribution provides the module; the distribution is the module's own name.",
      }),
    ),
    /** Top-level modules the blocks import from it, sorted. */
    modules: Type.Array(local.module()),
    /** Blocked blocks that need it. */
    blocks: common.ref.count(),
    /** Of those, the blocks it alone would unblock (they need nothing else missing). */
    alone: common.ref.count(),
  },
  { additionalProperties: false },
);

const statsFile = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    blocks: common.ref.count(),
    sources: common.ref.count(),
    validation: Type.Object(
      {
        validated: common.ref.count(),
        passed: common.ref.count(),
        failed: common.ref.count(),
        /** Blocks the harness could not run (needs arguments, past the budget, an input it could not make). */
        notRun: common.ref.count(),
        /** Blocked blocks (a distribution not installed): neither passed nor failed. */
        blocked: common.ref.count(),
        /** passed / (passed + failed); null when nothing was attempted. Blocked and not-run blocks are not attempts. */
        passRate: passRate(),
      },
      { additionalProperties: false },
    ),
    /** Blocks unique at each level; absent when dedup did not run. */
    unique: Type.Optional(common.ref.uniqueCounts()),
    /** Multi-label: blocks carrying each category (a block counts under each of its categories). */
    byCategory: common.ref.categoryCounts(),
    /** Blocks per kind, BLOCK_KINDS order: network blocks, transforms, losses (they add up to `blocks`). */
    byKind: Type.Array(
      Type.Object({ kind: common.ref.kind(), count: common.ref.count() }, { additionalProperties: false }),
    ),
    /** Failed blocks by class (not-run and blocked ones are not failures). */
    failureCauses: common.ref.failureCounts(),
    /** Not-run blocks by the harness rule that set them. */
    notRunCauses: harnessCounts(),
    /** NN-RAG table-4 layout: one row per level, cumulative from strictest to loosest. Empty without dedup. */
    dedupTable: Type.Array(dedupTableRow, { maxItems: DEDUP_LEVELS.length }),
    /** Per-repository figures, one row per source, sorted by source id. */
    perSource: Type.Array(sourceFigures, {
      description: 'Per-repository figures (SourceFigures in contract/stats.ts), sorted by sourceId.',
    }),
    /**
     * Blocks that did not pass, grouped as the NN-RAG paper groups its failures, one row per group in CAUSE_GROUPS
     * order (the paper's four first), each beside the paper's count. Absent in older catalogs.
     */
    causeGroups: Type.Optional(
      Type.Array(causeGroupRow, {
        description:
          "Blocks that did not pass, grouped as the NN-RAG paper groups its failures (contract/cause-groups.ts), in CAUSE_GROUPS order, beside the paper's counts.",
        maxItems: CAUSE_GROUPS.length,
      }),
    ),
    /** The paper's corpus-level figures beside ours; absent in older catalogs. */
    paper: Type.Optional(paperTotals),
    /** Distributions that would unblock blocked blocks, most blocks first, then by name. Empty when none is blocked. */
    unblock: Type.Array(unblockRow, {
      description:
        'Distributions that would unblock blocked blocks (UnblockRow in contract/stats.ts), most blocks first.',
    }),
  },
  { additionalProperties: false },
);

/** schemas/catalog/stats.schema.json. */
export const STATS_SCHEMA = schemaFile(
  'catalog/stats.schema.json',
  {
    title: 'nnblocks catalog: stats.json',
    description: 'Headline figures. See pipeline/contract/stats.ts (StatsFile).',
  },
  statsFile,
  definitions,
);

export type StatsFile = Static<typeof statsFile>;
export type HarnessCount = Static<ReturnType<typeof harnessCounts>>[number];
export type DedupTableRow = Static<typeof dedupTableRow>;
export type SourceFigures = Static<typeof sourceFigures>;
export type UnblockRow = Static<typeof unblockRow>;
export type CauseGroupRow = Static<typeof causeGroupRow>;
export type PaperTotals = Static<typeof paperTotals>;
export type KindCount = StatsFile['byKind'][number];
