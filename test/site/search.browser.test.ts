// Search that finds, in Chromium over the fixture site: blocks found by the names readers use (synonyms
// from pipeline/catalog/data/synonyms.json), exact names first, a failed duplicate never above a passed one, results
// that tell same-named blocks apart; filters that OR within a filter, show counts, hide empty values and clear; a
// parameter sort that keeps every result. The real-world blocks searched for are test/site/fixtures/search-blocks.ts.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip.ts';
import { SCREENSHOTS } from './helpers/site-fixture.ts';
import { noBrowser, openSearch, openSite, rendered, resultRows, type SiteInBrowser } from './helpers/site-browser.ts';

let s: SiteInBrowser | null;
let page: Page;
const named = (key: string) => s!.site.catalog.named[key];
const slugOf = (href: string) => href.replace(/\/$/, '').split('/').pop()!;

async function searchSlugs(term: string): Promise<string[]> {
  await openSearch(s!, `q=${encodeURIComponent(term)}`);
  return (await resultRows(page)).map((r) => slugOf(r.href));
}

beforeAll(async () => {
  s = await openSite();
  if (s) page = s.page;
});
beforeEach((ctx) => {
  if (noBrowser) skipBecause(ctx, noBrowser);
});
afterAll(async () => {
  await s?.close();
});

describe('search finds blocks by the names readers use', () => {
  // Each query, and the block it must find in the top 3 (why: the synonym group that carries it).
  const cases: [query: string, key: string, why: string][] = [
    ['se block', 'squeezeExcitation', 'squeeze-excitation: "SE block" is a term of the group SqueezeExcitation names'],
    ['drop path', 'stochasticDepth', 'drop-path: StochasticDepth is the same idea under another name'],
    ['dropout path', 'stochasticDepth', 'drop-path: "dropout path" is listed as a term'],
    ['conv bn relu', 'conv2dNormActivation', 'conv-norm-activation: the layers spelled out'],
    ['squeeze and excitation', 'squeezeExcitation', 'squeeze-excitation, spelled out'],
  ];
  for (const [query, key, why] of cases) {
    it(`"${query}" finds ${key} in the top 3 (${why})`, async () => {
      expect((await searchSlugs(query)).slice(0, 3)).toContain(named(key).slug);
    });
  }

  it('"depthwise" finds MobileNetV2\'s InvertedResidual, MBConv and CNBlock, one of them in the top 3', async () => {
    const slugs = await searchSlugs('depthwise');
    const wanted = ['mobilenetv2', 'mbconv', 'cnblock'].map((k) => named(k).slug);
    for (const w of wanted) expect(slugs).toContain(w);
    expect(slugs.slice(0, 3).some((x) => wanted.includes(x))).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'search-depthwise.png'), fullPage: true });
  });

  it('ranks the block named exactly as the query first', async () => {
    for (const key of ['squeezeExcitation', 'mbconv', 'cnblock', 'conv2dNormActivation']) {
      const rows = (await openSearch(s!, `q=${named(key).name}`), await resultRows(page));
      expect(slugOf(rows[0].href), key).toBe(named(key).slug);
    }
  });

  it('tells same-named results apart by module, status and size, a failed duplicate below every passed one', async () => {
    await openSearch(s!, 'q=InvertedResidual');
    const rows = (await resultRows(page)).filter((r) => r.title === 'InvertedResidual');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(new Set(rows.map((r) => r.module)).size).toBe(rows.length);
    expect(rows.map((r) => r.module)).toContain(`${named('mobilenetv2').module}.InvertedResidual`);
    for (const r of rows) if (r.status === 'passed') expect(r.params).toMatch(/^[\d,]+ parameters$/);
    const lastPassed = rows.map((r) => r.status).lastIndexOf('passed');
    const firstOther = rows.findIndex((r) => r.status !== 'passed');
    expect(firstOther).toBeGreaterThan(lastPassed);
    expect(rows.find((r) => slugOf(r.href) === named('failedDuplicate').slug)?.status).toBe('failed');
  });
});

describe('search filters and sorting', () => {
  const box = (filter: string, value: string) => page.locator(`input[data-filter="${filter}"][value="${value}"]`);
  const countBeside = async (filter: string, value: string) =>
    Number((await box(filter, value).locator('xpath=..').locator('.count').textContent())!.replace(/,/g, ''));
  const status = async () =>
    Number((await page.locator('[data-status]').textContent())!.match(/^[\d,]+/)![0].replace(/,/g, ''));

  it('gives the union of two values ticked in one filter, each value showing its block count', async () => {
    await openSearch(s!, 'category=Attention');
    const attention = await status();
    expect(attention).toBe(await countBeside('category', 'Attention'));
    await rendered(page, () => box('category', 'MLP').check());
    expect(await status()).toBe(attention + (await countBeside('category', 'MLP')));
    expect(page.url()).toContain('category=Attention&category=MLP');
    const facts = await page.locator('.facts').allTextContents();
    expect(facts.every((f) => /^(Attention|MLP) ·/.test(f))).toBe(true);
  });

  it('clears every filter at once', async () => {
    await openSearch(s!, 'status=passed&license=MIT');
    await expect.poll(() => page.locator('[data-clear]').isVisible()).toBe(true);
    await rendered(page, () => page.click('[data-clear]'));
    expect(await page.locator('input[data-filter]:checked').count()).toBe(0);
    expect(page.url()).not.toContain('status=');
    expect(await page.locator('[data-clear]').isVisible()).toBe(false);
  });

  it('counts values for the query only once the reader turns to the filters, on a catalog too large for more', async () => {
    // Past QUERY_COUNTS_MAX_BLOCKS the page says `on-demand`: a query alone must not load every filter index.
    const searchPage = (url: URL) => url.pathname.endsWith('/search/');
    await page.route(searchPage, async (route) => {
      const res = await route.fetch();
      await route.fulfill({
        response: res,
        body: (await res.text()).replace('data-counts="query"', 'data-counts="on-demand"'),
      });
    });
    try {
      s!.server.served.length = 0;
      await openSearch(s!, 'q=se%20block');
      const note = page.locator('[data-counts-note]');
      await expect
        .poll(() => page.evaluate(() => document.querySelector<HTMLElement>('[data-search]')!.dataset.counted))
        .toBe('1');
      expect(await note.textContent()).toBe('Counts: the whole catalog');
      expect(s!.server.served.some((f) => f.path.includes('/pagefind/filter/'))).toBe(false);
      await page.hover('[data-facets] fieldset');
      await expect.poll(() => note.textContent()).toBe('Counts: results for “se block”');
    } finally {
      await page.unroute(searchPage);
    }
  });

  it('keeps every result when sorted by parameters, blocks without a count last', async () => {
    await openSearch(s!, 'category=Convolution');
    const relevance = await resultRows(page);
    expect(relevance.length).toBeLessThanOrEqual(20); // one page: every row is rendered
    for (const sort of ['params:desc', 'params:asc']) {
      await openSearch(s!, `category=Convolution&sort=${sort}`);
      const rows = await resultRows(page);
      expect(rows.map((r) => r.href).sort(), sort).toEqual(relevance.map((r) => r.href).sort());
      const counts = rows.map((r) => (r.params ? Number(r.params.replace(/\D/g, '')) : null));
      const firstMissing = counts.indexOf(null);
      expect(firstMissing, sort).toBeGreaterThan(0);
      expect(
        counts.slice(firstMissing).every((c) => c === null),
        sort,
      ).toBe(true);
      const known = counts.slice(0, firstMissing) as number[];
      expect(known, sort).toEqual([...known].sort((a, b) => (sort === 'params:desc' ? b - a : a - b)));
    }
  });
});
