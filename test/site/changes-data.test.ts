// The site's change-feed module (src/lib/changes.ts) without a site build: a catalog with no feed reads as
// "none" (the /changes/ page then says "no change feed yet" and the build goes on), one with a feed reads typed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  changeAtom,
  changeFeed,
  changeJsonText,
  changesOfKind,
  hasChangeFeed,
  pinText,
  whereText,
} from '../../src/lib/changes.ts';
import { makeCatalog } from './fixtures/make-catalog.ts';
import { makeChanges } from './fixtures/make-changes.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-changes-data-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('site change-feed data', () => {
  it('reads a catalog without a feed (first build, older catalog) as no feed', () => {
    const c = makeCatalog({ dir: join(work, 'none'), blocks: 12 });
    expect(changeFeed(c.dir)).toBeUndefined();
    expect(changeAtom(c.dir)).toBeUndefined();
    expect(changeJsonText(c.dir)).toBeUndefined();
    expect(hasChangeFeed(c.dir)).toBe(false);
  });

  it('reads the feed the pipeline wrote, typed', () => {
    const c = makeCatalog({ dir: join(work, 'feed'), blocks: 24 });
    const made = makeChanges(c.dir);
    const feed = changeFeed(c.dir)!;
    expect(feed).toEqual(JSON.parse(JSON.stringify(made.feed)));
    expect(hasChangeFeed(c.dir)).toBe(true);
    expect(changeAtom(c.dir)!.toString('utf8')).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(changesOfKind(feed, 'removed').map((x) => x.block.id)).toEqual([made.removed.id]);
    expect(changesOfKind(feed, 'changed')[0].fields).toEqual([
      { field: 'validation.status', before: 'failed: timeout', after: 'passed' },
    ]);
  });

  it('refuses a feed of another format with a hint', () => {
    const dir = join(work, 'future');
    makeCatalog({ dir, blocks: 12 });
    writeFileSync(join(dir, 'changes.json'), JSON.stringify({ formatVersion: 99 }));
    expect(() => changeFeed(dir)).toThrow(/formatVersion 99.*Hint: rewrite it/);
  });

  it('formats pins and places', () => {
    expect(pinText({ commit: 'c'.repeat(40) })).toBe('c'.repeat(12));
    expect(pinText({ version: '1.2.0', tag: 'v1.2.0' })).toBe('1.2.0 (v1.2.0)');
    expect(pinText(undefined)).toBe('');
    expect(whereText({ id: 'a:b.C', slug: 'c', name: 'C', sourceId: 'a', path: 'b.py', lines: [3, 9] })).toBe(
      'b.py:3-9',
    );
    expect(whereText({ id: 'a:b.C', slug: 'c', name: 'C', sourceId: 'a' })).toBe('a:b.C');
  });
});
