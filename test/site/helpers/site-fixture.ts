// The site tests' fixture: a synthetic catalog and its change feed, built into a site under the project's own
// git-ignored test-artifacts/site-fixture/ (not the system temp folder: Astro's prerender chunks import packages by
// bare name, which resolve only from inside the project). Built once per test run: the first test file to ask
// builds it while holding a lock, the others wait and reuse it. docs/testing.md ("Site tests").
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildSite } from '../../../pipeline/site/build-site.ts';
import { withLock } from '../../../pipeline/sources/lock.ts';
import { makeCatalog, unreplayableBlock, type MadeCatalog } from '../fixtures/make-catalog.ts';
import { makeChanges, type MadeChanges } from '../fixtures/make-changes.ts';
import { SEARCH_BLOCKS } from '../fixtures/search-blocks.ts';

export const BASE = '/nnblocks/';
/** Where the fixture site says it is published: canonical links, citation URLs and sitemap.xml need one. */
export const SITE = 'https://nnblocks.example.org';
const FIXTURE_DIR = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'site-fixture');
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

/** What the builder leaves next to the site: the run it belongs to, and the fixture or the build's error. */
type Stamp = { runId: string } & ({ fixture: SiteFixture } | { error: string });

const STAMP = join(FIXTURE_DIR, 'fixture.json');

function readStamp(): Stamp | null {
  if (!existsSync(STAMP)) return null;
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')) as Stamp;
  } catch {
    return null;
  }
}

/**
 * The fixture site of this test run, built on first use. A failed build throws in every file that asks (with the
 * build's own message), so it fails the suite instead of letting tests skip.
 */
export async function siteFixture(): Promise<SiteFixture> {
  const runId = inject('runId');
  if (!runId)
    throw new Error('no run id: run the site tests through vitest.config.ts (globalSetup test/global-setup.ts)');
  // The lock is the sources stage's: a lock left by a killed run (its pid gone) is taken over, not waited on.
  const stamp = await withLock(
    FIXTURE_DIR,
    async (): Promise<Stamp> => {
      const previous = readStamp();
      if (previous?.runId === runId) return previous;
      const started = Date.now();
      rmSync(STAMP, { force: true });
      try {
        const catalog = makeCatalog({ dir: join(FIXTURE_DIR, 'catalog'), blocks: 60, named: SEARCH_BLOCKS });
        // The feed is written into the catalog with the real pipeline/feed code, as `nnblocks build` does.
        const changes = makeChanges(catalog.dir);
        // Last, a record the schema passes but the replay rules refuse: the site must write no script for it. A
        // record the schema refuses never reaches a page: the site's loader stops the build (catalog-format.test.ts).
        unreplayableBlock(catalog);
        const dist = join(FIXTURE_DIR, 'dist');
        await buildSite({ catalogDir: catalog.dir, outDir: dist, base: BASE, site: SITE });
        const built: Stamp = { runId, fixture: { dist, catalog, changes, buildMs: Date.now() - started } };
        writeFileSync(STAMP, JSON.stringify(built));
        return built;
      } catch (err) {
        const failed: Stamp = { runId, error: String((err as Error).message ?? err) };
        writeFileSync(STAMP, JSON.stringify(failed));
        return failed;
      }
    },
    5 * 60_000,
  );
  if ('error' in stamp) throw new Error(`the fixture site did not build: ${stamp.error}`);
  return stamp.fixture;
}
