// The block page's "Used by" section, checked on the built fixture site without a browser: users in the
// catalog link to their pages, anything else to the upstream line, arguments are text, and a block nothing uses, or
// whose spec predates usage mining, says so. Shares the one site build of the run (helpers/site-fixture.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { parseHtml, type Page } from './helpers/html.ts';
import { BASE, siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
const page = (slug: string): Page => parseHtml(readFileSync(join(site.dist, 'blocks', slug, 'index.html'), 'utf8'));
const spec = (slug: string): BlockSpec =>
  JSON.parse(readFileSync(join(site.catalog.dir, 'blocks', `${slug}.json`), 'utf8'));

beforeAll(async () => {
  site = await siteFixture();
});

describe('"Used by" on a block page', () => {
  it('lists every user, in the order of the spec', () => {
    const used = site.catalog.used!;
    const items = page(used.slug).all('section[data-used-by] li');
    expect(items.map((li) => li.attr('data-via'))).toEqual(spec(used.slug).usedBy!.map((u) => u.via));
    expect(items).toHaveLength(4);
  });

  it('links a user block in the catalog to its page, and the site of the call to the upstream line', () => {
    const used = site.catalog.used!;
    const [inCatalog] = page(used.slug).all('section[data-used-by] li');
    expect(inCatalog.one('a[data-user-block]').attr('href')).toBe(`${BASE}blocks/${used.userSlug}/`);
    expect(inCatalog.one('a[data-permalink]').attr('href')).toMatch(/^https:\/\/.*#L40$/);
    expect(inCatalog.text()).toContain('builds it: (64, 128, stride=2)');
  });

  it('links a user outside the catalog to the upstream file and line, naming its source', () => {
    const used = site.catalog.used!;
    const outside = page(used.slug).all('section[data-used-by] li')[1];
    expect(outside.all('a[data-user-block]')).toHaveLength(0);
    expect(outside.one('a[data-user-upstream]').attr('href')).toBe(used.outsidePermalink);
    expect(outside.text()).toContain('(orphan-nets)');
    // Positions without a published value show as an ellipsis, not as a shorter call.
    expect(outside.text()).toContain('(…, 32)');
  });

  it('shows a zero-argument builder with its arguments as text, never as markup', () => {
    const used = site.catalog.used!;
    const p = page(used.slug);
    const builder = p.one('section[data-used-by] li[data-via="builder"]');
    expect(builder.text()).toContain(used.builder);
    expect(builder.text()).toContain('callable without arguments');
    const [name, ...args] = builder.all('code').map((c) => c.text());
    expect(name).toBe(used.builder);
    expect(args).toContainEqual(
      expect.stringMatching(/^\(\w+, \[3, 4, 6, 3\], label="<script>alert\(6\)<\/script>"\)$/),
    );
    expect(p.all('script').map((s) => s.text())).not.toContainEqual(expect.stringContaining('alert(6)'));
  });

  it('says when nothing builds a block, and when the catalog predates usage mining', () => {
    const slugs = readdirSync(join(site.catalog.dir, 'blocks')).map((f) => f.replace(/\.json$/, ''));
    const bySpec = slugs.map((slug) => ({ slug, usedBy: spec(slug).usedBy }));
    const none = bySpec.find((b) => b.usedBy !== undefined && b.usedBy.length === 0)!;
    const absent = bySpec.find((b) => b.usedBy === undefined)!;
    expect(page(none.slug).one('section[data-used-by]').text()).toContain(
      'Nothing else in the corpus builds this block.',
    );
    expect(page(absent.slug).one('section[data-used-by]').text()).toContain(
      'Usage mining did not run for this catalog.',
    );
  });
});
