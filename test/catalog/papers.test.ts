// Paper ids from a block's own source (pipeline/catalog/papers.ts): arXiv ids and DOIs in docstrings and comments,
// each a snippet and the ids expected, with the reason; which of them introduce the block and which are mentions. Upstream text is hostile: nothing but a strictly valid id
// may come out, and never the text around it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { makeCatalog } from '../site/fixtures/make-catalog.ts';
import { isArxivId, isDoi } from '../../pipeline/contract/rules.ts';
import { docstringOf, splitDocstring } from '../../pipeline/catalog/docstring.ts';
import {
  blockPapers,
  builderPapers,
  classPapers,
  PAPER_LIMIT,
  paperIdsIn,
  sourcePapersOf,
} from '../../pipeline/catalog/papers.ts';
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
  it('joins the ids its code names with the introducing paper of each method, recording the evidence of each', () => {
    const got = blockPapers(
      { docstring: { arxiv: ['1709.01507'], doi: [] }, comment: { arxiv: ['2401.00001'], doi: [] } },
      ['squeeze-and-excitation', 'drop-path'],
      taxonomy(),
    );
    expect(got).toEqual([
      { id: 'arxiv:1603.09382', arxiv: '1603.09382', from: ['taxonomy'], role: 'introduced', evidence: ['taxonomy'] },
      {
        id: 'arxiv:1709.01507',
        arxiv: '1709.01507',
        from: ['source', 'taxonomy'],
        role: 'introduced',
        evidence: ['docstring', 'taxonomy'],
      },
      { id: 'arxiv:2401.00001', arxiv: '2401.00001', from: ['source'], role: 'mentioned', evidence: ['comment'] },
    ]);
  });
  it("takes a method's introducing paper only, not its follow-ups", () => {
    expect(blockPapers({}, ['shifted-window-attention'], taxonomy()).map((p) => p.id)).toEqual(['arxiv:2103.14030']);
  });
  it('keeps a paper a comment names and a method introduces an introduction (Bottleneck names ResNet in a comment)', () => {
    const [p] = blockPapers({ comment: { arxiv: ['1512.03385'], doi: [] } }, ['residual-bottleneck'], taxonomy());
    expect(p).toMatchObject({ role: 'introduced', evidence: ['taxonomy', 'comment'] });
  });
  it("reads back the evidence it recorded (de-duplication's method propagation recomputes papers from a spec)", () => {
    const source = {
      docstring: { arxiv: ['1709.01507'], doi: [] },
      builder: { arxiv: [], doi: ['10.1109/CVPR.2016.90'] },
    };
    const papers = blockPapers({ ...source, comment: { arxiv: ['2401.00001'], doi: [] } }, [], taxonomy());
    expect(blockPapers(sourcePapersOf(papers), [], taxonomy())).toEqual(papers);
  });
});

/** [class text, introduced ids, mentioned ids, why]: what the class docstring says the block is, and the rest. */
const classCases: [string, string[], string[], string][] = [
  [
    'class SE(nn.Module):\n    """SE block from https://arxiv.org/abs/1709.01507."""\n',
    ['1709.01507'],
    [],
    "the docstring's description names the paper: an introduction",
  ],
  [
    [
      'class ResNet(nn.Module):',
      '    def __init__(self, zero_init_residual=False):',
      '        # Zero-initialize the last BN in each residual branch,',
      '        # This improves the model by 0.2~0.3% according to https://arxiv.org/abs/1706.02677',
      '        pass',
    ].join('\n'),
    [],
    ['1706.02677'],
    "torchvision's ResNet: a comment about zero_init_residual names Goyal et al., a mention",
  ],
  [
    [
      '@register_model',
      'class DenseNet(nn.Module):',
      '    r"""Densenet-BC model class, based on',
      '    `"Densely Connected Convolutional Networks" <https://arxiv.org/pdf/1608.06993.pdf>`_.',
      '',
      '    Args:',
      '        growth_rate (int) - how many filters to add each layer',
      '        memory_efficient (bool) - If True, uses checkpointing. Much more memory efficient,',
      '          but slower. Default: *False*. See `"paper" <https://arxiv.org/pdf/1707.06990.pdf>`_.',
      '    """',
    ].join('\n'),
    ['1608.06993'],
    ['1707.06990'],
    "torchvision's DenseNet: the paper in a parameter's documentation (Google style) is a mention",
  ],
  [
    [
      'class Block(nn.Module):',
      '    """A block from arXiv:2010.11929.',
      '',
      '    Parameters',
      '    ----------',
      '    ls_init : float',
      '        LayerScale, arXiv:2103.17239',
      '',
      '    References',
      '    ----------',
      '    arXiv:2106.10270',
      '    """',
    ].join('\n'),
    ['2010.11929', '2106.10270'],
    ['2103.17239'],
    'NumPy style: the Parameters section is a mention; a References section after it is the description again',
  ],
  [
    [
      'class Pool(nn.Module):',
      '    """Pooling from doi:10.1109/CVPR.2016.90.',
      '',
      '    :param mode: as in arXiv:1406.4729',
      '        (spatial pyramid pooling)',
      '    :returns: a tensor',
      '    """',
    ].join('\n'),
    [],
    ['1406.4729'],
    'reST fields: a :param: field and its continuation are a mention',
  ],
  [
    'class A(nn.Module):\n    # from arXiv:1709.01507\n    """Doc."""\n    def forward(self, x):\n        """As in arXiv:1512.03385."""\n',
    [],
    ['1512.03385', '1709.01507'],
    "a comment before the docstring and a method's docstring are mentions",
  ],
  [
    'class A(nn.Module):\n    x = "arXiv:1709.01507"\n',
    [],
    ['1709.01507'],
    'a string that is not the first statement is no docstring',
  ],
];

describe('introductions and mentions in a class', () => {
  for (const [text, introduced, mentioned, why] of classCases) {
    it(why, () => {
      const got = classPapers(text);
      expect([...got.docstring!.arxiv].sort()).toEqual(introduced);
      const doi = got.docstring!.doi;
      const rest = got.comment!.arxiv.filter((a) => !introduced.includes(a)).sort();
      expect(rest).toEqual(mentioned);
      if (text.includes('doi:')) expect(doi).toEqual(['10.1109/CVPR.2016.90']);
    });
  }

  it('reads the docstring itself, not a decorator or a nested parenthesis in the header', () => {
    const text = '@deco(note="""arXiv:2401.00001""")\nclass A(B, metaclass=M):\n    """From arXiv:1709.01507."""\n';
    expect(docstringOf(text)?.text).toBe('From arXiv:1709.01507.');
    expect(classPapers(text).docstring!.arxiv).toEqual(['1709.01507']);
  });

  it("reads a builder's description only: torchvision's resnet50 names the ResNet paper", () => {
    const resnet50 = [
      '@register_model()',
      'def resnet50(*, weights: Optional[ResNet50_Weights] = None, progress: bool = True, **kwargs: Any) -> ResNet:',
      '    """ResNet-50 from `Deep Residual Learning for Image Recognition <https://arxiv.org/pdf/1512.03385.pdf>`__.',
      '',
      '    Args:',
      '        weights: see arXiv:1706.02677',
      '    """',
      '    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)',
    ].join('\n');
    expect(builderPapers([resnet50, 'def _resnet(block, layers):\n    return ResNet(block, layers)\n'])).toEqual({
      arxiv: ['1512.03385'],
      doi: [],
    });
  });
});

describe('docstring sections', () => {
  it('keeps the prose after a Google parameter section in the description', () => {
    const doc = 'Summary.\n\n    Args:\n        x: one\n          more\n\n    Based on the paper.\n';
    const { description, parameters } = splitDocstring(doc);
    expect(description).toContain('Based on the paper.');
    expect(parameters).toContain('x: one');
    expect(parameters).toContain('more');
    expect(description).not.toContain('x: one');
  });
});

describe('the schema holds a paper’s role to its evidence', () => {
  const work = mkdtempSync(join(tmpdir(), 'nnblocks-papers-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const catalog = makeCatalog({ dir: join(work, 'c'), blocks: 40 });
  const withPapers = (): BlockSpec =>
    readdirSync(join(catalog.dir, 'blocks'))
      .map((f) => JSON.parse(readFileSync(join(catalog.dir, 'blocks', f), 'utf8')) as BlockSpec)
      .find((s) => s.papers?.some((p) => p.role === 'mentioned'))!;
  const errors = (spec: BlockSpec) => checkAgainstSchema('block', spec, 'block');
  const mention = (s: BlockSpec) => s.papers!.find((p) => p.role === 'mentioned')!;

  it('accepts the fixture’s introductions and mention', () => {
    expect(errors(withPapers())).toEqual([]);
  });
  it.each([
    ['a mention with introducing evidence', (s: BlockSpec) => (mention(s).evidence = ['docstring'])],
    ['an introduction with only a comment', (s: BlockSpec) => (mention(s).role = 'introduced')],
    ['a role without evidence', (s: BlockSpec) => delete mention(s).evidence],
    ['an unknown kind of evidence', (s: BlockSpec) => (mention(s).evidence = ['hearsay' as 'comment'])],
  ])('refuses %s', (_name, spoil) => {
    const spec = withPapers();
    spoil(spec);
    expect(errors(spec)).not.toEqual([]);
  });
  it('reads a paper of an older catalog, with neither, as it was (an introduction)', () => {
    const spec = withPapers();
    const paper = mention(spec);
    delete paper.role;
    delete paper.evidence;
    expect(errors(spec)).toEqual([]);
  });
});
