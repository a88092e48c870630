// Astro configuration for the catalog site: static output from the catalog JSON in content/catalog/.
// Everything environment-specific comes from variables so that `astro build` alone, `buildSite()` and the tests
// share this one file:
//   NNBLOCKS_CATALOG   catalog directory (default content/catalog)
//   NNBLOCKS_OUT_DIR   output directory (default dist)
//   NNBLOCKS_BASE      base path for GitHub Pages project sites, e.g. /nnblocks (default /)
//   NNBLOCKS_SITE      absolute site URL: canonical links, OpenGraph, citation URLs, sitemap.xml (optional)
import { resolve } from 'node:path';
import { defineConfig } from 'astro/config';
import cleanOutput from './src/integrations/clean-output.ts';
import pagefind from './src/integrations/pagefind.ts';
import sitemap from './src/integrations/sitemap.ts';

const root = process.cwd();
const outDir = resolve(root, process.env.NNBLOCKS_OUT_DIR || 'dist');
// Pages read the catalog through process.env at build time; resolve it once here so relative paths mean the
// same thing everywhere.
process.env.NNBLOCKS_CATALOG = resolve(root, process.env.NNBLOCKS_CATALOG || 'content/catalog');
const base = process.env.NNBLOCKS_BASE || '/';

export default defineConfig({
  output: 'static',
  outDir,
  base,
  site: process.env.NNBLOCKS_SITE || undefined,
  trailingSlash: 'always',
  // CSS in shared, cacheable files rather than inlined into each of 10,000 pages; four pages render at once
  // (page rendering mostly waits on file reads).
  build: { format: 'directory', concurrency: 4, inlineStylesheets: 'never' },
  devToolbar: { enabled: false },
  // Order matters: clean first, then index what is left.
  integrations: [cleanOutput(), sitemap(), pagefind()],
});
