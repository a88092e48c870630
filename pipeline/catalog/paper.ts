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

/** The paper's failure analysis: blocks, failures of its import-only criterion, and failures by cause. */
export interface PaperFailureAnalysis {
  blocks: number;
  failures: number;
  /** `group`: an id of CAUSE_GROUPS (contract/cause-groups.ts). */
  causes: { group: string; label: string; count: number }[];
}

interface PaperFile {
  repositories: PaperRepository[];
  failureAnalysis: PaperFailureAnalysis;
  others: { repositories: number; blocks: number };
}

let cached: PaperFile | undefined;
const paperFile = (): PaperFile =>
  (cached ??= JSON.parse(readFileSync(new URL('./data/nn-rag-paper.json', import.meta.url), 'utf8')) as PaperFile);

/** The paper's named repositories, as the data file lists them. */
export function paperRepositories(): PaperRepository[] {
  return paperFile().repositories;
}

/** The paper's failure analysis (348 failures of 1,289 blocks, by cause). */
export function paperFailureAnalysis(): PaperFailureAnalysis {
  return paperFile().failureAnalysis;
}

/** The repositories the paper does not name one by one, counted together (its "other 12": 335 blocks). */
export function paperOthers(): { repositories: number; blocks: number } {
  const { repositories, blocks } = paperFile().others;
  return { repositories, blocks };
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
