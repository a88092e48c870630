// Where a site is published — its base path and its absolute URL — decided here alone: for the site a build makes,
// and for the change feed's Atom links a build writes beside the catalog (docs/site.md, docs/config.md).
import type { CorpusConfig } from '../config/types.ts';

export interface SiteAddress {
  /** The base path the site is served under (`/`, `/nnblocks`). */
  base: string;
  /** The absolute URL it is published at (its origin); absent when nothing says (then links are paths). */
  url?: string;
}

/**
 * The one precedence of a site's address: the command line's `--base`, then the environment (`NNBLOCKS_BASE`,
 * `NNBLOCKS_SITE`: what CI and the action set), then the config (`site.base`, `site.url`), then `/` and no URL.
 * An empty `NNBLOCKS_SITE` says nothing; an empty `NNBLOCKS_BASE` is the root, as Astro reads it.
 */
export function siteAddress(
  config: Pick<CorpusConfig, 'site'>,
  base?: string,
  env: NodeJS.ProcessEnv = process.env,
): SiteAddress {
  const url = env.NNBLOCKS_SITE || config.site?.url;
  return { base: base ?? env.NNBLOCKS_BASE ?? config.site?.base ?? '/', ...(url ? { url } : {}) };
}
