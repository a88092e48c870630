// Where a build's outputs go when the command line names no folder: beside the config, never in the folder the
// command happens to run from. The cache is the config's `cacheDir` (load.ts); these are the catalog and the site.
// See docs/config.md ("Where outputs go").
import { dirname, join } from 'node:path';
import type { CorpusConfig } from './types.ts';

/**
 * `<config folder>/catalog`: `content/catalog` for this project's `content/corpus.json`, `~/research/catalog` for
 * `~/research/corpus.json`. Two configs in one folder share it; the change feed then starts a new baseline rather than
 * compare one corpus with the other (pipeline/run/merge.ts).
 */
export function defaultCatalogDir(config: Pick<CorpusConfig, 'configPath'>): string {
  return join(dirname(config.configPath), 'catalog');
}

/**
 * `dist/` at the project root for a config in a `content/` folder (this project's layout, where `npx astro build` and
 * `npm run catalog` build the site too); else `<config folder>/site`, since a Python repository's own `dist/` holds
 * its wheels and the site folder is replaced wholesale.
 */
export function defaultSiteDir(config: Pick<CorpusConfig, 'configPath' | 'projectRoot'>): string {
  const folder = dirname(config.configPath);
  return folder === config.projectRoot ? join(folder, 'site') : join(config.projectRoot, 'dist');
}
