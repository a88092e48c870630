// Reading the previous catalog: from a published site over real HTTP, from a built site directory and from a
// listing file give the same diff as the catalog directory; anything unreachable or malformed is a diagnostic
// and "no previous catalog", never a crash.
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffCatalogs } from '../../pipeline/feed/diff.ts';
import { readCurrentCatalog, readPrevious } from '../../pipeline/feed/read-snapshot.ts';
import { makeFeedFixture, publishSite, type FeedFixture } from './fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-read-'));
let fx: FeedFixture;
let site: string;
let server: Server;
let siteUrl: string;

/** A static file server for the site directory, mounted under /nnblocks/ like a GitHub Pages project site. */
function serve(root: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path.replace(/^\/nnblocks\//, '/')));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

/** A port nothing listens on: bind one, then close it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

beforeAll(async () => {
  fx = makeFeedFixture(work);
  site = join(work, 'site');
  publishSite(fx.previous, site);
  server = await serve(site);
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/nnblocks/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** The diff without `previous.origin` and `builtAt`: where it was read from, and what only a catalog directory has. */
async function diffFrom(location: string) {
  const { snapshot, diagnostics } = await readPrevious(location);
  const feed = diffCatalogs(snapshot, readCurrentCatalog(fx.current), diagnostics);
  return { ...feed, previous: feed.previous && { blocks: feed.previous.blocks, origin: '' } };
}

describe('readPrevious', () => {
  it('reads a published site over HTTP, its listing URL, a built site and a listing file like the catalog directory', async () => {
    const expected = await diffFrom(fx.previous);
    expect(expected.changes.length).toBeGreaterThan(0);
    for (const location of [siteUrl, `${siteUrl}api/catalog.json`, site, join(site, 'api', 'catalog.json')]) {
      const got = await diffFrom(location);
      expect(got.diagnostics, location).toEqual([]);
      expect(got, location).toEqual(expected);
    }
  });

  it('falls back to summaries for block files it cannot fetch, and says so', async () => {
    const partial = join(work, 'partial-site');
    publishSite(fx.previous, partial);
    // A failed block: its summary says `failed`, its spec `failed: <class>`; that must not read as a change.
    const slug = readCurrentCatalog(fx.previous).blocks.find((b) => b.spec?.validation?.status === 'failed')!.slug;
    rmSync(join(partial, 'api', 'blocks', `${slug}.json`));
    const { snapshot, diagnostics } = await readPrevious(partial);
    expect(snapshot!.blocks.find((b) => b.slug === slug)!.spec).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual(['previous-block-unavailable']);
    // Summary facts (status, parameter count, license) are still compared; nothing crashes.
    const feed = diffCatalogs(snapshot, readCurrentCatalog(fx.current), diagnostics);
    expect(feed.previous!.blocks).toBe(snapshot!.blocks.length);
    expect(diffCatalogs(snapshot, readCurrentCatalog(fx.previous)).changes).toEqual([]);
  });

  it('treats an unreachable URL as no previous catalog', async () => {
    const port = await closedPort();
    const { snapshot, diagnostics } = await readPrevious(`http://127.0.0.1:${port}/`, { timeoutMs: 10_000 });
    expect(snapshot).toBeNull();
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'previous-unreachable', severity: 'warning', stage: 'feed' }),
    ]);
    expect(diagnostics[0].message).toContain(`127.0.0.1:${port}/api/catalog.json`);
  });

  it('treats HTTP errors, missing paths, wrong formats and junk as no previous catalog', async () => {
    const junk = join(work, 'junk.json');
    writeFileSync(junk, '{"formatVersion": 2, "blocks": [{"id": "x", "slug": "../../etc/passwd"}], "sources": []}');
    const future = join(work, 'future.json');
    writeFileSync(future, '{"formatVersion": 3, "blocks": [], "sources": []}');
    const notJson = join(work, 'not.json');
    writeFileSync(notJson, '<html>oops</html>');
    const cases: [string, string][] = [
      [`${siteUrl}missing/catalog.json`, 'previous-not-found'],
      [join(work, 'nowhere'), 'previous-not-found'],
      [junk, 'previous-invalid'],
      [future, 'previous-format'],
      [notJson, 'previous-invalid'],
      [work, 'previous-not-found'],
    ];
    for (const [location, code] of cases) {
      const { snapshot, diagnostics } = await readPrevious(location);
      expect(snapshot, location).toBeNull();
      expect(
        diagnostics.map((d) => d.code),
        location,
      ).toEqual([code]);
    }
  });
});
