// Astro integration: writes sitemap.xml (sitemaps.org protocol) listing every HTML page the build wrote, once the
// build is done. A sitemap needs absolute URLs, so it is written only when the site's URL is configured
// (NNBLOCKS_SITE or config `site.url`); without one the build says so and writes none. Sorted, no <lastmod>: the
// same catalog gives the same bytes (the catalog's only timestamp is build-info.json's).
import { writeFileSync } from 'node:fs';
import type { AstroIntegration } from 'astro';

/** The protocol's cap per file; past it a sitemap index would be needed (10k blocks make ~11k pages). */
const MAX_URLS = 50_000;

const xml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sitemap for page paths under `base` (paths as Astro reports them: `blocks/x/`, `` for the home page). */
export function sitemapXml(site: URL, base: string, paths: string[]): string {
  const root = new URL(base.replace(/\/?$/, '/'), site.origin);
  const urls = [...new Set(paths)]
    .filter((p) => p === '' || p.endsWith('/'))
    .filter((p) => p !== '404/')
    .map((p) => new URL(p.replace(/^\/+/, ''), root).href)
    .sort();
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls.map((u) => `  <url><loc>${xml(u)}</loc></url>`),
    '</urlset>',
    '',
  ].join('\n');
}

export default function sitemap(): AstroIntegration {
  let site: URL | undefined;
  let base = '/';
  return {
    name: 'nnblocks-sitemap',
    hooks: {
      'astro:config:done': ({ config }) => {
        site = config.site ? new URL(config.site) : undefined;
        base = config.base;
      },
      'astro:build:done': ({ dir, pages, logger }) => {
        if (!site) {
          logger.info('no sitemap.xml: the site URL is not configured (set NNBLOCKS_SITE or config site.url)');
          return;
        }
        const text = sitemapXml(
          site,
          base,
          pages.map((p) => p.pathname),
        );
        const count = text.split('<url>').length - 1;
        if (count > MAX_URLS) logger.warn(`sitemap.xml lists ${count} URLs, past the protocol's ${MAX_URLS}`);
        writeFileSync(new URL('sitemap.xml', dir), text);
        logger.info(`sitemap.xml: ${count} pages`);
      },
    },
  };
}
