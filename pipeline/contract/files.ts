// Every published schema file, by its path under schemas/: what `npm run schemas` writes, what a test compares with
// the committed files, and what the validators compile. Adding a catalog file is adding its schema here.
import { BLOCK_SCHEMA, type BlockSpec } from './block.ts';
import { BUILD_INFO_SCHEMA, type BuildInfo } from './build-info.ts';
import { CHANGES_SCHEMA, type ChangeFeed } from './changes.ts';
import { CLUSTERS_SCHEMA, type ClustersFile } from './clusters.ts';
import { COMMON_SCHEMA } from './common.ts';
import { METHODS_SCHEMA, type MethodsFile } from './methods.ts';
import { RUNNER_RECORD_SCHEMA } from './runner-record.ts';
import type { TSchema } from './schema.ts';
import { SOURCES_SCHEMA, type SourcesFile } from './sources.ts';
import { STATS_SCHEMA, type StatsFile } from './stats.ts';

/** The catalog's files with a schema each (`blocks/*.json` use `block`), and the record each holds. */
export interface CatalogFiles {
  block: BlockSpec;
  sources: SourcesFile;
  clusters: ClustersFile;
  stats: StatsFile;
  methods: MethodsFile;
  'build-info': BuildInfo;
  changes: ChangeFeed;
}
export type CatalogSchemaName = keyof CatalogFiles;

/** The catalog's schemas by name; each may refer to `common.schema.json`. */
export const CATALOG_SCHEMAS: Record<CatalogSchemaName, TSchema> = {
  block: BLOCK_SCHEMA,
  sources: SOURCES_SCHEMA,
  clusters: CLUSTERS_SCHEMA,
  stats: STATS_SCHEMA,
  methods: METHODS_SCHEMA,
  'build-info': BUILD_INFO_SCHEMA,
  changes: CHANGES_SCHEMA,
};

export { COMMON_SCHEMA, RUNNER_RECORD_SCHEMA };

/** Every file under schemas/, by path: the catalog's, their shared definitions, the runner's record. */
export const SCHEMA_FILES: Record<string, TSchema> = {
  'catalog/common.schema.json': COMMON_SCHEMA,
  ...Object.fromEntries(Object.entries(CATALOG_SCHEMAS).map(([name, s]) => [`catalog/${name}.schema.json`, s])),
  'runner/record.schema.json': RUNNER_RECORD_SCHEMA,
};
