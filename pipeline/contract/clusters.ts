// `clusters.json` (schemas/catalog/clusters.schema.json): the de-duplication groups with two or more members.
import { common } from './common.ts';
import { schemaFile, Type, type Static } from './schema.ts';

const cluster = Type.Object(
  {
    /** The id referenced by DedupRecord.exactGroup / lexicalCluster / structuralCluster / archHash. */
    id: common.ref.nonEmpty(),
    level: common.ref.dedupLevel(),
    /** Block id kept as the representative. */
    representative: common.ref.nonEmpty(),
    /** Block ids, sorted. */
    members: Type.Array(common.ref.nonEmpty(), { minItems: 2, uniqueItems: true }),
  },
  { additionalProperties: false },
);

const clustersFile = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    /** Groups with two or more members, sorted by level (DEDUP_LEVELS order) then id. */
    clusters: Type.Array(cluster),
  },
  { additionalProperties: false },
);

/** schemas/catalog/clusters.schema.json. */
export const CLUSTERS_SCHEMA = schemaFile(
  'catalog/clusters.schema.json',
  {
    title: 'nnblocks catalog: clusters.json',
    description: 'Duplicate groups with two or more members. See pipeline/contract/clusters.ts (ClustersFile).',
  },
  clustersFile,
);

export type ClustersFile = Static<typeof clustersFile>;
export type Cluster = Static<typeof cluster>;
