// The search page's name index (src/lib/name-index.ts): which blocks a name key names and how, what a key names that
// no block implements, and shards a query can find its key in. Each case with why.
import { describe, expect, it } from 'vitest';
import type { MethodRecord } from '../../pipeline/contract/methods.ts';
import { nameKey } from '../../pipeline/util/name-key.ts';
import { NameIndexBuilder, type NameSource } from '../../src/lib/name-index.ts';
import { MAX_HITS, shardOf, type NameEntry, type NameShard } from '../../src/lib/name-index-format.ts';

const source = (name: string, over: { status?: string; params?: string[]; module?: string } = {}): NameSource => ({
  id: `tv:${over.module ?? 'm'}.${name}`,
  name,
  paramNames: over.params ?? [],
  block: {
    url: `/blocks/${name.toLowerCase()}/`,
    title: name,
    module: `${over.module ?? 'm'}.${name}`,
    status: over.status ?? 'passed',
    params: '',
    filters: { category: ['Attention'], source: ['tv'], status: [over.status ?? 'passed'], license: ['MIT'] },
  },
});
const method = (name: string, aliases: string[], members: NameSource[]): MethodRecord => ({
  slug: nameKey(name),
  name,
  summary: 's',
  categories: [],
  aliases,
  papers: [],
  members: members.map((m) => ({ blockId: m.id, rule: 'name' })),
});

/** The entry for `query` and its hits as `Title:tier[:why]`. */
function lookup(shards: NameShard[], query: string): { entry?: NameEntry; hits: string[] } {
  const key = nameKey(query);
  const shard = shards[shardOf(key, shards.length)];
  const entry = shard.keys[key];
  const hits = (entry?.hits ?? []).map((h) =>
    [shard.blocks[h.block].title, h.tier, ...(h.why ? [h.why] : [])].join(':'),
  );
  return { entry, hits };
}

describe('name index', () => {
  const se = source('SqueezeExcitation');
  const qse = source('QuantizableSqueezeExcitation');
  const ln = source('LayerNorm2d');
  const cn = source('CNBlock', { params: ['dim', 'layer_scale', 'norm_layer'] });
  const enc = source('EncoderBlock');
  const shards = new NameIndexBuilder(
    [se, qse, ln, cn, enc],
    [
      method('Squeeze-and-excitation', ['SE block'], [se, qse]),
      method('Transformer encoder block', ['ViT block'], [enc]),
      method('Depthwise-separable convolution', ['separable conv', 'DWConv'], []),
    ],
  ).build();

  it('names a block by its name, whatever the case and separators', () => {
    // "layernorm 2d" is two words to Pagefind, neither of which is the indexed word "layernorm2d".
    expect(lookup(shards, 'layernorm 2d').hits).toEqual(['LayerNorm2d:name']);
  });

  it('names a block by its name less a dimension or version suffix', () => {
    expect(lookup(shards, 'layer norm').hits).toContain('LayerNorm2d:name-variant');
  });

  it('ranks a synonym of the name before a method the block implements', () => {
    // "SE block" is a term of SqueezeExcitation's synonym group; QuantizableSqueezeExcitation only implements SE.
    expect(lookup(shards, 'se block').hits).toEqual([
      'SqueezeExcitation:synonym:SE block',
      'QuantizableSqueezeExcitation:method:Squeeze-and-excitation',
    ]);
  });

  it('names the members of a method by its name and aliases', () => {
    expect(lookup(shards, 'ViT block').hits).toEqual(['EncoderBlock:method:Transformer encoder block']);
    expect(lookup(shards, 'transformer encoder block').hits).toEqual(['EncoderBlock:method:Transformer encoder block']);
  });

  it('names a block by a compound parameter it takes, never by a plain one', () => {
    // `layer_scale` is what a reader calls LayerScale; `dim` names nothing in particular.
    expect(lookup(shards, 'layer scale').hits).toEqual(['CNBlock:parameter:layer_scale']);
    expect(lookup(shards, 'dim').entry).toBeUndefined();
  });

  it('keeps each block once, at its best reason', () => {
    // SqueezeExcitation is also a member of the method named "Squeeze-and-excitation", a term of its own group.
    expect(lookup(shards, 'squeeze-and-excitation').hits).toEqual([
      'SqueezeExcitation:synonym:squeeze-and-excitation',
      'QuantizableSqueezeExcitation:method:Squeeze-and-excitation',
    ]);
  });

  it('says which methods a key names that no block implements, only when it names no block', () => {
    expect(lookup(shards, 'separable conv').entry).toEqual({
      hits: [],
      unimplemented: ['Depthwise-separable convolution'],
    });
    // "DWConv" is also a term of synonyms.json's depthwise group, of which a CNBlock is a kind: it names a block.
    expect(lookup(shards, 'DWConv').entry).toEqual({ hits: [expect.objectContaining({ tier: 'synonym' })] });
  });

  it('drops a parameter name carried by more than 25 blocks: it names no concept of its own', () => {
    const many = Array.from({ length: 26 }, (_, i) => source(`B${i}`, { params: ['norm_layer'] }));
    const few = Array.from({ length: 25 }, (_, i) => source(`C${i}`, { params: ['window_size'] }));
    const idx = new NameIndexBuilder([...many, ...few], []).build();
    expect(lookup(idx, 'norm layer').entry).toBeUndefined();
    expect(lookup(idx, 'window size').hits).toHaveLength(25);
  });

  it(`keeps at most ${MAX_HITS} hits a key, passed blocks first`, () => {
    const list = Array.from({ length: 60 }, (_, i) =>
      source('Mlp', { module: `m${i}`, status: i < 30 ? 'failed' : 'passed' }),
    );
    const { hits } = lookup(new NameIndexBuilder(list, []).build(), 'mlp');
    expect(hits).toHaveLength(MAX_HITS);
    const idx = new NameIndexBuilder(list, []).build();
    const shard = idx[shardOf('mlp', idx.length)];
    const statuses = shard.keys.mlp.hits.map((h) => shard.blocks[h.block].status);
    expect(statuses.slice(0, 30).every((s) => s === 'passed')).toBe(true);
  });

  it('splits into shards by key, each key in the shard shardOf names, a block written once per shard', () => {
    const list = Array.from({ length: 600 }, (_, i) => source(`Block${i}`));
    const idx = new NameIndexBuilder(list, []).build();
    expect(idx.length).toBeGreaterThan(1);
    idx.forEach((shard, n) => {
      for (const key of Object.keys(shard.keys)) expect(shardOf(key, idx.length)).toBe(n);
      expect(new Set(shard.blocks.map((b) => b.url)).size).toBe(shard.blocks.length);
    });
  });
});
