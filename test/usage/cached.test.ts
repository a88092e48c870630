// The usage index kept between runs (pipeline/usage/cached.ts): answers read back for an unchanged corpus equal the
// mined ones, exactly, and any change to the corpus mines it again, since a call anywhere may build any block.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../pipeline/index/store.ts';
import { cachedUsageIndex } from '../../pipeline/usage/cached.ts';
import { buildUsageIndex } from '../../pipeline/usage/usage-index.ts';
import { indexFolders } from '../helpers/corpus.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';
import { TIMM_TREE } from './idioms-fixture.ts';

/** The store's reads and writes, counted: which answers came from it and which were mined. */
function counted(store: Store) {
  const c = { gets: 0, puts: 0 };
  return {
    c,
    kv: {
      get: (k: string) => (c.gets++, store.kvGet('usage', k)),
      put: (k: string, v: string) => (c.puts++, store.kvPut('usage', k, v)),
    },
  };
}

describe('usage kept between runs', () => {
  it('answers an unchanged corpus from the store, equal to mining it; a changed corpus is mined again', async () => {
    const root = writeTree(TIMM_TREE);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const first = await indexFolders([{ id: 'fx', root }], store);
    const ids = first.discovered.blocks.map((b) => b.id);
    const mined = buildUsageIndex(first.program, first.discovered.blocks);
    const expected = ids.map((id) => [mined.usageOf(id), mined.partBuilders(id)]);

    const cold = counted(store);
    const a = cachedUsageIndex(first.program, first.discovered.blocks, cold.kv);
    expect(ids.map((id) => [a.usageOf(id), a.partBuilders(id)])).toEqual(expected);
    expect(cold.c.puts).toBe(2 * ids.length);

    const second = await indexFolders([{ id: 'fx', root }], store);
    const warm = counted(store);
    const b = cachedUsageIndex(second.program, second.discovered.blocks, warm.kv);
    // Through JSON and back: the same answers, to the last key order.
    expect(JSON.stringify(ids.map((id) => [b.usageOf(id), b.partBuilders(id)]))).toBe(JSON.stringify(expected));
    expect(warm.c.puts).toBe(0);

    // A new call site in a file of its own: no block's file changed, yet a block gains a construction.
    writeTree({ 'zoo/extra.py': 'from zoo.resnet import Net\n\nnet = Net(layers=[3, 3], width=4)\n' }, root);
    const third = await indexFolders([{ id: 'fx', root }], store);
    const changed = counted(store);
    const c = cachedUsageIndex(third.program, third.discovered.blocks, changed.kv);
    const sites = c.usageOf('fx:zoo.resnet.Net').constructions.map((s) => s.path);
    expect(sites).toContain('zoo/extra.py');
    expect(changed.c.puts).toBe(1);
    store.close();
  });

  it('lets go of what it mined and keeps its answers; a later question is mined again, the same', async () => {
    const root = writeTree(TIMM_TREE);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const { program, discovered } = await indexFolders([{ id: 'fx', root }], store);
    const ids = discovered.blocks.map((b) => b.id);
    const mined = buildUsageIndex(program, discovered.blocks);
    const kv = counted(store);
    const index = cachedUsageIndex(program, discovered.blocks, kv.kv);
    const [first, ...rest] = ids;
    const before = index.usageOf(first);
    index.release?.();
    const gets = kv.c.gets;
    // Asked already: the answer it gave, without the store.
    expect(index.usageOf(first)).toBe(before);
    expect(kv.c.gets).toBe(gets);
    // Never asked: mined again (its kv entry is new), equal to a fresh mining.
    expect(rest.map((id) => index.usageOf(id))).toEqual(rest.map((id) => mined.usageOf(id)));
    store.close();
  });
});
