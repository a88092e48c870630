// `sources.json` (schemas/catalog/sources.schema.json): one record per source of the corpus, with its pin, its
// license and its blocks counted by outcome.
import { common } from './common.ts';
import { Enum, OneOf, schemaFile, Type, type Static } from './schema.ts';

const source = Type.Object(
  {
    /** Matches SLUG_PATTERN (it appears in URLs). */
    id: common.ref.slug(),
    kind: Enum(['git', 'distribution', 'local']),
    repository: Type.String({ pattern: '^((https?|file)://|local:)' }),
    commit: Type.Optional(common.ref.sha1()),
    release: Type.Optional(common.ref.release()),
    /**
     * A checkout (git or local): whether pip can install it from its repository's top — a setup.py, or a
     * pyproject.toml with [project] or [build-system] (read as data at the sources stage). A block page offers
     * `pip install git+<url>@<commit>` only when true. Absent for an installed distribution and in older catalogs.
     */
    installable: Type.Optional(Type.Boolean()),
    license: common.ref.license(),
    counts: Type.Object(
      {
        blocks: common.ref.count(),
        /** Blocks with a validation record. */
        validated: common.ref.count(),
        passed: common.ref.count(),
        failed: common.ref.count(),
        /**
         * Validated blocks the harness could not run (contract/harness.ts); counted apart from `failed`. Absent in
         * older catalogs, whose `failed` includes them.
         */
        notRun: Type.Optional(common.ref.count()),
        /** Validated blocks that only need a distribution installed; counted apart from `failed`. */
        blocked: common.ref.count(),
      },
      { additionalProperties: false },
    ),
    /**
     * passed / (passed + failed) with a Wilson interval (blocked and not-run blocks are not attempts); null without
     * attempts.
     */
    passRate: OneOf([Type.Null(), common.ref.proportion()]),
    /** Sorted by count descending, then category. */
    byCategory: common.ref.categoryCounts(),
    /** Failed blocks by class, sorted by count descending, then failure class. */
    failureCauses: common.ref.failureCounts(),
    /** Blocks unique at each level (representatives); absent when dedup did not run. */
    unique: Type.Optional(common.ref.uniqueCounts()),
  },
  { additionalProperties: false },
);

const sourcesFile = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    /** Sorted by id. */
    sources: Type.Array(source),
  },
  { additionalProperties: false },
);

/** schemas/catalog/sources.schema.json. */
export const SOURCES_SCHEMA = schemaFile(
  'catalog/sources.schema.json',
  {
    title: 'nnblocks catalog: sources.json',
    description: 'Per-source summary. See pipeline/contract/sources.ts (SourcesFile).',
  },
  sourcesFile,
);

export type SourcesFile = Static<typeof sourcesFile>;
export type SourceRecord = Static<typeof source>;
