// Shared set-up of the site's browser tests (browser, search and accessibility files): the fixture site served under
// its base path, one Chromium page, and a way to wait for the search page to render. Each file opens its own browser
// (vitest runs files in separate processes); the site itself is built once per run (site-fixture.ts).
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { CHROMIUM, launchBrowser, type Browser } from './browser.ts';
import { serveSite, type SiteServer } from './serve.ts';
import { BASE, siteFixture, type SiteFixture } from './site-fixture.ts';

/** Why browser tests cannot run here, or null. Only a missing browser skips: a failed site build fails the file. */
export const noBrowser = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set NNBLOCKS_CHROMIUM)`;

export interface SiteInBrowser {
  site: SiteFixture;
  server: SiteServer;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** The fixture site in a fresh Chromium page; null without a browser. */
export async function openSite(): Promise<SiteInBrowser | null> {
  const launching = noBrowser ? Promise.resolve(undefined) : launchBrowser();
  const built = await siteFixture().catch((err: Error) => err);
  const browser = await launching;
  if (built instanceof Error) {
    await browser?.close();
    throw built;
  }
  if (!browser) return null;
  const server = await serveSite(built.dist, BASE);
  const page = await browser.context.newPage();
  return {
    site: built,
    server,
    browser,
    page,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** Runs `action` and waits until the search page has rendered a newer result set. */
export async function rendered(page: Page, action: () => Promise<unknown>): Promise<void> {
  const count = () =>
    page.evaluate(() => Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0));
  const before = await count();
  await action();
  await page.waitForFunction(
    (n) => Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0) > n,
    before,
  );
}

/** Opens /search/ with `query` (a query string without `?`) and waits for its results. */
export async function openSearch(s: Pick<SiteInBrowser, 'page' | 'server'>, query: string): Promise<void> {
  await s.page.goto(`${s.server.url}search/?${query}`);
  await s.page.waitForFunction(
    () => Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0) > 0,
  );
}

/** The result list as rendered: link path, title, status, parameter text (empty when none). */
export async function resultRows(
  page: Page,
): Promise<{ href: string; title: string; status: string; params: string; module: string }[]> {
  return page.locator('[data-results] > li').evaluateAll((lis) =>
    lis.map((li) => ({
      href: li.querySelector('a')!.getAttribute('href')!,
      title: li.querySelector('a')!.textContent!,
      status: li.querySelector('.st')?.className.replace(/^st st-/, '') ?? '',
      params: li.querySelector('.params')?.textContent ?? '',
      module: li.querySelector('.module')?.textContent ?? '',
    })),
  );
}
