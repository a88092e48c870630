// The catalog site in Debian's Chromium, only where a browser is the point: Pagefind search and its filters, the
// clipboard (what a reader can copy off a page holding a forged record), keyboard navigation, the dark-mode toggle,
// and page scripts that run without errors or dialogs.
// Everything readable from the built files is checked in static.test.ts; both share one build per run.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { skipBecause } from '../helpers/skip.ts';
import type { Browser } from './helpers/browser.ts';
import type { SiteServer } from './helpers/serve.ts';
import { SCREENSHOTS, type SiteFixture } from './helpers/site-fixture.ts';
import { noBrowser, openSite, rendered as renderedOn, type SiteInBrowser } from './helpers/site-browser.ts';

let opened: SiteInBrowser | null;
let site: SiteFixture;
let server: SiteServer;
let browser: Browser | undefined;
let page: Page;
const dialogs: string[] = [];
const scriptErrors: string[] = [];

const rendered = (action: () => Promise<void>) => renderedOn(page, action);

async function search(term: string): Promise<string[]> {
  await page.goto(`${server.url}search/`);
  await rendered(() => page.fill('#search-input', term));
  return page.locator('.result-link').allTextContents();
}

beforeAll(async () => {
  // Chromium starts while the site builds (or while another test file builds it).
  opened = await openSite();
  if (!opened) return;
  ({ site, server, browser, page } = opened);
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  page.on('pageerror', (err) => scriptErrors.push(`${page.url()}: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') scriptErrors.push(`${page.url()}: ${m.text()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
});

beforeEach((ctx) => {
  if (noBrowser) skipBecause(ctx, noBrowser);
});

afterAll(async () => {
  await opened?.close();
});

describe('catalog site, in a browser', () => {
  it('finds the attention block when searching "attention"', async () => {
    const titles = await search('attention');
    expect(titles).toContain(site.catalog.attention.name);
    await page.screenshot({ path: join(SCREENSHOTS, 'search.png'), fullPage: true });
  });

  it('narrows results with a category filter, kept in the URL', async () => {
    const all = await search('attention');
    // Transformer blocks match through their torch.nn.MultiheadAttention layers; the filter drops them.
    await rendered(() => page.check('input[data-filter="category"][value="Transformer block"]'));
    const facts = await page.locator('.facts').allTextContents();
    expect(facts.length).toBeGreaterThan(0);
    expect(facts.length).toBeLessThan(all.length);
    for (const f of facts) expect(f.startsWith('Transformer block')).toBe(true);
    expect(page.url()).toContain('category=Transformer+block');
  });

  it('copies the BibTeX entry to the clipboard', async () => {
    const { slug } = site.catalog.attention;
    const s = JSON.parse(readFileSync(join(site.catalog.dir, 'blocks', `${slug}.json`), 'utf8')) as BlockSpec;
    await browser!.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(server.url).origin,
    });
    await page.goto(`${server.url}blocks/${slug}/`);
    await page.screenshot({ path: join(SCREENSHOTS, 'block.png'), fullPage: true });
    await page.click('button[data-copy="cite-bibtex"]');
    // The click handler awaits the clipboard write before it relabels the button: poll, don't read once.
    await expect.poll(() => page.locator('button[data-copy="cite-bibtex"]').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(s.citation.bibtex);
  });

  it('supports keyboard navigation and dark mode', async () => {
    await page.goto(server.url);
    await page.screenshot({ path: join(SCREENSHOTS, 'home.png'), fullPage: true });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.click('[data-theme-toggle]');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.screenshot({ path: join(SCREENSHOTS, 'home-dark.png') });
    // The choice survives a reload (saved before paint, so no flash of the other theme).
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.click('[data-theme-toggle]');
    await page.keyboard.press('/');
    await page.waitForURL(/\/search\/$/);
  });

  it('shows hostile strings in Pagefind excerpts as text', async () => {
    await page.goto(`${server.url}blocks/${site.catalog.hostile.slug}/`);
    // Search excerpts are HTML made by Pagefind at run time: the one place markup is built in the browser.
    await search('alert');
    expect(await page.locator('.excerpt img, .excerpt script').count()).toBe(0);
    // The hostile default and the failure message with markup: each excerpt holds them as text.
    expect((await page.locator('.excerpt').allTextContents()).join('\n')).toContain('<script>alert(1)</script>');
  });

  it('lets a reader copy no replay of a refused recipe: not by selection, not by a copy button', async () => {
    await browser!.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(server.url).origin,
    });
    await page.goto(`${server.url}blocks/${site.catalog.forgeable.slug}/`);
    await page.screenshot({ path: join(SCREENSHOTS, 'block-forged.png'), fullPage: true });
    // What a reader selects and copies is the rendered text (innerText), not the markup.
    const copyable = await page.locator('pre, code').allInnerTexts();
    for (const id of await page.locator('button[data-copy]').evaluateAll((bs) => bs.map((b) => b.dataset.copy!))) {
      await page.evaluate(() => navigator.clipboard.writeText(''));
      await page.click(`button[data-copy="${id}"]`);
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toBe('');
      copyable.push(await page.evaluate(() => navigator.clipboard.readText()));
    }
    expect(copyable.length).toBeGreaterThan(5);
    for (const text of copyable) expect(text).not.toContain('manual_seed(');
  });

  // Last: the pages the tests above did not open, then everything every test saw.
  it('runs every page script without errors or dialogs', async () => {
    for (const [path, shot] of [
      ['changes/', 'changes.png'],
      ['stats/', 'stats.png'],
      [`blocks/${site.catalog.blocked.slug}/`, 'block-blocked.png'],
      [`blocks/${site.catalog.failed['needs-arguments'].slug}/`, 'block-failed.png'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      if (shot) await page.screenshot({ path: join(SCREENSHOTS, shot), fullPage: true });
    }
    expect(scriptErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
