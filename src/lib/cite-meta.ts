// Machine-readable citation metadata for a block page: Highwire Press `citation_*` meta tags (what Zotero's
// "Embedded Metadata" translator and Google Scholar read) and a schema.org `SoftwareSourceCode` JSON-LD record.
// Every value comes from the block's spec (the citation's date and version are the pipeline's, citation.ts); tags
// with nothing real to say are left out (no year without a date). The papers a block was introduced in and those its
// code mentions go in as references, with the title, authors and year the taxonomy gives them (methods.json); a paper
// known only by its id goes in by its id.
import type { PaperRecord } from '../../pipeline/contract/methods.ts';
import type { BlockSpec } from './catalog.ts';
import { isIntroduction } from './papers.ts';
import { paperHref } from './routes.ts';

/** The taxonomy's record of a paper (`paperById` in catalog.ts), or undefined when it knows only the id. */
export type PaperLookup = (id: string) => PaperRecord | undefined;

/** An absolute URL for a site path (`/nnblocks/blocks/x/`), or null when the site's URL is not configured. */
export function absoluteUrl(site: URL | undefined, path: string): string | null {
  return site ? new URL(path, site.origin).href : null;
}

export interface MetaTag {
  name: string;
  content: string;
}

/** `pytorch/vision contributors`: the author every citation of a block names (as citation.ts writes it). */
export function authorOf(spec: BlockSpec): string {
  const owner = spec.provenance.repository.replace(/^[a-z]+:\/\/[^/]*\//, '').replace(/\/+$/, '');
  return `${owner || spec.provenance.repository} contributors`;
}

export const citeTitle = (spec: BlockSpec) => `${spec.name} (${spec.module})`;

/** A value inside a `citation_reference` (`;`-separated `key=value` pairs): no separator of its own. */
const refValue = (text: string) => text.replace(/[;\s]+/g, ' ').trim();

/**
 * One Highwire `citation_reference` per paper, introductions first: `citation_title=...; citation_author=...;
 * citation_publication_date=<year>; citation_arxiv_id=<id>` (or `citation_doi`), the form Google Scholar reads.
 */
function referenceTags(spec: BlockSpec, paperOf: PaperLookup): MetaTag[] {
  const papers = [...(spec.papers ?? [])].sort((a, b) => Number(isIntroduction(b)) - Number(isIntroduction(a)));
  return papers.map((p) => {
    const r = paperOf(p.id);
    const fields = [
      ...(r ? [`citation_title=${refValue(r.title)}`, ...r.authors.map((a) => `citation_author=${refValue(a)}`)] : []),
      ...(r ? [`citation_publication_date=${r.year}`] : []),
      p.arxiv ? `citation_arxiv_id=${p.arxiv}` : `citation_doi=${refValue(p.doi ?? '')}`,
    ];
    return { name: 'citation_reference', content: fields.join('; ') };
  });
}

/**
 * Highwire tags, in the order Zotero documents them; `pageUrl` is the block page's absolute URL when known,
 * `paperOf` the taxonomy's paper records (titles of the papers the block cites).
 */
export function citationMetaTags(
  spec: BlockSpec,
  pageUrl: string | null,
  paperOf: PaperLookup = () => undefined,
): MetaTag[] {
  const p = spec.provenance;
  // No version tag: Highwire has none for software, and citation_technical_report_number makes Zotero file a report.
  // A whole day from the commit, else the release's date as the config states it (`2022-12`: year and month).
  const date = spec.citation.date ?? spec.provenance.release?.date;
  const tags: MetaTag[] = [
    { name: 'citation_title', content: citeTitle(spec) },
    { name: 'citation_author', content: authorOf(spec) },
  ];
  if (date) {
    // Highwire wants YYYY/MM/DD; Scholar also reads the year alone.
    tags.push({ name: 'citation_publication_date', content: date.replace(/-/g, '/') });
    tags.push({ name: 'citation_date', content: date.replace(/-/g, '/') });
  }
  tags.push({ name: 'citation_publisher', content: p.repository });
  if (pageUrl) tags.push({ name: 'citation_public_url', content: pageUrl });
  tags.push({ name: 'citation_abstract_html_url', content: p.permalink });
  tags.push({ name: 'citation_keywords', content: `${spec.categories.join('; ')}; PyTorch; neural-network block` });
  tags.push({ name: 'citation_language', content: 'en' });
  tags.push(...referenceTags(spec, paperOf));
  return tags;
}

/** A paper as a schema.org ScholarlyArticle: its title, authors and year when the taxonomy knows them, its id always. */
function scholarlyArticle(p: NonNullable<BlockSpec['papers']>[number], paperOf: PaperLookup): Record<string, unknown> {
  const r = paperOf(p.id);
  return {
    '@type': 'ScholarlyArticle',
    ...(r
      ? { name: r.title, author: r.authors.map((name) => ({ '@type': 'Person', name })), datePublished: String(r.year) }
      : {}),
    url: paperHref(p),
    identifier: p.arxiv ? `arXiv:${p.arxiv}` : `doi:${p.doi}`,
  };
}

/**
 * schema.org SoftwareSourceCode for the block (https://schema.org/SoftwareSourceCode): the papers it was introduced
 * in as `isBasedOn` (the work the code implements), those its code only mentions as `citation`.
 */
export function softwareSourceCode(
  spec: BlockSpec,
  pageUrl: string | null,
  paperOf: PaperLookup = () => undefined,
): Record<string, unknown> {
  const p = spec.provenance;
  const introduced = (spec.papers ?? []).filter(isIntroduction).map((x) => scholarlyArticle(x, paperOf));
  const mentioned = (spec.papers ?? []).filter((x) => !isIntroduction(x)).map((x) => scholarlyArticle(x, paperOf));
  const date = spec.citation.date;
  const version = spec.citation.version ?? p.commit;
  return {
    '@context': 'https://schema.org',
    '@type': 'SoftwareSourceCode',
    name: citeTitle(spec),
    ...(pageUrl ? { url: pageUrl, '@id': pageUrl } : {}),
    codeRepository: p.repository,
    programmingLanguage: { '@type': 'ComputerLanguage', name: 'Python' },
    runtimePlatform: 'PyTorch',
    author: { '@type': 'Organization', name: authorOf(spec) },
    ...(version ? { version } : {}),
    ...(date ? { dateModified: date } : {}),
    ...(p.license.spdx !== 'NOASSERTION' ? { license: `https://spdx.org/licenses/${p.license.spdx}.html` } : {}),
    identifier: [p.swhid, p.permalink],
    sameAs: p.permalink,
    ...(spec.citation.key ? { alternateName: spec.citation.key } : {}),
    ...(introduced.length ? { isBasedOn: introduced } : {}),
    ...(mentioned.length ? { citation: mentioned } : {}),
  };
}

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>` and `&` as \u escapes, so no string in it (an upstream
 * name included) can close the script element or open a comment; JSON parsers read it back unchanged.
 */
export function jsonLdText(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
