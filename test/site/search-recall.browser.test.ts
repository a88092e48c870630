// Researcher queries through the search page of torchvision's catalog (fixtures/torchvision-blocks.ts: its 285
// blocks as the real catalog records them, methods from the real taxonomy), in Chromium: each query as a reader
// would type it, the block they expect among the first three results, and why the search finds it. Then what a
// query says beyond its results: the method no block implements, and filter counts for the query.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip.ts';
import { launchBrowser, type Browser } from './helpers/browser.ts';
import { serveSite, type SiteServer } from './helpers/serve.ts';
import { noBrowser, openSearch, rendered, resultRows } from './helpers/site-browser.ts';
import { torchvisionSite } from './helpers/site-fixture.ts';

let browser: Browser | undefined;
let server: SiteServer;
let page: Page;

beforeAll(async () => {
  const site = await torchvisionSite();
  if (noBrowser) return;
  server = await serveSite(site.dist, '/');
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
beforeEach((ctx) => {
  if (noBrowser) skipBecause(ctx, noBrowser);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The module paths (`module.Name`) of the results, as the page lists them. */
async function search(query: string): Promise<string[]> {
  await openSearch({ page, server }, `q=${encodeURIComponent(query)}`);
  return (await resultRows(page)).map((r) => r.module.replace(/\u200b/g, ''));
}

const tv = (path: string) => `torchvision.${path}`;

describe('researcher queries find the block they mean in the top 3', () => {
  // [query, acceptable blocks (any one in the top 3 will do), why the search finds it]
  const cases: [string, string[], string][] = [
    ['squeeze excitation', ['ops.misc.SqueezeExcitation'], 'a synonym of its name (synonyms.json)'],
    ['se block', ['ops.misc.SqueezeExcitation'], 'a synonym of its name; Pagefind alone ranks 125 "se"/"block" pages'],
    ['se layer', ['ops.misc.SqueezeExcitation'], 'a synonym of its name'],
    ['layernorm 2d', ['models.convnext.LayerNorm2d'], 'its name: one word to Pagefind, which "2d" never matches'],
    ['layer scale', ['models.convnext.CNBlock'], 'it takes `layer_scale`, a compound parameter few blocks take'],
    [
      'window attention',
      ['models.maxvit.PartitionAttentionLayer', 'models.swin_transformer.ShiftedWindowAttention'],
      'an alias of the window-attention method, and the words of ShiftedWindowAttention',
    ],
    ['shifted window', ['models.swin_transformer.ShiftedWindowAttention'], 'the words of its name'],
    [
      'depthwise separable',
      [
        'models.mobilenetv2.InvertedResidual',
        'models.mobilenetv3.InvertedResidual',
        'models.mnasnet._InvertedResidual',
      ],
      'the depthwise synonyms its name carries (an inverted residual is a depthwise block)',
    ],
    [
      'inverted residual',
      ['models.mobilenetv2.InvertedResidual', 'models.mobilenetv3.InvertedResidual'],
      'a synonym of its name',
    ],
    ['feature pyramid', ['ops.feature_pyramid_network.FeaturePyramidNetwork'], 'a synonym of its name'],
    ['fpn', ['ops.feature_pyramid_network.FeaturePyramidNetwork'], 'a synonym of its name, before BackboneWithFPN'],
    ['roi align', ['ops.roi_align.RoIAlign'], 'its name'],
    ['ps roi align', ['ops.ps_roi_align.PSRoIAlign'], 'its name'],
    ['roi pool', ['ops.roi_pool.RoIPool'], 'its name'],
    ['deformable conv', ['ops.deform_conv.DeformConv2d'], 'an alias of the deformable-convolution method'],
    ['stochastic depth', ['ops.stochastic_depth.StochasticDepth'], 'its name'],
    ['drop path', ['ops.stochastic_depth.StochasticDepth'], 'a synonym of its name'],
    ['dropblock', ['ops.drop_block.DropBlock2d'], 'its name less its dimension'],
    [
      'multi head attention',
      ['models.maxvit.RelativePositionalMultiHeadAttention', 'models.video.mvit.MultiscaleAttention'],
      'the multi-head-attention method',
    ],
    ['pooling attention', ['models.video.mvit.MultiscaleAttention'], 'an alias of the multiscale-attention method'],
    ['patch embedding', ['models.video.swin_transformer.PatchEmbed3d'], 'the patch-embedding method'],
    ['patch merging', ['models.swin_transformer.PatchMerging'], 'its name'],
    ['conv bn relu', ['ops.misc.Conv2dNormActivation'], 'a synonym of its name, before the method’s other members'],
    ['mbconv', ['models.efficientnet.MBConv'], 'its name'],
    ['fused mbconv', ['models.efficientnet.FusedMBConv'], 'its name'],
    ['aspp', ['models.segmentation.deeplabv3.ASPP'], 'its name'],
    ['lr-aspp', ['models.segmentation.lraspp.LRASPP'], 'its name'],
    ['deeplab head', ['models.segmentation.deeplabv3.DeepLabHead'], 'its name'],
    [
      'transformer encoder',
      ['models.vision_transformer.EncoderBlock', 'models.vision_transformer.Encoder'],
      'the words of the transformer-encoder-block method’s name',
    ],
    ['vit block', ['models.vision_transformer.EncoderBlock'], 'an alias of the transformer-encoder-block method'],
    ['swin block', ['models.swin_transformer.SwinTransformerBlock'], 'an alias of the shifted-window method'],
    ['mlp block', ['models.vision_transformer.MLPBlock'], 'its name'],
    ['channel shuffle', ['models.shufflenetv2.InvertedResidual'], 'an alias of the shufflenet-unit method'],
    ['fire module', ['models.squeezenet.Fire'], 'the fire-module method'],
    ['dense block', ['models.densenet._DenseBlock'], 'its name (a leading underscore is not part of it)'],
    ['bottleneck', ['models.resnet.Bottleneck'], 'its name'],
    ['basic block', ['models.resnet.BasicBlock'], 'its name'],
    [
      'inception module',
      ['googlenet.Inception', ...'ABCDE'.split('').map((x) => `inception.Inception${x}`)].map((m) => `models.${m}`),
      'the inception-module method',
    ],
    ['convnext block', ['models.convnext.CNBlock'], 'a synonym of its name'],
    [
      'region proposal',
      ['models.detection.rpn.RegionProposalNetwork', 'models.detection.rpn.RPNHead'],
      'the region-proposal-network method',
    ],
    ['anchor generator', ['models.detection.anchor_utils.AnchorGenerator'], 'its name'],
    ['frozen batchnorm', ['ops.misc.FrozenBatchNorm2d'], 'its name less its dimension'],
    ['conv gru', ['models.optical_flow.raft.ConvGRU'], 'its name'],
    ['(2+1)d convolution', ['models.video.resnet.Conv2Plus1D'], 'an alias of the separable-3d-convolution method'],
  ];
  for (const [query, wanted, why] of cases) {
    it(`"${query}": ${wanted[0].split('.').pop()} (${why})`, async () => {
      const top = (await search(query)).slice(0, 3);
      expect(
        top.some((m) => wanted.map(tv).includes(m)),
        `top 3: ${top.join(', ')}`,
      ).toBe(true);
    });
  }
});

describe('what a query says beyond its results', () => {
  it('says why a block Pagefind’s words missed leads: its name, a synonym, a method, a parameter', async () => {
    await search('layer scale');
    expect(await page.locator('[data-results] > li').first().locator('.why').textContent()).toBe('Takes layer_scale');
    await search('se block');
    expect(await page.locator('[data-results] > li').first().locator('.why').textContent()).toBe(
      'Also known as “SE block”',
    );
    await search('vit block');
    expect(await page.locator('[data-results] > li').first().locator('.why').textContent()).toBe(
      'Implements Transformer encoder block',
    );
    expect(await page.locator('[data-none]').isVisible()).toBe(false);
  });

  it('says when the query names a method that no block of the catalog implements', async () => {
    // torchvision has no class of its own for a depthwise-separable convolution (its blocks inline one).
    await search('separable conv');
    expect(await page.locator('[data-none]').textContent()).toBe(
      'No block in this catalog implements Depthwise-separable convolution.',
    );
  });

  it('counts each filter value for the query: ticking it gives as many results as it said', async () => {
    await search('se block');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('[data-search]')?.dataset.counted === '1');
    expect(await page.locator('[data-counts-note]').textContent()).toBe('Counts: results for “se block”');
    const attention = page.locator('input[data-filter="category"][value="Attention"]');
    const said = Number((await attention.locator('xpath=..').locator('.count').textContent())!.replace(/\D/g, ''));
    expect(said).toBeGreaterThan(0);
    await rendered(page, () => attention.check());
    const status = (await page.locator('[data-status]').textContent())!;
    expect(Number(status.match(/^[\d,]+/)![0].replace(/,/g, ''))).toBe(said);
  });
});
