// The comparison view: the row logic on two specs, then /compare/?a=…&b=… in Debian's Chromium, reached
// from a block page's "compare with" link: both blocks' interfaces, sizes, composition, similarity and provenance,
// rendered as text (the __proto__ block's HTML default stays text), and a bad slug refused without a fetch.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { checkedSlug, interfaceRows, safeHref, similarity } from '../../src/lib/compare.ts';
import { skipBecause } from '../helpers/skip.ts';
import { CHROMIUM, launchBrowser, type Browser } from './helpers/browser.ts';
import { serveSite, type SiteServer } from './helpers/serve.ts';
import { BASE, SCREENSHOTS, siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

const noBrowser = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

let site: SiteFixture;
let server: SiteServer | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];
const spec = (slug: string): BlockSpec =>
  JSON.parse(readFileSync(join(site.catalog.dir, 'blocks', `${slug}.json`), 'utf8'));

beforeAll(async () => {
  const launching = noBrowser ? Promise.resolve(undefined) : launchBrowser();
  const built = await siteFixture().catch((err: Error) => err);
  browser = await launching;
  if (built instanceof Error) throw built;
  site = built;
  if (!browser) return;
  server = await serveSite(site.dist, BASE);
  page = await browser.context.newPage();
  page.on('dialog', async (d) => {
    problems.push(`dialog: ${d.message()}`);
    await d.dismiss();
  });
  page.on('pageerror', (err) => problems.push(`${page.url()}: ${err.message}`));
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('comparison rows', () => {
  it('lines up constructor parameters by name and marks the ones that differ', () => {
    const a = spec(site.catalog.attention.slug);
    const b = spec(site.catalog.hostile.slug);
    const rows = interfaceRows(a, b);
    const dim = rows.find((r) => r.label === 'dim')!;
    expect(dim).toEqual({ label: 'dim', a: 'dim: int', b: 'dim: int', differs: false });
    expect(rows.find((r) => r.label === 'num_heads')).toMatchObject({ b: null, differs: true });
    expect(rows.find((r) => r.label === 'label')).toMatchObject({ a: null, differs: true });
  });

  it('marks a default written two ways for one number (0. and 0.0) the same, shown as each source writes it', () => {
    const a = spec(site.catalog.attention.slug);
    const b = spec(site.catalog.attention.slug);
    const param = (text: string, value: number) =>
      ({ name: 'p', kind: 'positional', annotation: 'float', default: text, defaultLiteral: value }) as const;
    a.interface.constructorParams = [param('0.', 0), { ...param('1e-5', 1e-5), name: 'eps' }];
    b.interface.constructorParams = [param('0.0', 0), { ...param('0.00001', 0.00001), name: 'eps' }];
    const rows = interfaceRows(a, b);
    expect(rows).toEqual([
      { label: 'p', a: 'p: float = 0.', b: 'p: float = 0.0', differs: false },
      { label: 'eps', a: 'eps: float = 1e-5', b: 'eps: float = 0.00001', differs: false },
    ]);
    // Another value, or the same text under another annotation, still differs.
    b.interface.constructorParams = [param('0.1', 0.1), { ...param('1e-5', 1e-5), name: 'eps', annotation: 'int' }];
    expect(interfaceRows(a, b).map((r) => r.differs)).toEqual([true, true]);
  });

  it('reads similarity either way and the clusters two blocks share', () => {
    const a = spec(site.catalog.attention.slug);
    const near = a.dedup!.nearest[0];
    // B as its neighbour, listing nobody: the score comes from A's side, the shared architecture from the hash.
    const b: BlockSpec = { ...a, id: near.id, dedup: { ...a.dedup!, nearest: [] } };
    expect(similarity(a, b).score).toBe(near.similarity);
    expect(similarity(a, b).shared).toContain('architecture');
  });

  it('refuses anything but a slug, and any link but http(s)', () => {
    expect(checkedSlug('torchvision-se-3')).toBe('torchvision-se-3');
    for (const bad of ['../../etc/passwd', 'A', '', 'x y', 'x/../y', null]) expect(checkedSlug(bad)).toBeNull();
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('https://github.com/x/y/blob/abc/f.py#L1-L2')).toBe('https://github.com/x/y/blob/abc/f.py#L1-L2');
  });
});

describe('/compare/ in a browser', () => {
  beforeEach((ctx) => {
    if (noBrowser) skipBecause(ctx, noBrowser);
  });

  it('opens from a block page with its most similar block, and shows both side by side as text', async () => {
    const a = spec(site.catalog.hostile.slug);
    await page.goto(`${server!.url}blocks/${a.slug}/`);
    await page.click('a[data-compare-link]');
    await page.waitForSelector('[data-result] table');
    const url = new URL(page.url());
    expect(url.pathname).toBe(`${BASE}compare/`);
    expect(url.searchParams.get('a')).toBe(a.slug);
    const bSlug = url.searchParams.get('b')!;
    const b = spec(bSlug);
    const text = await page.locator('[data-result]').innerText();
    expect(text).toContain(`${a.name} vs ${b.name}`);
    for (const heading of ['Interface', 'Size and status', 'Composition', 'Provenance'])
      expect(text).toContain(heading);
    // The HTML default of the hostile block is shown as text; nothing was injected.
    expect(text).toContain("'<script>alert(1)</script>'");
    expect(await page.locator('[data-result] script, [data-result] img').count()).toBe(0);
    expect(text).toContain(`Similarity ${Math.round(a.dedup!.nearest[0].similarity * 100)}%`);
    // Sizes at the test configuration, both sides.
    const size = page.locator('tr[data-row="Parameters (test configuration)"] td');
    expect(await size.allTextContents()).toEqual(
      [a, b].map((s) => (s.validation?.params === undefined ? '—' : s.validation.params.toLocaleString('en-US'))),
    );
    expect(await page.locator('tr.differs').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'compare.png'), fullPage: true });
  });

  it('says what is wrong with a bad slug or a missing block, without errors', async () => {
    await page.goto(`${server!.url}compare/?a=${encodeURIComponent('../x')}&b=y`);
    await expect.poll(() => page.locator('[data-status]').textContent()).toMatch(/Give two block slugs/);
    await page.goto(`${server!.url}compare/?a=no-such-block&b=${site.catalog.attention.slug}`);
    await expect
      .poll(() => page.locator('[data-status]').textContent())
      .toMatch(/Could not load: no block “no-such-block”/);
    expect(problems.filter((p) => !p.includes('404'))).toEqual([]);
  });
});
