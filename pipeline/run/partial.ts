// The record a build hands to the merge: finished block specs (no dedup yet) and what de-duplication needs.
// An unsharded build makes one and merges it at once; `--shard K/N` writes it to OUT/partial.json.
import type { BlockSpec } from '../contract/block.ts';
import type { EnvironmentReport, SandboxReport } from '../contract/build-info.ts';
import type { SourceBuildCounts } from '../catalog/figures.ts';
import type { DedupItem, DedupParams } from '../dedup/types.ts';
import type { SourceSnapshot } from '../sources/types.ts';

export interface PartialBuild {
  formatVersion: 1;
  shard: { k: number; n: number };
  snapshots: SourceSnapshot[];
  specs: BlockSpec[];
  /** The blocks' own code for de-duplication: a build intermediate on the builder's machine, never published. */
  dedupItems: DedupItem[];
  dedupParams: Partial<DedupParams>;
  /** The published site's URL (config `site.url`), for the change feed's Atom links and ids. */
  siteUrl?: string;
  /** The config file relative to the project root (build-info.json `config`). */
  config: string;
  /** The config's `name` (build-info.json `corpusName`); absent in older partials. */
  corpusName?: string;
  timings: Record<string, number>;
  tools: { name: string; version: string }[];
  /** How upstream code ran in this shard's validation (build-info.json `sandbox`); null when no block ran. */
  sandbox: SandboxReport | null;
  /** What this shard validated with (build-info.json `environment`); null when nothing was validated. */
  environment?: EnvironmentReport | null;
  /** Per source, this shard's abstract and extracted blocks (stats.json `perSource`); absent in older partials. */
  sourceCounts?: SourceBuildCounts[];
}
