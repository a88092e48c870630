// The site tests' fixtures: a synthetic catalog and its change feed, and torchvision's blocks as its real catalog
// records them, each built into a site under the project's own git-ignored test-artifacts/ (not the system temp
// folder: Astro's prerender chunks import packages by bare name, which resolve only from inside the project). Each
// is built once per test run: the first test file to ask builds it while holding a lock, the others wait and reuse
// it. docs/testing.md ("Site tests").
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildSite } from '../../../pipeline/site/build-site.ts';
import { withLock } from '../../../pipeline/sources/lock.ts';
import { makeCatalog, unreplayableBlock, type MadeCatalog } from '../fixtures/make-catalog.ts';
import { makeChanges, type MadeChanges } from '../fixtures/make-changes.ts';
import { SEARCH_BLOCKS } from '../fixtures/search-blocks.ts';
import { torchvisionBlocks } from '../fixtures/torchvision-blocks.ts';

export const BASE = '/nnblocks/';
/** Where the fixture site says it is published: canonical links, citation URLs and sitemap.xml need one. */
export const SITE = 'https://nnblocks.example.org';
const FIXTURE_DIR = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'site-fixture');
const TORCHVISION_DIR = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'site-torchvision');
/** Screenshots, for people: not compared by any test. */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'site');

export interface SiteFixture {
  /** The built site. */
  dist: string;
  catalog: MadeCatalog;
  changes: MadeChanges;
  /** How long this run's build took, wherever it ran. */
  buildMs: number;
}

/** What the builder leaves next to a site: the run it belongs to, and what it built or the build's error. */
type Stamp<T> = { runId: string } & ({ fixture: T } | { error: string });

function readStamp<T>(file: string): Stamp<T> | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Stamp<T>;
  } catch {
    return null;
  }
}

/**
 * `build()`'s result for this test run, built in `dir` by the first file that asks while the others wait. A failed
 * build throws in every file that asks (with the build's own message), so it fails the suite instead of letting
 * tests skip.
 */
async function builtOncePerRun<T>(dir: string, what: string, build: () => Promise<T>): Promise<T> {
  const runId = inject('runId');
  if (!runId)
    throw new Error('no run id: run the site tests through vitest.config.ts (globalSetup test/global-setup.ts)');
  const stampFile = join(dir, 'fixture.json');
  // The lock is the sources stage's: a lock left by a killed run (its pid gone) is taken over, not waited on.
  const stamp = await withLock(
    dir,
    async (): Promise<Stamp<T>> => {
      const previous = readStamp<T>(stampFile);
      if (previous?.runId === runId) return previous;
      rmSync(stampFile, { force: true });
      let built: Stamp<T>;
      try {
        built = { runId, fixture: await build() };
      } catch (err) {
        built = { runId, error: String((err as Error).message ?? err) };
      }
      writeFileSync(stampFile, JSON.stringify(built));
      return built;
    },
    5 * 60_000,
  );
  if ('error' in stamp) throw new Error(`${what} did not build: ${stamp.error}`);
  return stamp.fixture;
}

/** The fixture site of this test run, built on first use. */
export function siteFixture(): Promise<SiteFixture> {
  return builtOncePerRun(FIXTURE_DIR, 'the fixture site', async () => {
    const started = Date.now();
    const catalog = makeCatalog({ dir: join(FIXTURE_DIR, 'catalog'), blocks: 60, named: SEARCH_BLOCKS });
    // The feed is written into the catalog with the real pipeline/feed code, as `nnblocks build` does.
    const changes = makeChanges(catalog.dir);
    // Last, a record the schema passes but the replay rules refuse: the site must write no script for it. A
    // record the schema refuses never reaches a page: the site's loader stops the build (catalog-format.test.ts).
    unreplayableBlock(catalog);
    const dist = join(FIXTURE_DIR, 'dist');
    await buildSite({ catalogDir: catalog.dir, outDir: dist, base: BASE, site: SITE });
    return { dist, catalog, changes, buildMs: Date.now() - started };
  });
}

/**
 * A site of torchvision's 285 blocks as its real catalog records them (fixtures/torchvision-blocks.ts), at base `/`,
 * for what the synthetic fixture cannot show: researcher queries, real category labels in the charts.
 */
export function torchvisionSite(): Promise<{ dist: string; catalog: MadeCatalog }> {
  return builtOncePerRun(TORCHVISION_DIR, 'the torchvision site', async () => {
    const blocks = torchvisionBlocks();
    const catalog = makeCatalog({ dir: join(TORCHVISION_DIR, 'catalog'), blocks: blocks.length, named: blocks });
    const dist = join(TORCHVISION_DIR, 'dist');
    await buildSite({ catalogDir: catalog.dir, outDir: dist, base: '/' });
    return { dist, catalog };
  });
}
