// Provenance records for one block: where it lives (repository, commit with its date, or release, path, lines),
// content hashes (git blob SHA-1 → SWHID, SHA-256), a pinned permalink and the license. Citations: citation.ts.
import type { SourceSnapshot } from '../sources/types.ts';
import type { License } from '../contract/common.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { Provenance } from '../contract/provenance.ts';

export interface ProvenanceInput {
  snapshot: SourceSnapshot;
  path: string;
  lines: [number, number];
  blobSha1: string;
  sha256: string;
}

export function licenseOf(s: SourceSnapshot): License {
  const spdx = s.license?.spdx ?? null;
  if (!spdx) return { spdx: 'NOASSERTION', method: 'none' };
  // The sources stage names the file it read when a license text decided it; otherwise metadata or the config did.
  const how = (s.license.method ?? '').toLowerCase();
  const method = s.license.file
    ? 'license-file'
    : how.startsWith('package')
      ? 'package-metadata'
      : how.includes('config')
        ? 'config'
        : 'license-file';
  return { spdx, method };
}

/** A source's public address: its repository or its URL when it is a web URL; null for anything else. */
export function publicRepository(s: Pick<SourceSnapshot, 'repository' | 'url'>): string | null {
  return [s.repository, s.url].find((u) => u !== undefined && /^https?:\/\//i.test(u)) ?? null;
}

/**
 * The repository a source's files are cited from: its public repository, its web URL, else `local:<source id>`. Never
 * a folder or a `file://` URL: those name paths of the machine that built the catalog (a path source, a local clone).
 */
function repositoryOf(s: SourceSnapshot): string {
  return publicRepository(s) ?? `${LOCAL_REPOSITORY}${s.id}`;
}

/**
 * A warning per source with no public repository (a path source, a git source cloned from a `file://` mirror or a
 * local folder, an installed distribution whose metadata names none): its blocks are cited as `local:<id>`, with no
 * link a reader can follow. The fix is the config's `repository` (git and path sources); never the local path.
 */
export function localSourceDiagnostics(snapshots: readonly SourceSnapshot[]): Diagnostic[] {
  return snapshots
    .filter((s) => s.status !== 'failed' && publicRepository(s) === null)
    .map((s) => ({
      code: 'no-public-repository',
      severity: 'warning',
      stage: 'catalog',
      source: s.id,
      message: `source ${s.id} has no public repository: its blocks are cited as ${LOCAL_REPOSITORY}${s.id}, with no link, repository URL or SWHID origin (the local ${s.kind === 'path' ? 'folder' : s.kind === 'git' ? 'clone URL' : 'installation'} is never published)`,
      hint:
        s.kind === 'python'
          ? "the distribution's metadata names no repository (Project-URL, Home-page); cite it by release, or build it from a git source with `repository`"
          : `add "repository": "https://<host>/<owner>/<repo>" (the public repository it is a copy of) to source ${s.id} in the config`,
    }));
}

/** The scheme of a repository with no public address. */
export const LOCAL_REPOSITORY = 'local:';

/** A link to a file of a source pinned to its commit or tag, with a line anchor (`L10-L20`, `L10`). */
export function permalinkOf(s: SourceSnapshot, path: string, lines: string): string {
  const repository = repositoryOf(s);
  const pin = s.commit ?? s.tag;
  const github = /^https:\/\/(github\.com|gitlab\.com)\//.test(repository);
  return pin && github
    ? `${repository}/blob/${pin}/${path}#${lines}`
    : `${repository}${pin ? `@${pin}` : ''}/${path}#${lines}`;
}

export function provenanceOf(p: ProvenanceInput): Provenance {
  const s = p.snapshot;
  const repository = repositoryOf(s);
  const [a, b] = p.lines;
  const swhid = `swh:1:cnt:${p.blobSha1}`;
  const anchor = s.commit ? `;anchor=swh:1:rev:${s.commit}` : '';
  // A SWHID's origin is the URL of a software origin; a local source (`local:<id>`) has none, so it gets no origin
  // qualifier rather than one that no archive or resolver knows.
  const origin = /^https?:\/\//i.test(repository) ? `;origin=${repository}` : '';
  const permalink = permalinkOf(s, p.path, `L${a}-L${b}`);
  const prov: Provenance = {
    sourceId: s.id,
    repository,
    path: p.path,
    lines: [a, b],
    blobSha1: p.blobSha1,
    sha256: p.sha256,
    swhid,
    swhidQualified: `${swhid}${origin}${anchor};path=/${p.path};lines=${a}-${b}`,
    permalink,
    license: licenseOf(s),
  };
  if (s.commit) prov.commit = s.commit;
  if (s.commit && s.commitDate) prov.commitDate = s.commitDate;
  if (s.distribution && s.version) {
    prov.release = {
      distribution: s.distribution,
      version: s.version,
      ...(s.tag ? { tag: s.tag } : {}),
      ...(s.releaseDate ? { date: s.releaseDate } : {}),
    };
  }
  return prov;
}
