// How to cite one block: a BibTeX `@software` entry (plain BibTeX and biblatex both read it; APA styles get a year),
// a biblatex-software `@codefragment` as the precise alternative, a CITATION.cff fragment and plain text.
//
// Decisions:
// - The year and date come from a real record: the pinned commit's committer date (sources stage, `git show
//   --format=%cI`). An installed distribution has no such record offline, so its entries carry no year rather
//   than a guessed one.
// - The version cited is the release the permalink pins. PEP 440 splits a version into a public part and a local
//   label after `+` (`0.14.1+cpu` → public `0.14.1`), and local labels are never part of a published release, so
//   they are always dropped. A pre-release (`0.14.1a0`) *is* a public version by PEP 440; it is replaced only when
//   the source matched a release tag (`v0.14.1`): torchvision's release branches ship `0.14.1a0` in version.txt
//   for the 0.14.1 release, and the tag is what the permalink pins.
// - Keys are short (≤ CITE_KEY_MAX characters), deterministic and collision-safe: `<source><year><name>` cut to
//   fit, then `-` and 5 hex digits of the block id's SHA-256, so two blocks of one name (3 × InvertedResidual)
//   never share a key; checkCatalog refuses a catalog where two do anyway.
import { createHash } from 'node:crypto';
import type { Citation, Provenance } from '../contract/provenance.ts';

/** Longest citation key written (the issue's readers cite from LaTeX, where 70-character keys hurt). */
export const CITE_KEY_MAX = 30;

/**
 * The public version of a PEP 440 version: everything before the local label (`+...`), normalized to lower case.
 * `0.14.1+cpu` → `0.14.1`; `2.6.0` → `2.6.0`; `0.14.1a0` → `0.14.1a0` (a pre-release is public).
 */
export function publicVersion(version: string): string {
  return version.trim().split('+')[0].toLowerCase();
}

/** `v0.14.1` → `0.14.1`; null for a tag that is not a plain release (`main`, `nightly`). */
function tagRelease(tag: string | undefined): string | null {
  const m = tag ? /^v?((?:\d+!)?\d+(?:\.\d+)*)$/.exec(tag) : null;
  return m ? m[1] : null;
}

/** The version a citation names: the release tag's when one was matched, else the public version; null for git. */
export function citedVersion(prov: Provenance): string | null {
  if (!prov.release) return null;
  return tagRelease(prov.release.tag) ?? publicVersion(prov.release.version);
}

/**
 * `2022-12-08T17:19:36+01:00` → `{ year: '2022', date: '2022-12-08' }` (the committer's own calendar day). A release
 * without a commit dates from the config's `releaseDate`: `2022-12` → `{ year: '2022', date: '2022-12' }` (biblatex
 * takes what precision there is; CITATION.cff's `date-released` and the catalog's `citation.date` only a whole day).
 */
export function citedDate(prov: Provenance): { year: string; date: string } | null {
  const m = prov.commitDate ? /^(\d{4})-(\d{2})-(\d{2})T/.exec(prov.commitDate) : null;
  if (m) return { year: m[1], date: `${m[1]}-${m[2]}-${m[3]}` };
  const r = prov.release?.date ? /^(\d{4})(-\d{2}(-\d{2})?)?$/.exec(prov.release.date) : null;
  return r ? { year: r[1], date: prov.release!.date! } : null;
}

/** `torchvision2022squeezeexc-3f9a1`: ≤ CITE_KEY_MAX, lowercase ASCII, digits and one `-`. */
export function citationKey(id: string, sourceId: string, name: string, year: string | null): string {
  const word = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 5);
  const head = `${word(sourceId).slice(0, 12) || 'src'}${year ?? ''}${word(name) || 'block'}`;
  return `${head.slice(0, CITE_KEY_MAX - hash.length - 1)}-${hash}`;
}

/** BibTeX values are brace-delimited: balance-breaking braces and backslashes are escaped. */
function bib(value: string): string {
  return value.replace(/[\\{}]/g, (c) => `\\${c}`);
}

/** YAML double-quoted scalar. */
function yaml(value: string): string {
  return JSON.stringify(value);
}

/** `pytorch/vision` from `https://github.com/pytorch/vision`, `tiny` from `local:tiny`: who the entry names as author. */
function ownerOf(repository: string): string {
  return repository.replace(/^[a-z]+:\/\/[^/]*\/|^local:/, '').replace(/\/+$/, '') || repository;
}

/** A URL a reader can open; a source with no public address has none (`local:<id>`, provenance.ts). */
const isUrl = (value: string) => /^https?:\/\//.test(value);

export interface CitationInput {
  id: string;
  name: string;
  module: string;
  sourceId: string;
  provenance: Provenance;
}

export function citationOf(c: CitationInput): Citation {
  const prov = c.provenance;
  const owner = ownerOf(prov.repository);
  const version = citedVersion(prov);
  const when = citedDate(prov);
  // A whole day, where CITATION.cff's `date-released` and the catalog's `citation.date` need one.
  const day = when && /^\d{4}-\d{2}-\d{2}$/.test(when.date) ? when.date : null;
  const key = citationKey(c.id, c.sourceId, c.name, when?.year ?? null);
  const title = `${c.name} (${c.module})`;
  const author = `  author = {{${bib(owner)} contributors}},`;
  const common = [
    ...(when ? [`  year = {${when.year}},`, `  date = {${when.date}},`] : []),
    ...(version ? [`  version = {${bib(version)}},`] : []),
    ...(isUrl(prov.permalink) ? [`  url = {${bib(prov.permalink)}},`] : []),
  ];
  const bibtex = [
    `@software{${key},`,
    `  title = {${bib(title)}},`,
    author,
    ...common,
    `  license = {${bib(prov.license.spdx)}},`,
    `  note = {${bib(prov.path)}, lines ${prov.lines[0]}--${prov.lines[1]}${prov.commit ? `, commit ${prov.commit.slice(0, 12)}` : ''}; ${bib(prov.swhid)}},`,
    `}`,
  ].join('\n');
  const codefragment = [
    `@codefragment{${key},`,
    `  title = {${bib(title)}},`,
    author,
    ...common,
    `  swhid = {${bib(prov.swhidQualified)}},`,
    ...(isUrl(prov.repository) ? [`  repository = {${bib(prov.repository)}},`] : []),
    `  license = {${bib(prov.license.spdx)}},`,
    `  note = {Lines ${prov.lines[0]}--${prov.lines[1]} of ${bib(prov.path)}; catalogued by nnblocks},`,
    `}`,
  ].join('\n');
  const cff = [
    'cff-version: 1.2.0',
    `message: ${yaml('If you use this block, please cite it as below.')}`,
    `title: ${yaml(title)}`,
    'type: software',
    'authors:',
    `  - name: ${yaml(`${owner} contributors`)}`,
    ...(isUrl(prov.repository) ? [`repository-code: ${yaml(prov.repository)}`] : []),
    ...(isUrl(prov.permalink) ? [`url: ${yaml(prov.permalink)}`] : []),
    `license: ${yaml(prov.license.spdx)}`,
    ...(prov.commit ? [`commit: ${yaml(prov.commit)}`] : []),
    ...(version ? [`version: ${yaml(version)}`] : []),
    ...(day ? [`date-released: ${yaml(day)}`] : []),
    'identifiers:',
    '  - type: swh',
    `    value: ${yaml(prov.swhid)}`,
  ].join('\n');
  const at = version ? `, version ${version}` : prov.commit ? `, commit ${prov.commit.slice(0, 12)}` : '';
  const text = `${owner} contributors (${when?.year ?? 'n.d.'}). ${title}${at}. ${prov.path}, lines ${prov.lines[0]}-${prov.lines[1]}. ${prov.license.spdx}. ${prov.swhidQualified}`;
  return {
    key,
    bibtex,
    codefragment,
    cff,
    text,
    ...(version ? { version } : {}),
    ...(day ? { date: day } : {}),
  };
}
