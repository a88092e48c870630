// The index's table groups are versioned apart: a change to the index tables (a cache of parses) must not drop the
// validation cache in `kv` (minutes of sandboxed runs), and the reverse. Real SQLite files, reopened as a later
// release with bumped versions would reopen them.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Store, TABLE_VERSIONS } from '../../pipeline/index/store.ts';
import { tempDir } from '../helpers/tree.ts';

function seeded(file: string): void {
  const s = new Store(file);
  s.putFacts([{ sha1: 'a'.repeat(40), size: 1, facts: { parserVersion: 1 } as never }]);
  s.kvPut('validate', 'k', '{"status":"passed"}');
  s.close();
}

describe('table versions', () => {
  it('keeps the validation cache when the index tables change', () => {
    const file = join(tempDir('nnb-tv-'), 'index.sqlite');
    seeded(file);
    const s = new Store(file, { ...TABLE_VERSIONS, index: TABLE_VERSIONS.index + 1 });
    expect(s.kvGet('validate', 'k')).toBe('{"status":"passed"}');
    expect(s.getFacts('a'.repeat(40))).toBeUndefined(); // the parse cache was rebuilt
    s.close();
  });

  it('keeps the parse cache when the kv tables change', () => {
    const file = join(tempDir('nnb-tv-'), 'index.sqlite');
    seeded(file);
    const s = new Store(file, { ...TABLE_VERSIONS, kv: TABLE_VERSIONS.kv + 1 });
    expect(s.kvGet('validate', 'k')).toBeUndefined();
    expect(s.getFacts('a'.repeat(40))).toBeDefined();
    s.close();
  });

  it('reads a database written before groups were versioned (user_version 1) without dropping anything', () => {
    const file = join(tempDir('nnb-tv-'), 'index.sqlite');
    seeded(file);
    const db = new Database(file);
    db.exec('DROP TABLE table_versions');
    db.pragma('user_version = 1');
    db.close();
    const s = new Store(file);
    expect(s.kvGet('validate', 'k')).toBe('{"status":"passed"}');
    expect(s.getFacts('a'.repeat(40))).toBeDefined();
    s.close();
  });
});
