// The search page's filter values (src/lib/search-facets.ts): counted per value, none without a block.
import { describe, expect, it } from 'vitest';
import type { BlockSummary } from '../../pipeline/contract/summary.ts';
import { searchFacets } from '../../src/lib/search-facets.ts';

const block = (over: Partial<BlockSummary>): BlockSummary => ({
  slug: 's',
  id: 'x:m.B',
  name: 'B',
  module: 'm',
  sourceId: 'torchvision',
  kind: 'block',
  categories: ['attention'],
  status: 'passed',
  params: 10,
  license: 'MIT',
  ...over,
});

describe('search facets', () => {
  const facets = searchFacets([
    block({}),
    block({ categories: ['mlp'], status: 'failed', params: null }),
    block({ categories: ['mlp'], sourceId: 'timm', license: 'Apache-2.0' }),
  ]);
  const values = (name: string) => facets.find((f) => f.name === name)!.values;

  it('counts the blocks of each value, in the catalog order of categories', () => {
    expect(values('category')).toEqual([
      { value: 'Attention', label: 'Attention', count: 1 },
      { value: 'MLP', label: 'MLP', count: 2 },
    ]);
    expect(values('source').map((v) => [v.value, v.count])).toEqual([
      ['timm', 1],
      ['torchvision', 2],
    ]);
  });

  it('offers no value that no block carries (no "not validated" with 0 blocks)', () => {
    // Why: a value with no block can only lead to an empty result list.
    expect(values('status').map((v) => v.value)).toEqual(['passed', 'failed']);
  });
});
