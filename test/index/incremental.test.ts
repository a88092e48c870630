// The index stage across runs, on one SQLite file: what a re-run reads, hashes and parses again (size+mtime
// shortcut, reuse of parses by blob hash, parser-version bumps, revision changes), what it prunes, and what an
// index schema change keeps.
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { gitBlobSha1 } from '../../pipeline/index/hash.ts';
import { indexSources } from '../../pipeline/index/index.ts';
import { Store, TABLE_VERSIONS } from '../../pipeline/index/store.ts';
import { PARSER_VERSION } from '../../pipeline/parse/facts.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import { folderSnapshot } from '../helpers/corpus.ts';
import { py, tempDir, writeTree, type Tree } from '../helpers/tree.ts';

// Fixed mtimes (seconds) so that "touched" never falls in the same millisecond as "written".
const T0 = 1_700_000_000;
const T1 = T0 + 60;

const BLOCK = py`
  import torch.nn as nn
  class Block(nn.Module):
      def forward(self, x):
          return x
`;

/** A folder source whose files all carry mtime T0; `b.py` and `c.py` have the same bytes (one blob). */
function fixture(extra: Tree = {}): string {
  const tree: Tree = {
    'pkg/__init__.py': '',
    'pkg/a.py': 'A = 1\n',
    'pkg/b.py': BLOCK,
    'pkg/c.py': BLOCK,
    ...extra,
  };
  const root = writeTree(tree);
  for (const path of Object.keys(tree)) utimesSync(join(root, path), T0, T0);
  return root;
}

function freshStore(): Store {
  return new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
}

async function run(store: Store, ...snapshots: SourceSnapshot[]) {
  const res = await indexSources(snapshots, store, quietContext(), { threads: 1 });
  return { ...res, blobOf: (path: string) => res.modules.find((m) => m.path === path)?.blob };
}

function storedBlobs(store: Store): string[] {
  return (store.db.prepare('SELECT sha1 FROM blobs ORDER BY sha1').all() as { sha1: string }[]).map((r) => r.sha1);
}

describe('index: size+mtime shortcut and reuse by blob hash', () => {
  it('a re-run with nothing changed parses nothing and returns the same modules', async () => {
    const root = fixture();
    const store = freshStore();
    const first = await run(store, folderSnapshot('fx', root));
    // Four files, three distinct blobs (b.py and c.py are one): `parsed` counts files, the table holds blobs.
    expect(first.stats).toMatchObject({ files: 4, parsed: 4, reused: 0 });
    expect(storedBlobs(store)).toHaveLength(3);
    const second = await run(store, folderSnapshot('fx', root));
    expect(second.stats).toMatchObject({ files: 4, parsed: 0, reused: 4, threads: 0 });
    expect(second.modules).toEqual(first.modules);
    store.close();
  });

  it('trusts size and mtime: a file rewritten with the same size and mtime is not read again', async () => {
    // Why: this is what makes a re-run cheap, and the test shows it by defeating it on purpose.
    const root = fixture();
    const store = freshStore();
    const before = (await run(store, folderSnapshot('fx', root))).blobOf('pkg/a.py');
    writeFileSync(join(root, 'pkg/a.py'), 'B = 2\n'); // same length as 'A = 1\n'
    utimesSync(join(root, 'pkg/a.py'), T0, T0);
    const again = await run(store, folderSnapshot('fx', root));
    expect(again.stats.parsed).toBe(0);
    expect(again.blobOf('pkg/a.py')).toBe(before);
    // A different mtime makes the index read, hash and parse the new bytes.
    utimesSync(join(root, 'pkg/a.py'), T1, T1);
    const changed = await run(store, folderSnapshot('fx', root));
    expect(changed.stats.parsed).toBe(1);
    expect(changed.blobOf('pkg/a.py')).toBe(gitBlobSha1(Buffer.from('B = 2\n')));
    expect(changed.modules.find((m) => m.path === 'pkg/a.py')!.facts.statements[0].binds).toEqual(['B']);
    store.close();
  });

  it('a touched file with the same bytes is hashed again but reuses its parse', async () => {
    const root = fixture();
    const store = freshStore();
    const first = await run(store, folderSnapshot('fx', root));
    utimesSync(join(root, 'pkg/b.py'), T1, T1);
    const touched = await run(store, folderSnapshot('fx', root));
    expect(touched.stats).toMatchObject({ parsed: 0, reused: 4 });
    expect(touched.blobOf('pkg/b.py')).toBe(first.blobOf('pkg/b.py'));
    // The row was rebuilt from the bytes: it records the new mtime, so the next run takes the shortcut again.
    expect(store.filesOf('fx').get('pkg/b.py')!.mtimeMs).toBe(T1 * 1000);
    store.close();
  });

  it('a new file whose bytes are already known (any source) is not parsed', async () => {
    const store = freshStore();
    await run(store, folderSnapshot('one', fixture()));
    const other = await run(
      store,
      folderSnapshot('one', fixture()),
      folderSnapshot('two', fixture({ 'x/d.py': BLOCK })),
    );
    expect(other.stats).toMatchObject({ parsed: 0, files: 9 });
    store.close();
  });

  it('a new revision of a source is read again even when size and mtime match', async () => {
    // Why: a checkout at another commit may keep a file's size and mtime; the revision is part of the shortcut.
    const root = fixture();
    const store = freshStore();
    await run(store, { ...folderSnapshot('fx', root), commit: 'c1' });
    writeFileSync(join(root, 'pkg/a.py'), 'B = 2\n');
    utimesSync(join(root, 'pkg/a.py'), T0, T0);
    const moved = await run(store, { ...folderSnapshot('fx', root), commit: 'c2' });
    expect(moved.stats.parsed).toBe(1);
    expect(moved.blobOf('pkg/a.py')).toBe(gitBlobSha1(Buffer.from('B = 2\n')));
    expect(store.filesOf('fx').get('pkg/a.py')!.revision).toBe('c2');
    store.close();
  });
});

describe('index: parser-version bump', () => {
  it('reparses every blob stored by an older parser, including files trusted by size and mtime', async () => {
    const root = fixture();
    const store = freshStore();
    await run(store, folderSnapshot('fx', root));
    // What a PARSER_VERSION bump looks like to an existing database: every row is one version behind.
    store.db.prepare('UPDATE blobs SET parser_version = ?').run(PARSER_VERSION - 1);
    const bumped = await run(store, folderSnapshot('fx', root));
    expect(bumped.stats).toMatchObject({ parsed: 4, reused: 0 });
    expect(bumped.modules.every((m) => m.facts.parserVersion === PARSER_VERSION)).toBe(true);
    const versions = store.db.prepare('SELECT DISTINCT parser_version AS v FROM blobs').all() as { v: number }[];
    expect(versions).toEqual([{ v: PARSER_VERSION }]);
    expect((await run(store, folderSnapshot('fx', root))).stats.parsed).toBe(0);
    store.close();
  });
});

describe('index: pruning', () => {
  it('drops the rows of files removed from a source, and blobs nothing refers to any more', async () => {
    const root = fixture();
    const store = freshStore();
    const first = await run(store, folderSnapshot('fx', root));
    const a = first.blobOf('pkg/a.py')!;
    const block = first.blobOf('pkg/b.py')!;
    rmSync(join(root, 'pkg/a.py'));
    rmSync(join(root, 'pkg/c.py'));
    const after = await run(store, folderSnapshot('fx', root));
    expect([...store.filesOf('fx').keys()].sort()).toEqual(['pkg/__init__.py', 'pkg/b.py']);
    expect(after.modules.map((m) => m.path).sort()).toEqual(['pkg/__init__.py', 'pkg/b.py']);
    // a.py's blob is gone; c.py's blob stays because b.py has the same bytes.
    expect(storedBlobs(store)).not.toContain(a);
    expect(storedBlobs(store)).toContain(block);
    store.close();
  });

  it('keeps a blob another source still refers to', async () => {
    const store = freshStore();
    const one = fixture();
    const two = fixture();
    const first = await run(store, folderSnapshot('one', one), folderSnapshot('two', two));
    const a = first.blobOf('pkg/a.py')!;
    rmSync(join(one, 'pkg/a.py'));
    await run(store, folderSnapshot('one', one), folderSnapshot('two', two));
    expect(store.filesOf('one').has('pkg/a.py')).toBe(false);
    expect(storedBlobs(store)).toContain(a);
    rmSync(join(two, 'pkg/a.py'));
    await run(store, folderSnapshot('one', one), folderSnapshot('two', two));
    expect(storedBlobs(store)).not.toContain(a);
    store.close();
  });

  it('keeps the rows of a failed source (its last good checkout is reused)', async () => {
    const root = fixture();
    const store = freshStore();
    const first = await run(store, folderSnapshot('fx', root));
    const failed: SourceSnapshot = { ...folderSnapshot('fx', root), status: 'failed', files: [] };
    const res = await run(store, failed);
    expect(res.modules).toEqual([]);
    expect(store.filesOf('fx').size).toBe(4);
    expect(storedBlobs(store)).toEqual([...new Set(first.modules.map((m) => m.blob))].sort());
    store.close();
  });
});

describe('index: schema change', () => {
  /** Reopens the database as a release whose index tables changed would (see TABLE_VERSIONS in store.ts). */
  const bumped = (file: string) => new Store(file, { ...TABLE_VERSIONS, index: TABLE_VERSIONS.index + 1 });

  it('rebuilds the index: files and parses of an older schema are not trusted', async () => {
    const root = fixture();
    const store = freshStore();
    await run(store, folderSnapshot('fx', root));
    store.close();
    const reopened = bumped(store.file);
    expect(reopened.filesOf('fx').size).toBe(0);
    expect((await run(reopened, folderSnapshot('fx', root))).stats).toMatchObject({ parsed: 4, reused: 0 });
    reopened.close();
  });

  it('keeps the validation cache, which lives in the same SQLite file', async () => {
    const store = freshStore();
    store.kvPut('validate', 'key-1', '{"status":"pass"}');
    store.close();
    const reopened = bumped(store.file);
    try {
      expect(reopened.kvGet('validate', 'key-1')).toBe('{"status":"pass"}');
    } finally {
      reopened.close();
    }
  });
});
