// What the spec stage reads from upstream text is kept between runs (pipeline/catalog/spec-memo.ts): structure
// readings by their module's blob, paper ids by the class text. Read back, they equal a fresh reading exactly; an
// edited module is read again.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codePapers } from '../../pipeline/catalog/papers.ts';
import { SpecMemo } from '../../pipeline/catalog/spec-memo.ts';
import { StructureReader } from '../../pipeline/catalog/structure/reader.ts';
import { Store } from '../../pipeline/index/store.ts';
import { indexFolders } from '../helpers/corpus.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';
import { STRUCTURE_FIXTURE } from './structure/fixtures.ts';

describe('the spec memo', () => {
  it('reads back what it kept, equal to a fresh reading, and reads an edited module again', async () => {
    const root = writeTree(STRUCTURE_FIXTURE);
    const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
    const puts: string[] = [];
    const kv = {
      get: (k: string) => store.kvGet('spec-memo', k),
      put: (k: string, v: string) => (puts.push(k), store.kvPut('spec-memo', k, v)),
    };
    const read = async (memo?: SpecMemo) => {
      const { program, discovered } = await indexFolders([{ id: 'fx', root }], store);
      const reader = new StructureReader(program, discovered.blocks, memo);
      return discovered.blocks.map((b) => JSON.stringify(reader.factsOf(b)));
    };
    const fresh = await read();
    expect(await read(new SpecMemo(kv))).toEqual(fresh);
    const kept = puts.length;
    expect(kept).toBeGreaterThan(0);
    expect(await read(new SpecMemo(kv))).toEqual(fresh);
    expect(puts).toHaveLength(kept);

    // One module edited: its classes are read again, nothing else is.
    const [path, text] = Object.entries(STRUCTURE_FIXTURE).find(([p, t]) => p.endsWith('.py') && t.includes('class '))!;
    writeTree({ [path]: `${text}\n# edited\n` }, root);
    await read(new SpecMemo(kv));
    expect(puts.length).toBeGreaterThan(kept);

    const cls = 'class Net:\n    """See arXiv:1512.03385."""\n';
    const papers = (memo?: SpecMemo) =>
      codePapers({ sourceId: 'fx', module: 'm' }, cls, { file: null, functions: [], builders: [] }, memo);
    expect(papers(new SpecMemo(kv))).toEqual(papers());
    expect(papers(new SpecMemo(kv))).toEqual(papers());
    store.close();
  });
});
