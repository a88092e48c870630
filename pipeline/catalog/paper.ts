// The NN-RAG paper's per-repository block counts (data/nn-rag-paper.json), and which of our sources each belongs
// to: matched by repository URL (a git source's URL, or an installed distribution's upstream repository), compared
// without scheme, `www.`, case, a trailing `/` or `.git`: `https://github.com/pytorch/vision` is `pytorch/vision`'s.
// A source with no such URL (a local mirror, `file://...`) has no paper figure: a count is never matched by name.
import { readFileSync } from 'node:fs';

export interface PaperRepository {
  /** The repository's name as the paper labels it, e.g. `vision`. */
  name: string;
  repository: string;
  blocks: number;
}

interface PaperFile {
  repositories: PaperRepository[];
}

let cached: PaperRepository[] | undefined;

/** The paper's named repositories, as the data file lists them. */
export function paperRepositories(): PaperRepository[] {
  cached ??= (JSON.parse(readFileSync(new URL('./data/nn-rag-paper.json', import.meta.url), 'utf8')) as PaperFile)
    .repositories;
  return cached;
}

/** `github.com/pytorch/vision` for any spelling of that repository's URL; null for a URL that names no host. */
export function repositoryKey(url: string | undefined): string | null {
  const m = /^(?:git\+)?(?:https?|git|ssh):\/\/(?:[^@/]+@)?(?:www\.)?([^/:]+)\/(.+?)(?:\.git)?\/*$/i.exec(
    (url ?? '').trim(),
  );
  return m ? `${m[1]}/${m[2]}`.toLowerCase() : null;
}

/** The paper's figure for a source with these URLs (its repository, its clone URL), or null. */
export function paperFigureFor(urls: (string | undefined)[]): { repository: string; blocks: number } | null {
  const keys = new Set(urls.map(repositoryKey).filter((k): k is string => k !== null));
  const hit = paperRepositories().find((r) => keys.has(repositoryKey(r.repository)!));
  return hit ? { repository: hit.repository, blocks: hit.blocks } : null;
}
