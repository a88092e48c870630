// Ranking on top of Pagefind's relevance (src/scripts/rank.ts), each case with why.
import { describe, expect, it } from 'vitest';
import type { Tier } from '../../src/lib/name-index-format.ts';
import { arrange, passedFirst, passesFilters, type NameMatch } from '../../src/scripts/rank.ts';

const r = (id: string) => ({ id });
const m = (id: string, tier: Tier, status = 'passed'): NameMatch => ({ id, tier, status, title: id });
const order = (results: { id: string }[], matches: NameMatch[]) =>
  arrange(results, matches, (x) => ({ id: `${x.id}*` })).map((a) => a.result.id);

describe('arrange', () => {
  it('puts a named block first wherever Pagefind ranked it, the others in Pagefind’s order', () => {
    // "se block": Pagefind's words rank 107 pages above SqueezeExcitation; its name index entry does not care.
    const results = Array.from({ length: 125 }, (_, i) => r(`p${i}`));
    const out = order(results, [m('p107', 'synonym')]);
    expect(out.slice(0, 3)).toEqual(['p107', 'p0', 'p1']);
    expect(out).toHaveLength(125);
    expect(new Set(out).size).toBe(125);
  });

  it('orders named blocks by tier, then passed first, then Pagefind’s order', () => {
    const results = ['a', 'b', 'c', 'd', 'e'].map(r);
    const out = order(results, [
      m('e', 'method'),
      m('d', 'name', 'failed'),
      m('c', 'name'),
      m('b', 'synonym'),
      m('a', 'parameter'),
    ]);
    expect(out).toEqual(['c', 'd', 'b', 'e', 'a']);
  });

  it('stands in for a named block Pagefind’s words missed, after those it found', () => {
    // "layernorm 2d": Pagefind never returns LayerNorm2d, whose name is one word to it.
    const out = order(['x', 'y'].map(r), [m('ln', 'name'), m('y', 'name')]);
    expect(out).toEqual(['y', 'ln*', 'x']);
  });

  it('keeps Pagefind’s order when nothing is named', () => {
    expect(order(['b', 'a'].map(r), [])).toEqual(['b', 'a']);
  });
});

describe('passesFilters', () => {
  const f = { category: ['Attention', 'MLP'], source: ['timm'], status: ['passed'], license: ['MIT'] };
  it('takes any ticked value within a filter, and every ticked filter', () => {
    expect(passesFilters(f, {})).toBe(true);
    expect(passesFilters(f, { category: ['Convolution', 'MLP'] })).toBe(true);
    expect(passesFilters(f, { category: ['MLP'], source: ['torchvision'] })).toBe(false);
  });
});

describe('passedFirst', () => {
  const h = (title: string, status = 'passed') => ({ id: `${title}/${status}`, title, status });
  it('never puts a failed duplicate above a passed block of the same name', () => {
    // The duplicates keep the slots they hold; only their order among themselves changes.
    const out = passedFirst([h('Mlp', 'failed'), h('Other'), h('Mlp', 'passed'), h('Mlp', 'blocked')]);
    expect(out.map((x) => x.id)).toEqual(['Mlp/passed', 'Other/passed', 'Mlp/blocked', 'Mlp/failed']);
  });

  it('keeps the order otherwise', () => {
    expect(passedFirst([h('B', 'failed'), h('A')]).map((x) => x.id)).toEqual(['B/failed', 'A/passed']);
  });
});
