// The catalog format: the synthetic fixture validates against schemas/catalog/, the checker catches the
// mistakes a builder could make, the site's loader holds every file to the same schema, and the generator is
// deterministic (the benchmark relies on it).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { wilsonProportion } from '../../pipeline/catalog/proportion.ts';
import { readCatalogFile } from '../../src/lib/catalog.ts';
import { forgeBlock, makeCatalog } from './fixtures/make-catalog.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-format-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('catalog format', () => {
  it('accepts the synthetic catalog', () => {
    const c = makeCatalog({ dir: join(work, 'ok'), blocks: 50 });
    expect(checkCatalog(c.dir).errors).toEqual([]);
  });

  it('carries hostile names and HTML as data', () => {
    const c = makeCatalog({ dir: join(work, 'hostile'), blocks: 20 });
    const text = readFileSync(join(c.dir, 'blocks', `${c.hostile.slug}.json`), 'utf8');
    const spec = JSON.parse(text);
    expect(spec.name).toBe('__proto__');
    // JSON.parse makes `__proto__` a plain own property only as a key; as a value it is just a string.
    expect(Object.getPrototypeOf(spec)).toBe(Object.prototype);
    expect(text).toContain('<script>alert(1)</script>');
  });

  it('is deterministic', () => {
    const a = makeCatalog({ dir: join(work, 'a'), blocks: 30 });
    const b = makeCatalog({ dir: join(work, 'b'), blocks: 30 });
    for (const f of readdirSync(join(a.dir, 'blocks'))) {
      expect(readFileSync(join(b.dir, 'blocks', f), 'utf8')).toBe(readFileSync(join(a.dir, 'blocks', f), 'utf8'));
    }
    expect(readFileSync(join(b.dir, 'stats.json'), 'utf8')).toBe(readFileSync(join(a.dir, 'stats.json'), 'utf8'));
  });

  it('reports schema and cross-file mistakes', () => {
    const c = makeCatalog({ dir: join(work, 'bad'), blocks: 20 });
    const file = join(c.dir, 'blocks', `${c.attention.slug}.json`);
    const spec = JSON.parse(readFileSync(file, 'utf8'));
    spec.provenance.swhid = `swh:1:cnt:${'0'.repeat(40)}`; // no longer the blob hash
    spec.categories = ['attention-ish']; // not a category
    spec.extra = true; // unknown field: the contract is closed
    writeFileSync(file, JSON.stringify(spec));
    writeFileSync(
      join(c.dir, 'blocks', 'renamed.json'),
      JSON.stringify({ ...spec, categories: ['attention'], extra: undefined }),
    );
    const { errors } = checkCatalog(c.dir);
    expect(errors.some((e) => e.includes('/categories'))).toBe(true);
    expect(errors.some((e) => e.includes('must NOT have additional properties'))).toBe(true);
    expect(errors.some((e) => e.includes('renamed.json') && e.includes('does not match the file name'))).toBe(true);
    expect(errors.some((e) => e.includes('swhid does not match blobSha1'))).toBe(true);
    expect(errors.some((e) => e.startsWith('stats.json: blocks is 20'))).toBe(true);
  });

  it('refuses cause groups that do not add up to the blocks that did not pass, or name a group nobody has', () => {
    const c = makeCatalog({ dir: join(work, 'causes'), blocks: 20 });
    expect(checkCatalog(c.dir).errors).toEqual([]);
    const file = join(c.dir, 'stats.json');
    const stats = JSON.parse(readFileSync(file, 'utf8'));
    stats.causeGroups[0].count += 1;
    writeFileSync(file, JSON.stringify(stats));
    expect(checkCatalog(c.dir).errors.some((e) => e.startsWith('stats.json: causeGroups add up to'))).toBe(true);
    stats.causeGroups[0].count -= 1;
    stats.causeGroups[0].group = 'gremlins';
    writeFileSync(file, JSON.stringify(stats));
    expect(checkCatalog(c.dir).errors.some((e) => e.includes('/causeGroups/0/group'))).toBe(true);
  });

  it('is what the site reads: typed when it holds to the schema, refused (naming the fields) when forged', () => {
    const c = makeCatalog({ dir: join(work, 'site'), blocks: 20 });
    const file = join(c.dir, 'blocks', `${c.forgeable.slug}.json`);
    expect(readCatalogFile('block', file).slug).toBe(c.forgeable.slug);
    forgeBlock(c);
    // A forged record never reaches a page: the site build stops on it, saying where it breaks and what to do.
    expect(() => readCatalogFile('block', file)).toThrow(/blocks\/.*\.json: \/validation\/.* Hint: .*nnblocks build/);
    const err = (() => {
      try {
        readCatalogFile('block', file);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    })();
    for (const path of ['/composition/layers/0/type', '/validation/failureDetail', '/validation/recipe/seed'])
      expect(err).toContain(path);
  });

  it('computes Wilson intervals', () => {
    // 8/10: the textbook 95% Wilson interval is 0.490–0.943.
    const p = wilsonProportion(8, 10);
    expect(p.low).toBeCloseTo(0.4902, 3);
    expect(p.high).toBeCloseTo(0.9433, 3);
    expect(wilsonProportion(0, 0)).toEqual({ successes: 0, trials: 0, value: 0, low: 0, high: 0 });
  });
});
