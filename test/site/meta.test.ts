// Citations and metadata, read off the built fixture site as a reference manager would: the Highwire
// `citation_*` tags and the JSON-LD record Zotero's embedded-metadata translator reads, the BibTeX entries (year,
// version, key), canonical and OpenGraph tags, sitemap.xml against the pages built, the usage snippet, and one
// "unique architectures" figure on the home and stats pages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { citationKey } from '../../pipeline/catalog/citation.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { CITE_KEY_PATTERN } from '../../pipeline/contract/rules.ts';
import { FIXTURE_COMMIT_DATES, FIXTURE_MENTION_ARXIV, FIXTURE_SOURCE_ARXIV } from './fixtures/make-catalog.ts';
import { parseHtml, type Page } from './helpers/html.ts';
import { BASE, SITE, siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
let specs: BlockSpec[];

const page = (path: string): Page => parseHtml(readFileSync(join(site.dist, path, 'index.html'), 'utf8'));
/** Every value of a meta tag, as Zotero collects repeated tags (authors). */
const metas = (p: Page, name: string) => p.all(`head meta[name="${name}"]`).map((m) => m.attr('content'));
const field = (entry: string, name: string) => new RegExp(`^  ${name} = \\{(.*)\\},$`, 'm').exec(entry)?.[1];

function* htmlFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* htmlFiles(path);
    else if (name === 'index.html') yield path;
  }
}

beforeAll(async () => {
  site = await siteFixture();
  const dir = join(site.catalog.dir, 'blocks');
  specs = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as BlockSpec);
});

const gitBlock = () => specs.find((s) => s.sourceId === 'torchvision' && s.validation?.status === 'passed')!;
const releaseBlock = () => specs.find((s) => s.provenance.release && s.validation?.status === 'passed')!;

describe('citation metadata on a block page (Zotero, Google Scholar)', () => {
  it('carries Highwire citation_* tags with a date from the pinned commit', () => {
    const s = gitBlock();
    const p = page(`blocks/${s.slug}/`);
    const url = `${SITE}${BASE}blocks/${s.slug}/`;
    expect(metas(p, 'citation_title')).toEqual([`${s.name} (${s.module})`]);
    expect(metas(p, 'citation_author')).toEqual(['pytorch/vision contributors']);
    // 2022-12-08T23:30:00-08:00: the committer's own day, not the UTC one (09 Dec).
    expect(FIXTURE_COMMIT_DATES.get('torchvision')).toMatch(/^2022-12-08T23/);
    expect(metas(p, 'citation_publication_date')).toEqual(['2022/12/08']);
    expect(metas(p, 'citation_public_url')).toEqual([url]);
    expect(metas(p, 'citation_abstract_html_url')).toEqual([s.provenance.permalink]);
    expect(p.one('head link[rel="canonical"]').attr('href')).toBe(url);
    expect(p.one('head meta[property="og:url"]').attr('content')).toBe(url);
    expect(p.one('head meta[property="og:title"]').attr('content')).toBe(`${s.name} · nnblocks`);
  });

  it('carries a schema.org SoftwareSourceCode record that parses as JSON', () => {
    const s = releaseBlock();
    const p = page(`blocks/${s.slug}/`);
    const [ld] = p.all('head script[type="application/ld+json"]');
    const record = JSON.parse(ld.text()) as Record<string, unknown>;
    expect(record).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'SoftwareSourceCode',
      name: `${s.name} (${s.module})`,
      url: `${SITE}${BASE}blocks/${s.slug}/`,
      codeRepository: s.provenance.repository,
      programmingLanguage: { name: 'Python' },
      version: '1.2.0',
      license: 'https://spdx.org/licenses/MIT.html',
      alternateName: s.citation.key,
    });
    // An installed release has no commit date in the catalog: no date rather than a guessed one.
    expect(record.dateModified).toBeUndefined();
    expect(metas(p, 'citation_publication_date')).toEqual([]);
    const git = JSON.parse(page(`blocks/${gitBlock().slug}/`).one('head script[type="application/ld+json"]').text());
    expect(git.dateModified).toBe('2022-12-08');
  });

  it('names the papers a block was introduced in by title, apart from those its code only mentions', () => {
    const s = specs.find((x) => x.papers?.some((p) => p.arxiv === FIXTURE_SOURCE_ARXIV))!;
    const p = page(`blocks/${s.slug}/`);
    const ld = JSON.parse(p.one('head script[type="application/ld+json"]').text()) as {
      isBasedOn: { name?: string; identifier: string; url: string }[];
      citation: { name?: string; identifier: string }[];
    };
    // The taxonomy knows arXiv:1905.02244 (MobileNetV3): title, authors and year come with it.
    const mnv3 = ld.isBasedOn.find((x) => x.identifier === `arXiv:${FIXTURE_SOURCE_ARXIV}`)!;
    expect(mnv3).toMatchObject({
      name: 'Searching for MobileNetV3',
      url: `https://arxiv.org/abs/${FIXTURE_SOURCE_ARXIV}`,
    });
    expect(ld.citation.map((x) => x.identifier)).toEqual([`arXiv:${FIXTURE_MENTION_ARXIV}`]);
    expect(ld.isBasedOn.map((x) => x.identifier)).not.toContain(`arXiv:${FIXTURE_MENTION_ARXIV}`);
    const refs = metas(p, 'citation_reference');
    expect(refs[0]).toMatch(/^citation_title=\S/);
    expect(refs.find((r) => r?.includes(FIXTURE_SOURCE_ARXIV))).toMatch(
      /^citation_title=Searching for MobileNetV3; citation_author=.*; citation_publication_date=2019; citation_arxiv_id=1905\.02244$/,
    );
    expect(refs.at(-1)).toBe(`citation_arxiv_id=${FIXTURE_MENTION_ARXIV}`);
  });

  it('keeps an upstream name from closing the JSON-LD script (the __proto__ block)', () => {
    const html = readFileSync(join(site.dist, 'blocks', site.catalog.hostile.slug, 'index.html'), 'utf8');
    const ld = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html);
    expect(ld).not.toBeNull();
    expect(JSON.parse(ld![1]).name).toContain('__proto__');
  });
});

describe('BibTeX entries', () => {
  it('are @software with a year, then @codefragment, under one short key shown on the page', () => {
    const s = gitBlock();
    const p = page(`blocks/${s.slug}/`);
    const bibtex = p.one('#cite-bibtex').text();
    const fragment = p.one('#cite-codefragment').text();
    const key = p.one('[data-cite-key]').text();
    expect(bibtex.startsWith(`@software{${key},`)).toBe(true);
    expect(fragment.startsWith(`@codefragment{${key},`)).toBe(true);
    expect(field(bibtex, 'year')).toBe('2022');
    expect(field(fragment, 'swhid')).toBe(s.provenance.swhidQualified);
  });

  it('cite a release by its public version', () => {
    const s = releaseBlock();
    expect(s.provenance.release).toMatchObject({ version: '1.2.0', tag: 'v1.2.0' });
    expect(field(page(`blocks/${s.slug}/`).one('#cite-bibtex').text(), 'version')).toBe('1.2.0');
  });

  it('have keys of at most 30 characters, unique across the catalog and derived from the id alone', () => {
    const keys = specs.map((s) => s.citation.key!);
    expect(new Set(keys).size).toBe(specs.length);
    for (const s of specs) {
      expect(s.citation.key!.length).toBeLessThanOrEqual(30);
      expect(s.citation.key).toMatch(new RegExp(CITE_KEY_PATTERN));
      const year = s.citation.date?.slice(0, 4) ?? null;
      expect(citationKey(s.id, s.sourceId, s.name, year)).toBe(s.citation.key);
    }
  });
});

describe('site-wide metadata', () => {
  it('sitemap.xml lists every page the build wrote, absolute and sorted', () => {
    const xml = readFileSync(join(site.dist, 'sitemap.xml'), 'utf8');
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    const built = [...htmlFiles(site.dist)].map((f) => {
      const dir = relative(site.dist, join(f, '..'));
      return `${SITE}${BASE}${dir ? `${dir}/` : ''}`;
    });
    expect(locs).toEqual([...locs].sort());
    expect(new Set(locs)).toEqual(new Set(built));
    expect(locs).toContain(`${SITE}${BASE}compare/`);
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      ),
    ).toBe(true);
  });

  it('gives every page a canonical URL and OpenGraph title', () => {
    for (const path of ['', 'stats/', 'blocks/', 'compare/']) {
      const p = page(path);
      expect(p.one('head link[rel="canonical"]').attr('href'), path).toBe(`${SITE}${BASE}${path}`);
      expect(p.one('head meta[property="og:title"]').attr('content'), path).toMatch(/nnblocks/);
    }
  });

  it('shows one "unique architectures" figure: the home page and the stats page agree with the blocks', () => {
    const figure = (path: string) => page(path).one('[data-figure="unique-architectures"]').text().trim();
    const fromBlocks = specs.filter((s) => s.dedup?.archHash && s.dedup.unique.architecture).length;
    expect(figure('')).toBe(String(fromBlocks));
    expect(figure('stats/')).toBe(String(fromBlocks));
  });
});

describe('usage snippet, first on a block page', () => {
  it('installs a release with pip at its public version and imports the class from its module', () => {
    const s = releaseBlock();
    const p = page(`blocks/${s.slug}/`);
    expect(p.one('[data-install="pip"]').text()).toBe('pip install fixture-lab==1.2.0');
    expect(p.one('[data-import]').text().split('\n')[0]).toBe(`from ${s.module} import ${s.name}`);
    // First: before the interface.
    const main = p.one('main').text();
    expect(main.indexOf('Use it')).toBeLessThan(main.indexOf('Interface'));
  });

  it('installs a git source at its pinned commit, with a clone as the alternative', () => {
    const s = gitBlock();
    const p = page(`blocks/${s.slug}/`);
    expect(p.one('[data-install="git"]').text()).toBe(
      `pip install git+${s.provenance.repository}@${s.provenance.commit}`,
    );
    expect(p.one('#use-clone').text()).toContain(`checkout ${s.provenance.commit}`);
  });
});
