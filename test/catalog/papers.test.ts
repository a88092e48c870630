// Paper ids from a block's own source (pipeline/catalog/papers.ts): arXiv ids and DOIs in docstrings and comments,
// each a snippet and the ids expected, with the reason. Upstream text is hostile: nothing but a strictly valid id
// may come out, and never the text around it.
import { describe, expect, it } from 'vitest';
import { isArxivId, isDoi } from '../../pipeline/contract/rules.ts';
import { blockPapers, PAPER_LIMIT, paperIdsIn } from '../../pipeline/catalog/papers.ts';
import { taxonomy } from '../../pipeline/catalog/taxonomy.ts';

/** [snippet, arXiv ids, DOIs, why]. */
const cases: [string, string[], string[], string][] = [
  ['"""SE block from https://arxiv.org/abs/1709.01507 (see Fig. 1)."""', ['1709.01507'], [], 'an abs link'],
  ['# https://arxiv.org/pdf/2103.14030v2.pdf', ['2103.14030'], [], 'a pdf link: version and .pdf dropped'],
  ['`"Title" <https://arxiv.org/abs/1512.03385>`_.', ['1512.03385'], [], 'reST link markup around it'],
  ['see arXiv:1905.02244, Sec. 5', ['1905.02244'], [], 'arXiv: prefix'],
  ['ARXIV 1801.04381', ['1801.04381'], [], 'case-insensitive prefix'],
  ['http://arxiv.org/abs/hep-th/9901001', ['hep-th/9901001'], [], 'an old-style id'],
  ['released 2017.01507 as version 1709.01507', [], [], 'a bare number is not an id (dates and versions look alike)'],
  ['https://arxiv.org/abs/1709.015071', [], [], 'six digits after the dot is not an id'],
  ['https://arxiv.org/abs/17090.1507', [], [], 'five digits before the dot is not an id'],
  ['Paper: https://doi.org/10.1109/CVPR.2016.90.', [], ['10.1109/CVPR.2016.90'], 'a DOI link; the full stop is prose'],
  ['(doi:10.1007/978-3-319-46493-0_38)', [], ['10.1007/978-3-319-46493-0_38'], 'doi: prefix in brackets'],
  ['https://doi.org/10.48550/arXiv.2010.11929', ['2010.11929'], [], "arXiv's own DOI is the arXiv id"],
  ['doi.org/10.1234/abc"><script>alert(1)</script>', [], ['10.1234/abc'], 'markup after a DOI is cut at the quote'],
  ['doi:10.1/x', [], [], 'a registrant code of one digit is not a DOI'],
  ['https://arxiv.org/abs/1709.01507<img src=x onerror=alert(1)>', ['1709.01507'], [], 'markup after an id'],
  ['https://arxiv.org/abs/<script>1709.01507</script>', [], [], 'an id must follow the prefix directly'],
  ['https://doi.org/10.1000/\u202Eevil', [], [], 'a bidi control is not part of a DOI, and nothing valid is left'],
  ['arxiv.org/abs/1709.01507 and again arXiv:1709.01507v3', ['1709.01507'], [], 'de-duplicated'],
];

describe('paper ids in upstream text', () => {
  for (const [text, arxiv, doi, why] of cases) {
    it(`${why}: ${JSON.stringify(text).slice(0, 60)}`, () => {
      expect(paperIdsIn(text)).toEqual({ arxiv, doi });
    });
  }

  it('every id that comes out passes the strict patterns, whatever the input', () => {
    const junk = [
      'arXiv:' + '1'.repeat(5000),
      'doi:10.12345/' + 'a'.repeat(5000),
      'arxiv.org/abs/' + '\u0000'.repeat(10) + '1709.01507',
      'doi.org/10.1234/a b c',
      'arxiv:1709.01507/../../etc/passwd',
    ].join('\n');
    const got = paperIdsIn(junk);
    for (const a of got.arxiv) expect(isArxivId(a), a).toBe(true);
    for (const d of got.doi) expect(isDoi(d), d).toBe(true);
    expect(got.arxiv).not.toContain('1709.01507/../../etc/passwd');
  });

  it(`keeps at most ${PAPER_LIMIT} of each`, () => {
    const many = Array.from({ length: 30 }, (_, i) => `arXiv:2101.${String(10000 + i)}`).join(' ');
    expect(paperIdsIn(many).arxiv).toHaveLength(PAPER_LIMIT);
  });
});

describe("a block's papers", () => {
  it("joins the source's ids with the introducing paper of each method, recording where each came from", () => {
    const got = blockPapers(
      { arxiv: ['1709.01507', '2401.00001'], doi: [] },
      ['squeeze-and-excitation', 'drop-path'],
      taxonomy(),
    );
    expect(got).toEqual([
      { id: 'arxiv:1603.09382', arxiv: '1603.09382', from: ['taxonomy'] },
      { id: 'arxiv:1709.01507', arxiv: '1709.01507', from: ['source', 'taxonomy'] },
      { id: 'arxiv:2401.00001', arxiv: '2401.00001', from: ['source'] },
    ]);
  });
  it("takes a method's introducing paper only, not its follow-ups", () => {
    expect(blockPapers({ arxiv: [], doi: [] }, ['shifted-window-attention'], taxonomy()).map((p) => p.id)).toEqual([
      'arxiv:2103.14030',
    ]);
  });
});
