// What the fixture site hands its search page, checked in the built files: Pagefind's page text holds no control
// of the page (a "Copy" button, a BibTeX entry, table headings), so no excerpt shows one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
beforeAll(async () => {
  site = await siteFixture();
});

/** Pagefind's stored text of every page (gzipped `pagefind_dcd` + JSON). */
function pagefindFragments(dir: string): { url: string; content: string }[] {
  return readdirSync(join(dir, 'fragment')).map((f) => {
    const text = gunzipSync(readFileSync(join(dir, 'fragment', f))).toString('utf8');
    return JSON.parse(text.slice(text.indexOf('{'))) as { url: string; content: string };
  });
}

describe('search index of the fixture site', () => {
  it('indexes no text of the page’s own controls', () => {
    const fragments = pagefindFragments(join(site.dist, 'pagefind'));
    expect(fragments.length).toBe(site.catalog.blocks);
    // The paper list's copy button and BibTeX, the methods' "(matched by ...)" note, the tables' headings.
    const ui = [/\bCopy\b/, /@misc\{/, /every implementation side by side/, /NameAnnotationDefault/, /StageResult/];
    for (const f of fragments) for (const re of ui) expect(f.content, `${f.url}: ${re}`).not.toMatch(re);
    // What a paper list says about a paper stays searchable.
    expect(fragments.some((f) => /Introduced in/.test(f.content))).toBe(true);
  });
});
