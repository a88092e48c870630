// Introductions and mentions on the real torchvision (the managed environment's 0.29.1, a `python` source through
// the real sources, index, discovery and usage stages): the papers each block's page would show, read the way the
// build reads them (codePapers, then blockPapers with the block's methods).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codePapers, blockPapers } from '../../pipeline/catalog/papers.ts';
import { matchMethods, taxonomy } from '../../pipeline/catalog/taxonomy.ts';
import type { PaperRef } from '../../pipeline/contract/block.ts';
import { classAt } from '../../pipeline/discover/discover.ts';
import type { Prepared, RunContext } from '../../pipeline/run/prepare.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { testPython } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';

let ctx: RunContext;
let p: Prepared;
let usage: UsageIndex;

beforeAll(async () => {
  const config = writeConfig(
    [{ id: 'torchvision', kind: 'python', distribution: 'torchvision', include: ['torchvision/models/**/*.py'] }],
    { python: testPython() },
  );
  ({ ctx, p } = await prepareRun(config));
  usage = buildUsageIndex(
    p.program,
    p.discovered.blocks.filter((b) => !b.abstract),
  );
}, 180_000);
afterAll(() => ctx?.store.close());

/** The papers of `torchvision.<name>` as the build computes them. */
function papersOf(name: string): PaperRef[] {
  const b = p.discovered.blocks.find((x) => x.id === `torchvision:torchvision.${name}`)!;
  expect(b, name).toBeDefined();
  const mod = p.program.moduleAt(b.sourceId, b.path)!;
  const own = classAt(mod, b.stmt, b.name) ?? mod.facts.classes.find((c) => c.qualname === b.qualname)!;
  const file = readFileSync(mod.absPath);
  const text = file.subarray(own.span.startByte, own.span.endByte).toString('utf8');
  const source = codePapers(b, text, { file, functions: mod.facts.functions, builders: usage.usageOf(b.id).builders });
  const methods = matchMethods({ name: b.name, module: b.module, bases: b.baseChain, layers: [] });
  return blockPapers(
    source,
    methods.map((m) => m.slug),
    taxonomy(),
  );
}

const ids = (papers: PaperRef[], role: 'introduced' | 'mentioned') =>
  papers.filter((x) => x.role === role).map((x) => x.id);

describe('papers of real torchvision classes', () => {
  it('ResNet is introduced in He et al. (its builders say so), and only mentions Goyal et al. (a comment)', () => {
    const papers = papersOf('models.resnet.ResNet');
    expect(ids(papers, 'introduced')).toContain('arxiv:1512.03385');
    expect(ids(papers, 'introduced')).not.toContain('arxiv:1706.02677');
    expect(ids(papers, 'mentioned')).toEqual(['arxiv:1706.02677']);
    expect(papers.find((x) => x.id === 'arxiv:1512.03385')!.evidence).toEqual(['builder']);
  });

  it('Bottleneck names the ResNet paper in a comment about its stride, and is introduced there by the taxonomy', () => {
    const papers = papersOf('models.resnet.Bottleneck');
    expect(papers.find((x) => x.id === 'arxiv:1512.03385')).toMatchObject({
      role: 'introduced',
      evidence: ['taxonomy', 'comment'],
    });
  });

  it("VisionTransformer's docstring names ViT; a comment's 2106.14881 is a mention", () => {
    const papers = papersOf('models.vision_transformer.VisionTransformer');
    expect(papers.find((x) => x.id === 'arxiv:2010.11929')!.evidence).toEqual(
      expect.arrayContaining(['docstring', 'builder']),
    );
    expect(ids(papers, 'mentioned')).toEqual(['arxiv:2106.14881']);
  });

  it("DenseNet's memory_efficient parameter cites a paper: a mention; the docstring's DenseNet paper introduces it", () => {
    const papers = papersOf('models.densenet.DenseNet');
    expect(ids(papers, 'introduced')).toEqual(['arxiv:1608.06993']);
    expect(ids(papers, 'mentioned')).toEqual(['arxiv:1707.06990']);
  });

  it('SwinTransformer is introduced in Swin and Swin V2, each named by its builders', () => {
    expect(ids(papersOf('models.swin_transformer.SwinTransformer'), 'introduced')).toEqual(
      expect.arrayContaining(['arxiv:2103.14030', 'arxiv:2111.09883']),
    );
  });
});
