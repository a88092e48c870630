// The site step: the static site built from a catalog (at the address site-address.ts decides), and a built site
// served on localhost. See docs/site.md.
import { loadConfig } from '../config/load.ts';
import { defaultSiteDir } from '../config/outputs.ts';
import type { CorpusConfig } from '../config/types.ts';
import { buildSite } from '../site/build-site.ts';
import { serveSite, type ServedSite } from '../site/preview.ts';
import { siteAddress } from './site-address.ts';

export interface BuiltSite {
  dir: string;
  /** HTML pages written (Pagefind's own files excluded). */
  pages: number;
  ms: number;
}

/** `nnblocks build --site`: the site of the catalog in `catalogDir`, into `siteDir` (replaced wholesale). */
export async function buildSiteStep(
  config: CorpusConfig,
  catalogDir: string,
  siteDir: string,
  base?: string,
): Promise<BuiltSite> {
  const address = siteAddress(config, base);
  const built = await buildSite({
    catalogDir,
    outDir: siteDir,
    base: address.base,
    ...(address.url ? { site: address.url } : {}),
  });
  return { dir: siteDir, ...built };
}

/**
 * `nnblocks preview`: serves `dir`, or the folder `nnblocks build --site` writes for the config at `configPath`, at
 * `base` or the base path it was built for. The caller closes it.
 */
export async function previewSite(opts: {
  dir?: string;
  configPath: string;
  base?: string;
  port: number;
  host: string;
}): Promise<ServedSite & { dir: string }> {
  const dir = opts.dir ?? defaultSiteDir(loadConfig(opts.configPath));
  const served = await serveSite({ dir, base: opts.base, port: opts.port, host: opts.host });
  return { ...served, dir };
}
