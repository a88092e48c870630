// Paper ids a block's code names — arXiv ids and DOIs in its class and in the model builders beside it — and the
// papers a block implements once the taxonomy's are added, each with how it is named: the class docstring's
// description or a builder's docstring says what the block is from (an introduction), a comment or a parameter's
// documentation cites a paper for a detail (a mention). Only ids leave this file, never the text around them:
// upstream text is hostile, so a candidate is kept only when it passes the strict patterns of contract/rules.ts.
//   """Squeeze-and-Excitation block from https://arxiv.org/abs/1709.01507"""   ->  arxiv 1709.01507, introduced
//   # see doi:10.1109/CVPR.2016.90.                                           ->  doi 10.1109/CVPR.2016.90, mentioned
//   # This improves the model by 0.2~0.3% according to https://arxiv.org/abs/1706.02677   (ResNet: a mention)
import type { PaperRef } from '../contract/block.ts';
import type { FunctionFact } from '../parse/facts.ts';
import type { BuilderFn } from '../usage/types.ts';
import { isArxivId, isDoi } from '../contract/rules.ts';
import { INTRODUCING_EVIDENCE, PAPER_EVIDENCE, type PaperEvidence } from '../contract/vocabulary.ts';
import { docstringOf, splitDocstring } from './docstring.ts';
import { SpecMemo } from './spec-memo.ts';
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

/** The ids a block's code names, by where: each kind but `taxonomy` of PAPER_EVIDENCE. */
export type SourcePapers = Partial<Record<Exclude<PaperEvidence, 'taxonomy'>, PaperIds>>;

const NONE: PaperIds = { arxiv: [], doi: [] };

/**
 * The ids a class's text names: those in its docstring's description (`docstring`) and those anywhere else in it —
 * comments, its methods' docstrings, the docstring's parameter sections (`comment`). An id in both is in both.
 */
export function classPapers(classText: string): Pick<SourcePapers, 'docstring' | 'comment'> {
  const doc = docstringOf(classText);
  if (!doc) return { docstring: NONE, comment: paperIdsIn(classText) };
  const { description, parameters } = splitDocstring(doc.text);
  // The rest of the class: its text with the docstring's description cut out (its parameter sections kept).
  const rest = classText.slice(0, doc.start) + parameters + classText.slice(doc.end);
  return { docstring: paperIdsIn(description), comment: paperIdsIn(rest) };
}

/**
 * The ids the docstrings of a block's model builders name in their descriptions (torchvision's `resnet50`:
 * "ResNet-50 from `Deep Residual Learning for Image Recognition <https://arxiv.org/pdf/1512.03385.pdf>`__"), at most
 * PAPER_LIMIT of each kind over all of them. A builder's parameter documentation is not read.
 */
export function builderPapers(builderTexts: string[]): PaperIds {
  const descriptions = builderTexts.map((t) => {
    const doc = docstringOf(t);
    return doc ? splitDocstring(doc.text).description : '';
  });
  return paperIdsIn(descriptions.join('\n'));
}

/**
 * The paper ids a block's code names: in its class, and in the docstrings of the model builders defined beside it
 * (same source and module: torchvision's `resnet50` next to `ResNet`). A builder elsewhere may build the class for a
 * purpose of its own, so its docstring says nothing of where the class comes from. `file` holds the module's bytes
 * (spans are byte offsets), `functions` its module-level functions, `builders` the block's (usage mining).
 */
export function codePapers(
  block: { sourceId: string; module: string },
  classText: string,
  module: { file: Buffer | null; functions: FunctionFact[]; builders: BuilderFn[] },
  memo = new SpecMemo(),
): SourcePapers {
  const { file, functions } = module;
  const texts = module.builders
    .filter((f) => f.sourceId === block.sourceId && f.module === block.module)
    .flatMap((f) => {
      const fn = functions.find((x) => x.qualname === f.name);
      return fn && file ? [file.subarray(fn.span.startByte, fn.span.endByte).toString('utf8')] : [];
    });
  return {
    ...memo.get(['class-papers', classText], () => classPapers(classText)),
    builder: texts.length ? memo.get(['builder-papers', ...texts], () => builderPapers(texts)) : NONE,
  };
}

/**
 * A block's papers: those its code names, by evidence, and the introducing paper of each method it implements,
 * sorted by id. A paper is `introduced` when any of its evidence introduces (INTRODUCING_EVIDENCE), else
 * `mentioned`.
 */
export function blockPapers(source: SourcePapers, methods: string[], t: Taxonomy): PaperRef[] {
  const found = new Map<string, Set<PaperEvidence>>();
  const add = (id: string, kind: PaperEvidence) => found.set(id, (found.get(id) ?? new Set()).add(kind));
  for (const kind of ['docstring', 'builder', 'comment'] as const) {
    for (const a of source[kind]?.arxiv ?? []) add(`arxiv:${a}`, kind);
    for (const d of source[kind]?.doi ?? []) add(`doi:${d}`, kind);
  }
  // The introducing paper only: a method's follow-ups (Swin V2) are on its page, and a block's own source names them.
  for (const slug of methods) {
    const first = t.methods.find((m) => m.slug === slug)?.papers[0];
    if (first) add(first, 'taxonomy');
  }
  return [...found]
    .map(([id, kinds]): PaperRef => {
      const evidence = PAPER_EVIDENCE.filter((k) => kinds.has(k));
      return {
        id,
        ...(id.startsWith('arxiv:') ? { arxiv: id.slice(6) } : { doi: id.slice(4) }),
        from: [
          ...(evidence.some((k) => k !== 'taxonomy') ? ['source' as const] : []),
          ...(kinds.has('taxonomy') ? ['taxonomy' as const] : []),
        ],
        role: evidence.some((k) => INTRODUCING_EVIDENCE.includes(k)) ? 'introduced' : 'mentioned',
        evidence,
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The ids a spec's papers record as found in its code, by evidence: what `blockPapers` needs to recompute them. */
export function sourcePapersOf(papers: PaperRef[] | undefined): SourcePapers {
  const out: SourcePapers = {};
  for (const kind of ['docstring', 'builder', 'comment'] as const) {
    // A catalog from before evidence was recorded: its source ids were all read as the class's own.
    const has = (p: PaperRef) =>
      p.evidence ? p.evidence.includes(kind) : kind === 'docstring' && p.from.includes('source');
    const mine = (papers ?? []).filter(has);
    out[kind] = { arxiv: mine.flatMap((p) => p.arxiv ?? []), doi: mine.flatMap((p) => p.doi ?? []) };
  }
  return out;
}
