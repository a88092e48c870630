// The architecture diagram: the layout is deterministic and bounded, labels come from checked values, and
// the built block pages draw it as SVG with a <title> and <desc>, labels as text (the fixture's Unicode layer type
// included), and nothing for a block that never built.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ModuleTreeSpec } from '../../pipeline/contract/block-facts.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { DIAGRAM_LIMITS, layoutDiagram, tensorLabel } from '../../src/lib/diagram.ts';
import { ODD_LAYER_TYPES } from './fixtures/make-catalog.ts';
import { parseHtml } from './helpers/html.ts';
import { siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

const leaf = (name: string, type: string, params = 0): ModuleTreeSpec => ({ name, type, params, children: [] });
const tree: ModuleTreeSpec = {
  type: 'torchvision.ops.misc.SqueezeExcitation',
  params: 0,
  children: [
    leaf('avgpool', 'torch.nn.modules.pooling.AdaptiveAvgPool2d'),
    leaf('fc1', 'torch.nn.modules.conv.Conv2d', 272),
    leaf('fc2', 'torch.nn.modules.conv.Conv2d', 320),
    leaf('activation', 'torch.nn.modules.activation.ReLU'),
    leaf('scale_activation', 'torch.nn.modules.activation.Sigmoid'),
  ],
};
const io = {
  inputs: [{ shape: [2, 16, 8, 8], dtype: 'float32' }],
  outputs: [{ shape: [2, 16, 8, 8], dtype: 'float32' }],
};

describe('layoutDiagram', () => {
  it('draws input, the tree and output as rows, with subtree parameter counts', () => {
    const d = layoutDiagram({ name: 'SqueezeExcitation', tree, ...io });
    expect(d.boxes.map((b) => b.label)).toEqual([
      'input 2×16×8×8 float32',
      'SqueezeExcitation',
      'avgpool: AdaptiveAvgPool2d',
      'fc1: Conv2d',
      'fc2: Conv2d',
      'activation: ReLU',
      'scale_activation: Sigmoid',
      'output 2×16×8×8 float32',
    ]);
    expect(d.boxes[1].note).toBe('592 params');
    expect(d.summary).toBe(
      'Module tree of SqueezeExcitation: 6 modules; input 2×16×8×8 float32; output 2×16×8×8 float32.',
    );
    expect(d.edges.filter((e) => e.arrow)).toHaveLength(2);
    // Children sit one indent right of their parent, each row below the last.
    expect(d.boxes[2].x).toBeGreaterThan(d.boxes[1].x);
    expect(d.boxes.every((b, i) => i === 0 || b.y > d.boxes[i - 1].y)).toBe(true);
  });

  it('is deterministic', () => {
    expect(layoutDiagram({ name: 'A', tree, ...io })).toEqual(layoutDiagram({ name: 'A', tree, ...io }));
  });

  it('folds what does not fit: deep levels into "+N inside", long child lists into "+N more"', () => {
    const deep = (d: number): ModuleTreeSpec =>
      d === 0 ? leaf('x', 'torch.nn.ReLU') : { name: `l${d}`, type: 'pkg.Level', params: 1, children: [deep(d - 1)] };
    const tall = {
      type: 'pkg.Net',
      params: 0,
      children: Array.from({ length: 100 }, (_, i) => leaf(`b${i}`, 'pkg.B')),
    };
    const d1 = layoutDiagram({ name: 'Deep', tree: deep(6), inputs: [], outputs: [] });
    expect(d1.boxes.at(-1)!.note).toMatch(/\+3 inside/);
    const d2 = layoutDiagram({ name: 'Tall', tree: tall, ...io });
    expect(d2.boxes.length).toBeLessThanOrEqual(DIAGRAM_LIMITS.rows);
    expect(d2.boxes.some((b) => b.kind === 'more' && /^\+\d+ more$/.test(b.label))).toBe(true);
    expect(d2.boxes.at(-1)!.label).toBe('output 2×16×8×8 float32');
    expect(d2.summary).toMatch(/101 modules, \d+ shown/);
  });

  it('leaves out a shape or dtype that breaks the catalog rules rather than drawing it', () => {
    expect(tensorLabel({ shape: [2, -1], dtype: 'float32' })).toBeNull();
    expect(tensorLabel({ shape: [2], dtype: "float32'); import os" })).toBeNull();
    const d = layoutDiagram({ name: 'A', tree, inputs: [{ shape: [1], dtype: '<script>' }], outputs: [] });
    expect(d.boxes[0].kind).toBe('root');
  });
});

describe('the diagram on built block pages', () => {
  let site: SiteFixture;
  beforeAll(async () => {
    site = await siteFixture();
  });
  const spec = (slug: string): BlockSpec =>
    JSON.parse(readFileSync(join(site.catalog.dir, 'blocks', `${slug}.json`), 'utf8'));
  const page = (slug: string) => parseHtml(readFileSync(join(site.dist, 'blocks', slug, 'index.html'), 'utf8'));

  it('draws a passed block as an SVG with a title, a description and one box per row', () => {
    const { slug } = site.catalog.attention;
    const s = spec(slug);
    const svg = page(slug).one('svg.diagram');
    expect(svg.attr('role')).toBe('img');
    expect(svg.attr('aria-labelledby')).toBe('diagram-title diagram-desc');
    expect(svg.one('title').text()).toBe(`Architecture of ${s.name}`);
    expect(svg.one('desc').text()).toMatch(/^Module tree of .+: \d+ modules; input 2×64×14×14 float32; output/);
    const labels = svg.all('g text').map((t) => t.text());
    expect(labels).toContain('stem: Sequential');
    expect(svg.all('g rect')).toHaveLength(Number(svg.attr('data-shown')) + 2); // + input and output
  });

  it('keeps a Unicode layer type as text, and draws nothing for a block that never built', () => {
    const labels = page(site.catalog.hostile.slug)
      .one('svg.diagram')
      .all('g text')
      .map((t) => t.text());
    expect(labels.some((l) => l.endsWith(ODD_LAYER_TYPES[0].split('.').pop()!))).toBe(true);
    const failed = site.catalog.failed['needs-arguments'].slug;
    expect(page(failed).all('svg.diagram')).toEqual([]);
  });
});
