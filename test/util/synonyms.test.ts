// The search synonym table (pipeline/util/synonyms.ts over data/synonyms.json): which names a block gets.
import { describe, expect, it } from 'vitest';
import { nameKey } from '../../pipeline/util/name-key.ts';
import { blockSynonyms, synonymGroups } from '../../pipeline/util/synonyms.ts';

describe('search synonyms', () => {
  it('gives a block every term of the groups its name belongs to', () => {
    // SqueezeExcitation is a term of squeeze-excitation: "SE block" finds it.
    expect(blockSynonyms({ name: 'SqueezeExcitation', layerTypes: [] }).own).toContain('SE block');
  });

  it('gives an instance the group terms, without making instances synonyms of each other', () => {
    // An MBConv is a depthwise block, but a search for "CNBlock" must not find it.
    const { own } = blockSynonyms({ name: 'MBConv', layerTypes: [] });
    expect(own).toContain('depthwise');
    expect(own).not.toContain('CNBlock');
  });

  it("adds its layers' terms apart, by the last segment of their type", () => {
    // Made of a SqueezeExcitation: found by "se" at a low weight, the block's own names stay separate.
    const s = blockSynonyms({ name: 'MBConv', layerTypes: ['torchvision.ops.misc.SqueezeExcitation'] });
    expect(s.parts).toContain('SE');
    expect(s.parts.filter((t) => s.own.includes(t))).toEqual([]);
  });

  it('has unique group ids and no term in two groups', () => {
    const groups = synonymGroups();
    expect(new Set(groups.map((g) => g.id)).size).toBe(groups.length);
    const seen = new Map<string, string>();
    for (const g of groups)
      for (const t of new Set(g.terms.map(nameKey))) {
        expect(seen.get(t), `${t} in ${g.id} and ${seen.get(t)}`).toBeUndefined();
        seen.set(t, g.id);
      }
  });
});
