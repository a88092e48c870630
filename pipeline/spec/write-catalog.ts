// Writes the catalog folder (blocks/<slug>.json, sources.json, clusters.json, stats.json, build-info.json) with
// sorted keys, replacing the previous build's files, then checks everything against the shipped JSON Schemas.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockSpec, BuildInfo, ClustersFile, SourcesFile, StatsFile } from './catalog-types.ts';
import { checkCatalog } from './check-catalog.ts';
import { stableStringify } from './stable-json.ts';

export interface CatalogFiles {
  blocks: BlockSpec[];
  sources: SourcesFile;
  clusters: ClustersFile;
  stats: StatsFile;
  buildInfo: BuildInfo;
}

export function writeCatalog(dir: string, files: CatalogFiles): { errors: string[] } {
  const blocksDir = join(dir, 'blocks');
  mkdirSync(blocksDir, { recursive: true });
  // Only our own *.json files are removed: a block gone upstream must not linger in the catalog.
  const keep = new Set(files.blocks.map((b) => `${b.slug}.json`));
  for (const f of readdirSync(blocksDir)) if (f.endsWith('.json') && !keep.has(f)) rmSync(join(blocksDir, f));
  for (const b of files.blocks) writeFileSync(join(blocksDir, `${b.slug}.json`), stableStringify(b));
  writeFileSync(join(dir, 'sources.json'), stableStringify(files.sources));
  writeFileSync(join(dir, 'clusters.json'), stableStringify(files.clusters));
  writeFileSync(join(dir, 'stats.json'), stableStringify(files.stats));
  writeFileSync(join(dir, 'build-info.json'), stableStringify(files.buildInfo));
  return checkCatalog(dir);
}
