// Accessibility and phone layout, in Chromium over the fixture site: axe-core (Deque's rule engine, run
// in the page) finds no serious or critical violation on any page type in light or dark mode; the keyboard reaches
// the first search result a few Tab presses after the query box; on a 390 px phone no page scrolls sideways, the
// navigation stays compact and the filters fold away.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import type { MethodRecord, MethodsFile } from '../../pipeline/contract/methods.ts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip.ts';
import { SCREENSHOTS } from './helpers/site-fixture.ts';
import { noBrowser, openSearch, openSite, type SiteInBrowser } from './helpers/site-browser.ts';

/** axe-core's browser bundle, as text to put into the page. */
const AXE = axe.source;

let s: SiteInBrowser | null;
let page: Page;

/** One path per page type (search with results on screen, blocks passed, failed, hostile; listings, source, stats). */
function pageTypes(): [name: string, path: string][] {
  const c = s!.site.catalog;
  return [
    ['home', ''],
    ['search', 'search/?q=depthwise'],
    ['block', `blocks/${c.named.mbconv.slug}/`],
    ['attention block', `blocks/${c.attention.slug}/`], // its stub holds a comment: the palest code colour
    ['failed block', `blocks/${c.failed['needs-arguments'].slug}/`],
    ['hostile block', `blocks/${c.hostile.slug}/`],
    ['used-by block', `blocks/${c.used!.slug}/`], // a long upstream path in its "Used by" list
    ['listing', 'blocks/'],
    ['browse', 'browse/all/params/'],
    ['sources', 'sources/'],
    ['source', 'sources/torchvision/'],
    ['stats', 'stats/'],
    ['changes', 'changes/'],
    ['methods', 'methods/'],
    ['method', `methods/${methodWithTwoSources(c.dir)}/`],
    ['compare', `compare/?a=${c.named.mbconv.slug}&b=${c.attention.slug}`],
  ];
}

/** A method page of the fixture that lists implementations from two sources (methods.json, written by the pipeline). */
function methodWithTwoSources(dir: string): string {
  const file = JSON.parse(readFileSync(join(dir, 'methods.json'), 'utf8')) as MethodsFile;
  const sources = (m: MethodRecord) => new Set(m.members.map((x) => x.blockId.split(':')[0])).size;
  return file.methods.find((m) => sources(m) >= 2)!.slug;
}

async function open(path: string): Promise<void> {
  if (path.startsWith('search/')) await openSearch(s!, path.slice('search/?'.length));
  else await page.goto(`${s!.server.url}${path}`);
  // The comparison renders after its script fetched both blocks.
  if (path.startsWith('compare/')) await page.waitForSelector('[data-result] table');
}

/** axe-core's violations of impact serious or critical, one line each: rule, impact, first nodes. */
async function seriousViolations(): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    type AxeViolation = { id: string; impact: string | null; nodes: { target: string[]; failureSummary?: string }[] };
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`).join(' | ')}`,
    );
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

describe('accessibility (axe-core)', () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`reports no serious or critical violation on any page type in ${theme} mode`, async () => {
      await page.emulateMedia({ colorScheme: theme });
      const found: string[] = [];
      for (const [name, path] of pageTypes()) {
        await open(path);
        for (const v of await seriousViolations()) found.push(`${name} (${path}): ${v}`);
      }
      expect(found).toEqual([]);
    });
  }

  it('names the theme switch by its visible label', async () => {
    await page.goto(s!.server.url);
    const button = page.locator('[data-theme-toggle]');
    expect(await button.getAttribute('aria-label')).toBeNull();
    expect((await button.textContent())!.trim()).toMatch(/Dark mode$/);
    expect(await button.getAttribute('aria-pressed')).toMatch(/^(true|false)$/);
  });

  it('reaches the first search result within three Tab presses of the query box (results before filters)', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await openSearch(s!, 'q=depthwise');
    await page.focus('#search-input');
    let presses = 0;
    while (presses < 3 && !(await page.evaluate(() => document.activeElement?.classList.contains('result-link')))) {
      await page.keyboard.press('Tab');
      presses++;
    }
    expect(await page.evaluate(() => document.activeElement?.classList.contains('result-link'))).toBe(true);
  });

  it('makes code that scrolls sideways reachable by keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${s!.server.url}blocks/${s!.site.catalog.named.mbconv.slug}/`);
    const scrollers = await page
      .locator('main pre')
      .evaluateAll((pres) =>
        pres
          .filter((p) => p.scrollWidth > p.clientWidth + 1)
          .map((p) => ({ tab: p.tabIndex, name: p.getAttribute('aria-label') ?? p.className })),
      );
    expect(scrollers.length).toBeGreaterThan(0);
    for (const x of scrollers) expect(x.tab, x.name).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});

describe('on a 390 px phone', () => {
  beforeAll(async () => {
    if (s) await page.setViewportSize({ width: 390, height: 844 });
  });
  afterAll(async () => {
    if (s) await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('scrolls no page type sideways', async () => {
    const wide: string[] = [];
    for (const [name, path] of pageTypes()) {
      await open(path);
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      if (w > 390) wide.push(`${name} (${path}): ${w} px`);
    }
    expect(wide).toEqual([]);
    await page.goto(`${s!.server.url}blocks/${s!.site.catalog.named.conv2dNormActivation.slug}/`);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-block.png'), fullPage: true });
  });

  it('keeps the navigation to two lines and breaks identifiers between their parts', async () => {
    await page.goto(`${s!.server.url}blocks/${s!.site.catalog.named.conv2dNormActivation.slug}/`);
    expect(await page.locator('header.site').evaluate((h) => h.getBoundingClientRect().height)).toBeLessThan(100);
    // A <wbr> after each `.` and at camelCase humps: torchvision.<wbr>ops.<wbr>misc.<wbr>Conv2d<wbr>Norm<wbr>Activation
    expect(await page.locator('.lede code wbr').count()).toBe(5);
    expect(await page.locator('.lede code').textContent()).toBe('torchvision.ops.misc.Conv2dNormActivation');
  });

  it('folds the search filters away, results first', async () => {
    await openSearch(s!, 'q=depthwise');
    expect(await page.locator('[data-facets]').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator('.result-link').first().isVisible()).toBe(true);
  });
});
