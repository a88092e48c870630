// The catalog site, built once from a synthetic catalog under a GitHub-Pages-style base path, then driven in
// Debian's Chromium: search, facets, block provenance, copy-to-clipboard, hostile strings, no upstream code,
// and the change feed (/changes/ and /changes.atom).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/catalog/contract.ts';
import { buildSite } from '../../pipeline/site/build-site.ts';
import { makeCatalog, type MadeCatalog } from './fixtures/make-catalog.ts';
import { makeChanges, REMOVED_NAME, type MadeChanges } from './fixtures/make-changes.ts';
import { launchBrowser, type Browser } from './helpers/browser.ts';
import { serveSite, type SiteServer } from './helpers/serve.ts';

const BASE = '/nnblocks/';
const artifacts = join(__dirname, '..', '..', 'test-artifacts', 'site');
const work = mkdtempSync(join(tmpdir(), 'nnblocks-site-'));
const dist = join(work, 'dist');
let catalog: MadeCatalog;
let changes: MadeChanges;
let server: SiteServer;
let browser: Browser;
let page: Page;
const dialogs: string[] = [];

const spec = (slug: string): BlockSpec => JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${slug}.json`), 'utf8'));

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Runs `action` and waits until the search page has rendered a newer result set. */
async function rendered(action: () => Promise<void>): Promise<void> {
  const before = await page.evaluate(() =>
    Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0),
  );
  await action();
  await page.waitForFunction(
    (n) => Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0) > n,
    before,
  );
}

async function search(term: string): Promise<string[]> {
  await page.goto(`${server.url}search/`);
  await rendered(() => page.fill('#search-input', term));
  return page.locator('.result-link').allTextContents();
}

beforeAll(async () => {
  catalog = makeCatalog({ dir: join(work, 'catalog'), blocks: 60 });
  // The feed is written into the catalog with the real pipeline/feed code, as `nnblocks build` does.
  changes = makeChanges(catalog.dir);
  await buildSite({ catalogDir: catalog.dir, outDir: dist, base: BASE });
  server = await serveSite(dist, BASE);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  mkdirSync(artifacts, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('catalog site', () => {
  it('finds the attention block when searching "attention"', async () => {
    const titles = await search('attention');
    expect(titles).toContain(catalog.attention.name);
    await page.screenshot({ path: join(artifacts, 'search.png'), fullPage: true });
  });

  it('narrows results with a category filter', async () => {
    const all = await search('attention');
    // Transformer blocks match through their torch.nn.MultiheadAttention layers; the filter drops them.
    await rendered(() => page.check('input[data-filter="category"][value="Transformer block"]'));
    const facts = await page.locator('.facts').allTextContents();
    expect(facts.length).toBeGreaterThan(0);
    expect(facts.length).toBeLessThan(all.length);
    for (const f of facts) expect(f.startsWith('Transformer block')).toBe(true);
    expect(page.url()).toContain('category=Transformer+block');
  });

  it('shows the SWHID and the permalink on a block page', async () => {
    const s = spec(catalog.attention.slug);
    await page.goto(`${server.url}blocks/${catalog.attention.slug}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe(catalog.attention.name);
    const swhid = page.locator('[data-swhid]');
    expect(await swhid.textContent()).toBe(s.provenance.swhid);
    expect(await swhid.getAttribute('href')).toBe(
      `https://archive.softwareheritage.org/${s.provenance.swhidQualified}`,
    );
    expect(await page.locator('[data-permalink]').getAttribute('href')).toBe(s.provenance.permalink);
    expect(await page.locator('.stub').textContent()).toContain(`class ${s.name}(torch.nn.Module):`);
    await page.screenshot({ path: join(artifacts, 'block.png'), fullPage: true });
  });

  it('copies the BibTeX entry to the clipboard', async () => {
    const s = spec(catalog.attention.slug);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(server.url).origin,
    });
    await page.goto(`${server.url}blocks/${catalog.attention.slug}/`);
    await page.click('button[data-copy="cite-bibtex"]');
    await expect(page.locator('button[data-copy="cite-bibtex"]').textContent()).resolves.toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(s.citation.bibtex);
  });

  it('renders the home page with headline figures', async () => {
    await page.goto(server.url);
    const figures = await page.locator('[aria-label="Headline figures"] .label').allTextContents();
    expect(figures).toEqual(['blocks', 'sources', 'pass validation', 'unique architectures']);
    expect(await page.locator('nav[aria-label="Main"]').count()).toBe(1);
    await page.screenshot({ path: join(artifacts, 'home.png'), fullPage: true });
  });

  it('renders hostile strings as text, never as markup', async () => {
    await page.goto(`${server.url}blocks/${catalog.hostile.slug}/`);
    expect(await page.locator('h1').textContent()).toBe('__proto__');
    const body = (await page.locator('main').textContent()) ?? '';
    for (const payload of catalog.hostile.payloads) expect(body).toContain(payload);
    const injected = await page.evaluate(() => [
      ...[...document.scripts].filter((s) => (s.textContent ?? '').includes('alert(')).map((s) => s.outerHTML),
      ...[...document.querySelectorAll('img')].map((i) => i.outerHTML),
    ]);
    expect(injected).toEqual([]);
    // And through search, whose excerpts are HTML from Pagefind.
    await search('alert');
    expect(await page.locator('.excerpt img, .excerpt script').count()).toBe(0);
    expect(await page.locator('.excerpt').first().textContent()).toContain('<script>alert(1)</script>');
    expect(dialogs).toEqual([]);
  });

  it('publishes no upstream function-body line anywhere in the output', () => {
    for (const file of files(dist)) {
      if (/\.(pf_\w+|pagefind|wasm)$/.test(file)) continue; // gzipped index data; its source text is the HTML checked here
      const text = readFileSync(file, 'utf8');
      for (const line of catalog.upstreamBodyLines)
        expect(text.includes(line.trim()), `${file} contains an upstream line`).toBe(false);
    }
  });

  it('serves browse listings, the JSON API and a 404 without JavaScript', async () => {
    const listing = readFileSync(join(dist, 'blocks', 'index.html'), 'utf8');
    expect(listing).toContain(`href="${BASE}blocks/${catalog.attention.slug}/"`);
    expect(listing).toContain(`href="${BASE}browse/all/params/"`);
    expect(readdirSync(join(dist, 'browse', 'category', 'attention'))).toEqual(['name', 'params', 'status']);
    const api = await (await fetch(`${server.url}api/blocks/${catalog.attention.slug}.json`)).text();
    expect(api).toBe(readFileSync(join(catalog.dir, 'blocks', `${catalog.attention.slug}.json`), 'utf8'));
    const index = (await (await fetch(`${server.url}api/catalog.json`)).json()) as {
      blocks: { slug: string; json: string }[];
    };
    expect(index.blocks).toHaveLength(60);
    expect(index.blocks.find((b) => b.slug === catalog.attention.slug)?.json).toBe(
      `${BASE}api/blocks/${catalog.attention.slug}.json`,
    );
    const missing = await fetch(`${server.url}no/such/page/`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Page not found');
    for (const p of ['stats/index.html', `sources/torchvision/index.html`]) {
      expect(readFileSync(join(dist, p), 'utf8')).toContain('<svg');
    }
  });

  it('supports keyboard navigation and dark mode', async () => {
    await page.goto(server.url);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.click('[data-theme-toggle]');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.screenshot({ path: join(artifacts, 'home-dark.png') });
    await page.click('[data-theme-toggle]');
    await page.keyboard.press('/');
    await page.waitForURL(/\/search\/$/);
  });

  it("lists the latest build's changes on /changes/, in the static HTML", async () => {
    // Served HTML first: everything is there without JavaScript.
    const html = await (await fetch(`${server.url}changes/`)).text();
    for (const kind of ['new', 'removed', 'moved', 'changed']) expect(html).toContain(`data-change="${kind}"`);
    expect(html).not.toContain(REMOVED_NAME); // escaped, never markup

    await page.goto(`${server.url}changes/`);
    expect(await page.locator('[data-generated-at]').textContent()).toBe('2025-01-01T00:00:00Z');
    expect(await page.locator('[data-summary]').textContent()).toMatch(
      /1 new · 1 removed · 1 moved · 1 changed · 1 upstream/,
    );
    // A new block links to its page; a removed one has no page, and its hostile name is text.
    const added = page.locator(`[data-change="new"][data-block-id="${changes.added.id}"] a[data-block-link]`);
    expect(await added.getAttribute('href')).toBe(`${BASE}blocks/${changes.added.slug}/`);
    const removed = page.locator(`[data-change="removed"][data-block-id="${changes.removed.id}"]`);
    expect(await removed.locator('a').count()).toBe(0);
    expect(await removed.locator('.gone').textContent()).toBe(REMOVED_NAME);
    expect(await page.locator('main img').count()).toBe(0);
    // A changed status, before → after.
    const status = page.locator(
      `[data-change="changed"][data-block-id="${changes.statusChanged.id}"] [data-field="validation.status"]`,
    );
    expect(await status.locator('.before').textContent()).toBe('failed: timeout');
    expect(await status.locator('.after').textContent()).toBe('passed');
    expect(
      await page.locator(`[data-change="moved"][data-block-id="${changes.moved.id}"] .from`).textContent(),
    ).toContain('matched by same id');
    expect(await page.locator(`[data-upstream="${changes.bumpedSource}"]`).textContent()).toContain('aaaaaaaaaaaa');
    expect(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent()).toContain('Changes');
    await page.screenshot({ path: join(artifacts, 'changes.png'), fullPage: true });
  });

  it("publishes the Atom feed, linked from every page's head, as a well-formed feed", async () => {
    await page.goto(server.url);
    const link = page.locator('head link[rel="alternate"][type="application/atom+xml"]');
    expect(await link.getAttribute('href')).toBe(`${BASE}changes.atom`);
    const res = await fetch(new URL(`${BASE}changes.atom`, server.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/atom+xml');
    const text = await res.text();
    expect(text).toBe(readFileSync(join(catalog.dir, 'changes.atom'), 'utf8'));
    // Chromium's XML parser: a parse error would give a <parsererror> document.
    const parsed = await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      const ns = 'http://www.w3.org/2005/Atom';
      return {
        error: doc.getElementsByTagName('parsererror').length,
        root: doc.documentElement.namespaceURI + ' ' + doc.documentElement.localName,
        titles: [...doc.getElementsByTagNameNS(ns, 'entry')].map(
          (e) => e.getElementsByTagNameNS(ns, 'title')[0]?.textContent ?? '',
        ),
      };
    }, text);
    expect(parsed.error).toBe(0);
    expect(parsed.root).toBe('http://www.w3.org/2005/Atom feed');
    expect(parsed.titles).toHaveLength(5); // one upstream bump, four block changes
    expect(parsed.titles).toContain(`Removed: ${REMOVED_NAME} (${changes.removed.id.split(':')[0]})`);
    const json = await (await fetch(`${server.url}changes.json`)).json();
    expect(json).toEqual(JSON.parse(JSON.stringify(changes.feed)));
  });
});
