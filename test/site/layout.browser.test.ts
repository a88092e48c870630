// Pictures and pages that fit, in Chromium over the fixture site: no SVG text drawn outside its picture — the
// diagram's "+N inside" notes (drawn in full, not "+2 insid"), the charts' labels and values — and, on a 390 px
// phone, no sideways scroll on the pages that held the widest text: a network its builder made (sizes and outputs
// at builder configurations, a deep diagram) and the stats and source pages.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip.ts';
import { serveSite, type SiteServer } from './helpers/serve.ts';
import { noBrowser, openSite, type SiteInBrowser } from './helpers/site-browser.ts';
import { torchvisionSite } from './helpers/site-fixture.ts';

let s: SiteInBrowser | null;
let page: Page;
/** torchvision's site: its charts carry the real category labels ("Detection and segmentation"). */
let tv: SiteServer | undefined;

beforeAll(async () => {
  s = await openSite();
  if (s) page = s.page;
  if (s) tv = await serveSite((await torchvisionSite()).dist, '/');
});
beforeEach((ctx) => {
  if (noBrowser) skipBecause(ctx, noBrowser);
});
afterAll(async () => {
  await s?.close();
  await tv?.close();
});

/** Every <text> of every <svg> on the page whose rendered box leaves its picture's viewBox, as a line each. */
function textsOutside(): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('svg')].flatMap((svg) => {
      const width = svg.viewBox.baseVal?.width || svg.width.baseVal.value;
      return [...svg.querySelectorAll('text')].flatMap((t) => {
        const b = t.getBBox();
        return b.x < -0.5 || b.x + b.width > width + 0.5
          ? [`"${t.textContent}": ${b.x.toFixed(1)}..${(b.x + b.width).toFixed(1)} of ${width}`]
          : [];
      });
    }),
  );
}

const svgTexts = (selector: string) => page.locator(`${selector} text`).allTextContents();

describe('pictures', () => {
  it('draws every label and note of a diagram inside it, a folded level’s "+N inside" in full', async () => {
    await page.goto(`${s!.server.url}blocks/${s!.site.catalog.built.slug}/`);
    expect((await svgTexts('svg.diagram')).some((t) => /\+2 inside$/.test(t))).toBe(true);
    expect(await textsOutside()).toEqual([]);
  });

  it('draws every chart label and value inside its chart, a long category whole', async () => {
    for (const url of [s!.server.url, tv!.url].flatMap((u) => [`${u}stats/`, `${u}sources/torchvision/`])) {
      await page.goto(url);
      expect(await textsOutside(), url).toEqual([]);
    }
    await page.goto(`${tv!.url}stats/`);
    expect(await svgTexts('figure.chart')).toContain('Detection and segmentation');
  });
});

describe('on a 390 px phone', () => {
  beforeAll(async () => {
    if (s) await page.setViewportSize({ width: 390, height: 844 });
  });
  afterAll(async () => {
    if (s) await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('scrolls no page sideways where the widest facts and pictures are', async () => {
    const built = `blocks/${s!.site.catalog.built.slug}/`;
    await page.goto(`${s!.server.url}${built}`);
    // The facts that were widest: a term longer than a phone's share of the card.
    expect(await page.locator('dl.facts dt', { hasText: 'Output at builder configurations' }).count()).toBe(1);
    for (const url of [`${s!.server.url}${built}`, `${tv!.url}stats/`, `${tv!.url}sources/torchvision/`]) {
      await page.goto(url);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), url).toBeLessThanOrEqual(390);
      expect(await textsOutside(), url).toEqual([]);
    }
  });
});
