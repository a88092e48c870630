// Re-ranking of the first page of search results (src/scripts/rank.ts), each case with why.
import { describe, expect, it } from 'vitest';
import { rerank, type RankedHit } from '../../src/scripts/rank.ts';

const h = (title: string, status = 'passed', aliases: string[] = []): RankedHit & { id: string } => ({
  id: `${title}/${status}`,
  title,
  status,
  aliases,
});
const ids = (hits: { id: string }[]) => hits.map((x) => x.id);

describe('rerank', () => {
  it('puts the block named as the query first, ignoring case and separators', () => {
    // Pagefind scores words; "mbconv" as a whole name is what the reader typed.
    const out = rerank([h('InvertedResidual', 'passed', ['MBConv']), h('MBConv')], 'mb-conv');
    expect(ids(out)).toEqual(['MBConv/passed', 'InvertedResidual/passed']);
  });

  it('ranks own synonyms next, before other matches', () => {
    // "se block" is a term of SqueezeExcitation's own group, a mere word match for EncoderBlock.
    const out = rerank([h('EncoderBlock'), h('SqueezeExcitation', 'passed', ['SE block'])], 'SE block');
    expect(ids(out)).toEqual(['SqueezeExcitation/passed', 'EncoderBlock/passed']);
  });

  it('never puts a failed duplicate above a passed block of the same name', () => {
    // The duplicates keep the slots they hold; only their order among themselves changes.
    const out = rerank([h('Mlp', 'failed'), h('Other'), h('Mlp', 'passed'), h('Mlp', 'blocked')], 'conv');
    expect(ids(out)).toEqual(['Mlp/passed', 'Other/passed', 'Mlp/blocked', 'Mlp/failed']);
  });

  it("keeps Pagefind's order otherwise", () => {
    const out = rerank([h('B', 'failed'), h('A')], 'something');
    expect(ids(out)).toEqual(['B/failed', 'A/passed']);
  });
});
