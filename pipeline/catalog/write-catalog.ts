// Writes the catalog folder (blocks/<slug>.json, sources.json, clusters.json, stats.json, methods.json, build-info.json) with
// sorted keys, replacing the previous build's files, then checks everything against the shipped JSON Schemas.
// See docs/catalog.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockSpec } from '../contract/block.ts';
import type { BuildInfo } from '../contract/build-info.ts';
import type { ClustersFile } from '../contract/clusters.ts';
import type { MethodsFile } from '../contract/methods.ts';
import type { SourcesFile } from '../contract/sources.ts';
import type { StatsFile } from '../contract/stats.ts';
import { fault } from '../util/fault.ts';
import { checkCatalog } from './check-catalog.ts';
import { stableStringify } from './stable-json.ts';

/** The file whose presence says the catalog folder was written whole. */
export const BUILD_INFO = 'build-info.json';

export interface CatalogFiles {
  blocks: BlockSpec[];
  sources: SourcesFile;
  clusters: ClustersFile;
  stats: StatsFile;
  /** The taxonomy's methods and their implementations (methods.ts). */
  methods: MethodsFile;
  buildInfo: BuildInfo;
}

/**
 * Write-then-rename: a build killed mid-write leaves the previous file or the new one, never half of one. A file
 * that holds the text already is left alone: on ext4 a rename over a file flushes the new one's data first, and a
 * warm rebuild of the paper's catalog spent 4 s renaming 3,556 unchanged specs over themselves.
 */
function writeAtomic(file: string, text: string): void {
  const same = existsSync(file) && readFileSync(file, 'utf8') === text;
  if (!same) writeFileSync(`${file}.tmp`, text);
  // A fault point per file either way: a killed build is replayed at the same file whatever was unchanged.
  fault('write');
  if (!same) renameSync(`${file}.tmp`, file);
}

/**
 * `build-info.json` is removed first and written last: it marks a complete catalog, so a build killed half-way
 * through the write leaves a folder that the next build does not mistake for the previous catalog (the change
 * feed then starts a new baseline instead of comparing against half of one).
 */
export function writeCatalog(dir: string, files: CatalogFiles): { errors: string[] } {
  const blocksDir = join(dir, 'blocks');
  mkdirSync(blocksDir, { recursive: true });
  rmSync(join(dir, BUILD_INFO), { force: true });
  // Only our own *.json files are removed: a block gone upstream must not linger in the catalog.
  const keep = new Set(files.blocks.map((b) => `${b.slug}.json`));
  for (const f of readdirSync(blocksDir))
    if ((f.endsWith('.json') && !keep.has(f)) || f.endsWith('.tmp')) rmSync(join(blocksDir, f));
  for (const b of files.blocks) writeAtomic(join(blocksDir, `${b.slug}.json`), stableStringify(b));
  writeAtomic(join(dir, 'sources.json'), stableStringify(files.sources));
  writeAtomic(join(dir, 'clusters.json'), stableStringify(files.clusters));
  writeAtomic(join(dir, 'stats.json'), stableStringify(files.stats));
  writeAtomic(join(dir, 'methods.json'), stableStringify(files.methods));
  writeAtomic(join(dir, BUILD_INFO), stableStringify(files.buildInfo));
  return checkCatalog(dir);
}
