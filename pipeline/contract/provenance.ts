// Where a block comes from and how to cite it (block.schema.json `provenance`, `citation`): repository, commit or
// release, path and lines, hashes and SWHIDs, the license; BibTeX, biblatex-software, CITATION.cff and text.
import { common } from './common.ts';
import { CITE_KEY_PATTERN } from './rules.ts';
import { Type, type Static } from './schema.ts';

/** `https://...`, `file://...`, or `local:<id>` for a source with no public address. */
const address = () => Type.String({ pattern: '^((https?|file)://|local:)' });

export const PROVENANCE = Type.Object(
  {
    sourceId: common.ref.slug(),
    /** Repository URL, e.g. `https://github.com/pytorch/vision`. */
    repository: address(),
    /** Full commit SHA when the source is a git checkout. */
    commit: Type.Optional(common.ref.sha1()),
    /**
     * The commit's committer date, ISO 8601 with its offset (`2022-12-08T17:19:36+01:00`), as `git show --format=%cI`
     * gives it; a citation's year and date. Absent without a commit, and in catalogs built before it.
     */
    commitDate: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$' }),
    ),
    /** Set when the source is an installed distribution rather than a checkout. */
    release: Type.Optional(common.ref.release()),
    /** Path relative to the repository root. */
    path: common.ref.nonEmpty(),
    /** 1-based inclusive line range of the class definition. */
    lines: common.ref.lines(),
    /** Git blob SHA-1 of the file (`git hash-object`). */
    blobSha1: common.ref.sha1(),
    sha256: common.ref.sha256(),
    /** `swh:1:cnt:<blobSha1>`. */
    swhid: Type.String({ pattern: '^swh:1:cnt:[0-9a-f]{40}$' }),
    /**
     * `<swhid>[;origin=<repository URL>][;anchor=swh:1:rev:<commit>];path=/<path>;lines=<a>-<b>` (no origin for a local
     * source).
     */
    swhidQualified: Type.String({
      pattern:
        '^swh:1:cnt:[0-9a-f]{40}(;origin=[^;]+)?(;anchor=swh:1:rev:[0-9a-f]{40})?;path=/[^;]+;lines=[0-9]+-[0-9]+$',
    }),
    /** Permalink pinned to the commit (or tag) with a line anchor. */
    permalink: address(),
    license: common.ref.license(),
  },
  { additionalProperties: false, anyOf: [{ required: ['commit'] }, { required: ['release'] }] },
);

export const CITATION = Type.Object(
  {
    /**
     * The entries' key, ≤ 30 characters, unique in the catalog: `torchvision2022squeezeexc-3f9a1`. Absent in older
     * catalogs.
     */
    key: Type.Optional(Type.String({ pattern: CITE_KEY_PATTERN })),
    /**
     * BibTeX `@software` entry (biblatex and plain BibTeX styles): title, author, year and date (from the commit date,
     * when known), version (the public release, no local label), url, license. Older catalogs: a `@codefragment`.
     */
    bibtex: common.ref.nonEmpty(),
    /** The same as a biblatex-software `@codefragment` with swhid and repository. Absent in older catalogs. */
    codefragment: Type.Optional(common.ref.nonEmpty()),
    /** The version the entries cite (a release's public version, never a local label); absent for a git commit. */
    version: Type.Optional(common.ref.nonEmpty()),
    /** The date the entries cite, `YYYY-MM-DD` (the commit's, in its committer's time zone); absent when unknown. */
    date: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })),
    /** CITATION.cff fragment (YAML text). */
    cff: common.ref.nonEmpty(),
    /** Plain-text citation. */
    text: common.ref.nonEmpty(),
  },
  { additionalProperties: false },
);

export type Provenance = Static<typeof PROVENANCE>;
export type Citation = Static<typeof CITATION>;
