// A block page's search record (src/lib/search-terms.ts): its own name and synonyms, the names and aliases of the
// taxonomy methods it implements at the high weight, its papers' titles at the low weight, and sort keys that keep
// every block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { searchRecord } from '../../src/lib/search-terms.ts';
import { tempDir } from '../helpers/tree.ts';
import { makeCatalog } from './fixtures/make-catalog.ts';

const catalog = makeCatalog({ dir: join(tempDir('nnb-terms-'), 'catalog'), blocks: 20 });
const spec = JSON.parse(
  readFileSync(join(catalog.dir, 'blocks', `${catalog.forgeable.slug}.json`), 'utf8'),
) as BlockSpec;

describe('search record', () => {
  it('is found by the methods it implements and their aliases, and by its papers’ titles', () => {
    const r = searchRecord(spec, {
      methods: [{ name: 'Inverted residual (MBConv)', aliases: ['MBConv', 'depthwise'] }],
      paperTitles: ['MobileNetV2: Inverted Residuals and Linear Bottlenecks'],
    });
    expect(r.names[0]).toBe(spec.name);
    expect(r.names).toEqual(expect.arrayContaining(['Inverted residual (MBConv)', 'MBConv', 'depthwise']));
    expect(r.parts).toContain('MobileNetV2: Inverted Residuals and Linear Bottlenecks');
  });

  it('without taxonomy terms, is its name and synonyms only', () => {
    const r = searchRecord(spec);
    expect(r.names[0]).toBe(spec.name);
    expect(r.names).not.toContain('MBConv');
  });
});
