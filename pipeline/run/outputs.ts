// Where `nnblocks build` writes: the catalog and the site folders, named on the command line or beside the config
// (config/outputs.ts), checked before any work (util/output-dir.ts): each writable, and the site — which Astro
// empties before it builds — holding neither the catalog, the config nor the cache.
import { dirname, join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { defaultCatalogDir, defaultSiteDir } from '../config/outputs.ts';
import { NnblocksError } from '../contract/diagnostics.ts';
import { within, writableDir } from '../util/output-dir.ts';
import { shellWord } from '../util/shell-word.ts';

export interface BuildOutputs {
  outDir: string;
  /** Null when no site is built: none asked for, or a shard (the site comes after `nnblocks merge`). */
  siteDir: string | null;
}

/** `out` and `site` as `--out` and `--site` gave them (`site: true` for `--site` without a folder). */
export function buildOutputs(
  configPath: string,
  opts: { out?: string; site?: string | boolean; shard?: boolean },
): BuildOutputs {
  const config = loadConfig(configPath);
  const outDir = writableDir(opts.out ?? defaultCatalogDir(config), '--out', 'build');
  if (!opts.site || opts.shard) return { outDir, siteDir: null };
  const siteDir = writableDir(typeof opts.site === 'string' ? opts.site : defaultSiteDir(config), '--site', 'build');
  const held = [
    ['the config', config.configPath],
    ['the cache (cacheDir)', config.cacheDir],
    ['the catalog (--out)', outDir],
  ].find(([, path]) => within(path, siteDir));
  if (held)
    throw new NnblocksError(
      `--site ${siteDir}: holds ${held[0]} (${held[1]}), and the site folder is emptied before each site build`,
      'build',
      `pass a folder of its own for --site, e.g. --site ${shellWord(join(dirname(config.configPath), 'site'))}`,
    );
  return { outDir, siteDir };
}
