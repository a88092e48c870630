// Paper ids a block's own source names — arXiv ids and DOIs written in its docstring or comments — and the papers a
// block implements once the taxonomy's are added. Only ids leave this file, never the text around them: upstream
// text is hostile, so a candidate is kept only when it passes the strict patterns of pipeline/contract/rules.ts.
//   """Squeeze-and-Excitation block from https://arxiv.org/abs/1709.01507"""   ->  arxiv 1709.01507
//   # see doi:10.1109/CVPR.2016.90.                                           ->  doi 10.1109/CVPR.2016.90
import type { PaperRef } from '../contract/block.ts';
import { isArxivId, isDoi } from '../contract/rules.ts';
import type { Taxonomy } from './taxonomy.ts';

/** A block names few papers; more is noise (a bibliography pasted in a docstring) and is cut. */
export const PAPER_LIMIT = 8;

export interface PaperIds {
  arxiv: string[];
  doi: string[];
}

/**
 * arXiv ids after `arxiv.org/abs/`, `/pdf/`, `arXiv:` or `arxiv ` (a version suffix and `.pdf` dropped); a bare
 * `1709.01507` is not taken, since version numbers and dates look the same. Old-style ids (`cs/0112017`) too.
 */
const ARXIV_RE =
  /(?:arxiv\.org\/(?:abs|pdf)\/|\barxiv\s*:\s*|\barxiv\s+)((?:\d{4}\.\d{4,5})|(?:[a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?\/\d{7}))(?:v\d+)?(?![\d/])/gi;

/** DOIs after `doi.org/`, `dx.doi.org/` or `doi:`; prose punctuation at the end (`.`, `,`, `)`) is not part of it. */
const DOI_RE = /(?:\bdoi\.org\/|\bdoi\s*:\s*)(10\.\d{4,9}\/[^\s"'<>`\\]+)/gi;

/** Trailing characters a sentence or markup adds after a DOI: `doi:10.1/x.`, `(doi:10.1/x)`, reST's `>`_`. */
function trimDoi(d: string): string {
  let out = d;
  while (/[.,;:)\]}]$/.test(out)) {
    // A closing bracket stays when the DOI opened one itself: `10.1002/(SICI)1097-...` style.
    if (out.endsWith(')') && (out.match(/\(/g) ?? []).length >= (out.match(/\)/g) ?? []).length) break;
    out = out.slice(0, -1);
  }
  return out;
}

/** The ids a piece of upstream text names, in first-seen order, de-duplicated, each checked, at most PAPER_LIMIT. */
export function paperIdsIn(text: string): PaperIds {
  const arxiv = new Set<string>();
  const doi = new Set<string>();
  // A block's class is small; a megabyte of text is not a docstring worth reading.
  const t = text.length > 1_000_000 ? text.slice(0, 1_000_000) : text;
  for (const m of t.matchAll(ARXIV_RE)) {
    // Old-style archive names are lower-case on arXiv (`hep-th/9901001`); the match ran case-insensitively.
    const id = m[1].includes('/') ? m[1].replace(/^[^/.]+/, (a) => a.toLowerCase()) : m[1];
    if (isArxivId(id) && arxiv.size < PAPER_LIMIT) arxiv.add(id);
  }
  for (const m of t.matchAll(DOI_RE)) {
    const d = trimDoi(m[1]);
    // An arXiv DOI (10.48550/arXiv.1709.01507) is the arXiv paper: recorded once, as its arXiv id.
    const viaArxiv = /^10\.48550\/arxiv\.(\d{4}\.\d{4,5})$/i.exec(d);
    if (viaArxiv) {
      if (arxiv.size < PAPER_LIMIT) arxiv.add(viaArxiv[1]);
    } else if (isDoi(d) && doi.size < PAPER_LIMIT) doi.add(d);
  }
  return { arxiv: [...arxiv], doi: [...doi] };
}

/** A block's papers: those its source names and the introducing paper of each method it implements, sorted by id. */
export function blockPapers(source: PaperIds, methods: string[], t: Taxonomy): PaperRef[] {
  const refs = new Map<string, PaperRef>();
  const add = (id: string, from: 'source' | 'taxonomy') => {
    const r = refs.get(id) ?? {
      id,
      ...(id.startsWith('arxiv:') ? { arxiv: id.slice(6) } : { doi: id.slice(4) }),
      from: [],
    };
    if (!r.from.includes(from)) r.from.push(from);
    refs.set(id, r);
  };
  for (const a of source.arxiv) add(`arxiv:${a}`, 'source');
  for (const d of source.doi) add(`doi:${d}`, 'source');
  // The introducing paper only: a method's follow-ups (Swin V2) are on its page, and a block's own source names them.
  for (const slug of methods) {
    const first = t.methods.find((m) => m.slug === slug)?.papers[0];
    if (first) add(first, 'taxonomy');
  }
  return [...refs.values()]
    .map((r) => ({ ...r, from: [...r.from].sort() }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
