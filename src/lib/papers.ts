// A block's papers as its page shows them: those it was introduced in ("Introduced in") apart from those its code
// only mentions ("Also cited": a comment about a detail, a parameter's documentation), and in words where each was
// found (docs/taxonomy.md, "Papers of a block"). A catalog from before `role` was recorded reads every paper as an
// introduction, as its pages said then.
import type { PaperRef } from '../../pipeline/contract/block.ts';
import type { PaperEvidence } from '../../pipeline/contract/vocabulary.ts';

/** What the page lists: a block's paper, or a method's (no role: a method's papers are its introducing ones). */
export type ListedPaper = Pick<PaperRef, 'id' | 'arxiv' | 'doi'> & Partial<Pick<PaperRef, 'role' | 'evidence'>>;

export const isIntroduction = (p: ListedPaper): boolean => p.role !== 'mentioned';

/** Introductions first, then mentions; each in the order given (the spec's: by id). */
export function splitPapers<T extends ListedPaper>(papers: T[]): { introduced: T[]; mentioned: T[] } {
  return { introduced: papers.filter(isIntroduction), mentioned: papers.filter((p) => !isIntroduction(p)) };
}

const EVIDENCE_WORDS: Record<PaperEvidence, string> = {
  docstring: 'the class docstring',
  builder: 'a model builder’s docstring',
  taxonomy: 'the taxonomy',
  comment: 'a comment or parameter note',
};

/** `named in the class docstring and the taxonomy`; null without recorded evidence. */
export function evidenceText(p: ListedPaper): string | null {
  const kinds = p.evidence ?? [];
  if (kinds.length === 0) return null;
  const words = kinds.map((k) => EVIDENCE_WORDS[k]);
  return `named in ${words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words[0]}`;
}
