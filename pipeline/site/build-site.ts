// `buildSite()`: builds the static catalog site (Astro + Pagefind) from a catalog directory.
// Runs `astro build` in a child process: Astro's memory (10k pages) stays out of the CLI's heap, and the
// environment variables astro.config.mjs reads (catalog dir, output dir, base path) apply to that build only.
// See docs/site.md.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NnblocksError } from '../contract/diagnostics.ts';

const VITE_ENV = new Set(['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR', 'NODE_ENV']);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BuildSiteOptions {
  /** Catalog directory (blocks/, sources.json, ...). */
  catalogDir: string;
  /** Where the site goes; replaced wholesale. */
  outDir: string;
  /** Base path for hosting under a sub-path, e.g. `/nnblocks` on GitHub Pages. Default `/`. */
  base?: string;
  /**
   * Absolute URL the site is published at (`https://example.org`, the origin only; `base` adds the path): canonical
   * links, OpenGraph and citation URLs, and sitemap.xml, which is written only when this is known. Default:
   * `$NNBLOCKS_SITE` when set.
   */
  site?: string;
  /** Receives Astro's output lines (progress); default: discarded. */
  log?: (line: string) => void;
}

export interface BuildSiteResult {
  /** HTML pages written (Pagefind's own files excluded). */
  pages: number;
  ms: number;
}

export async function buildSite(opts: BuildSiteOptions): Promise<BuildSiteResult> {
  const started = Date.now();
  const astroBin = join(dirname(createRequire(import.meta.url).resolve('astro/package.json')), 'astro.js');
  // A parent running under Vite (vitest) exports BASE_URL, MODE, DEV, PROD, SSR; Astro lets process.env
  // override import.meta.env at render time, so those would silently replace the site's base path.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !VITE_ENV.has(k) && !k.startsWith('VITEST')),
  );
  const env = {
    ...inherited,
    NNBLOCKS_CATALOG: resolve(opts.catalogDir),
    NNBLOCKS_OUT_DIR: resolve(opts.outDir),
    NNBLOCKS_BASE: opts.base ?? '/',
    ...(opts.site ? { NNBLOCKS_SITE: opts.site } : {}),
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  const tail: string[] = [];
  const code = await new Promise<number>((done, fail) => {
    const child = spawn(process.execPath, [astroBin, 'build', '--root', repoRoot], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        opts.log?.(line);
        tail.push(line);
        if (tail.length > 40) tail.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('close', (c) => done(c ?? 1));
  });
  if (code !== 0) {
    throw new NnblocksError(
      `astro build failed (exit ${code}):\n${tail.join('\n')}`,
      'site',
      'Check the catalog with checkCatalog(); the last lines above name the page that failed.',
    );
  }
  return { pages: countHtml(resolve(opts.outDir)), ms: Date.now() - started };
}

function countHtml(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== 'pagefind') n += countHtml(join(dir, entry.name));
    } else if (entry.name.endsWith('.html')) n += 1;
  }
  return n;
}
