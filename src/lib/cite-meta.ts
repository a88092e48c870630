// Machine-readable citation metadata for a block page: Highwire Press `citation_*` meta tags (what Zotero's
// "Embedded Metadata" translator and Google Scholar read) and a schema.org `SoftwareSourceCode` JSON-LD record.
// Every value comes from the block's spec (the citation's date and version are the pipeline's, citation.ts); tags
// with nothing real to say are left out (no year without a date).
import type { BlockSpec } from './catalog.ts';

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

/** Highwire tags, in the order Zotero documents them; `pageUrl` is the block page's absolute URL when known. */
export function citationMetaTags(spec: BlockSpec, pageUrl: string | null): MetaTag[] {
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
  return tags;
}

/** schema.org SoftwareSourceCode for the block (https://schema.org/SoftwareSourceCode). */
export function softwareSourceCode(spec: BlockSpec, pageUrl: string | null): Record<string, unknown> {
  const p = spec.provenance;
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
