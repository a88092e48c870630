// What the fixture site hands its search page, checked in the built files: Pagefind's page text holds no control
// of the page (a "Copy" button, a BibTeX entry, table headings), so no excerpt shows one; the name index's shards are
// the ones the page asks for, and every block in them carries the Pagefind id of its own page.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shardOf, type NameShard } from '../../src/lib/name-index-format.ts';
import { pagefindFragments } from '../../src/integrations/name-index-ids.ts';
import { parseHtml } from './helpers/html.ts';
import { BASE, siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
beforeAll(async () => {
  site = await siteFixture();
});

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

  it('writes the shards the search page asks for, each block with its page’s Pagefind id', () => {
    const search = parseHtml(readFileSync(join(site.dist, 'search', 'index.html'), 'utf8')).one('[data-search]');
    expect(search.attr('data-names')).toBe(`${BASE}search/names/`);
    const count = Number(search.attr('data-name-shards'));
    const dir = join(site.dist, 'search', 'names');
    expect(readdirSync(dir).sort()).toEqual(Array.from({ length: count }, (_, n) => `${n}.json`).sort());
    const ids = new Map(pagefindFragments(join(site.dist, 'pagefind')).map((f) => [`${BASE}${f.url.slice(1)}`, f.id]));
    for (let n = 0; n < count; n++) {
      const shard = JSON.parse(readFileSync(join(dir, `${n}.json`), 'utf8')) as NameShard;
      for (const key of Object.keys(shard.keys)) expect(shardOf(key, count)).toBe(n);
      for (const b of shard.blocks) expect(b.id, b.url).toBe(ids.get(b.url));
    }
  });
});
