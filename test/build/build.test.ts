// End-to-end catalog builds on a fixture corpus: schema-valid, deterministic, no upstream body lines, sharded
// builds merged equal to an unsharded build, and provenance hashes that match git's.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { loadConfig } from '../../pipeline/config/load.ts';
import { Store } from '../../pipeline/index/store.ts';
import { DEDUP_NAMESPACES } from '../../pipeline/run/kv-store.ts';
import { tempDir } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';
import { BODY_LINES, fixtureCorpus } from './fixture.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

describe('nnblocks build', () => {
  let config: string;
  let root: string;
  let full: string;

  beforeAll(async () => {
    ({ config, root } = fixtureCorpus());
    full = tempDir('nnb-cat-');
    expect(await runCli(['build', '--config', config, '--out', full, '--json'], quiet)).toBe(0);
  });

  it('writes a schema-valid catalog with every block', () => {
    expect(checkCatalog(full).errors).toEqual([]);
    const names = [...catalogFiles(full).keys()].filter((k) => k.startsWith('blocks/'));
    expect(names).toHaveLength(6);
    const stats = JSON.parse(readFileSync(join(full, 'stats.json'), 'utf8'));
    expect(stats.blocks).toBe(6);
    expect(stats.validation.validated).toBe(6);
    expect(stats.validation.passed).toBe(5); // Broken fails with an unresolved name
  });

  it("records the config relative to its project root and the corpus's name, never a path of this machine", () => {
    // The block page's extract command passes the config back (`--config corpus.json`); the config
    // lives in a temporary folder, outside the working directory the build ran in.
    const info = JSON.parse(readFileSync(join(full, 'build-info.json'), 'utf8'));
    expect(info.config).toBe('corpus.json');
    expect(info.corpusName).toBe('fixture');
    // A checkout pip cannot install (the fixture has no setup.py or pyproject.toml): no pip line on its pages.
    const sources = JSON.parse(readFileSync(join(full, 'sources.json'), 'utf8')).sources;
    expect(sources).toMatchObject([{ id: 'tiny', installable: false }]);
  });

  it('never carries an upstream function body line, docstring or comment', () => {
    for (const [name, text] of catalogFiles(full)) {
      for (const line of BODY_LINES) expect(text.includes(line), `${name} has "${line}"`).toBe(false);
      expect(text.includes('Normalizes x.'), name).toBe(false);
      expect(text.includes('must not be published'), name).toBe(false);
    }
  });

  it('records SWHIDs that match git hash-object', () => {
    const spec = JSON.parse(readFileSync(join(full, 'blocks', 'tiny.tinynet.blocks.attention.json'), 'utf8'));
    const blob = execFileSync('git', ['hash-object', join(root, 'tinynet/blocks.py')], { encoding: 'utf8' }).trim();
    expect(spec.provenance.swhid).toBe(`swh:1:cnt:${blob}`);
    expect(spec.provenance.swhidQualified).toContain(';anchor=swh:1:rev:');
    expect(spec.categories).toContain('attention');
    expect(spec.kind).toBe('block');
  });

  it('carries hostile upstream strings as data', () => {
    const file = readdirSync(join(full, 'blocks')).find((f) => f.includes('proto'))!;
    const spec = JSON.parse(readFileSync(join(full, 'blocks', file), 'utf8'));
    expect(spec.name).toBe('__proto__');
    expect(spec.interface.constructorParams[0].default).toBe('"<script>alert(1)</script>"');
  });

  it('writes the change feed against the catalog it replaces', async () => {
    const first = JSON.parse(readFileSync(join(full, 'changes.json'), 'utf8'));
    expect(first.previous).toBeNull();
    expect(await runCli(['build', '--config', config, '--out', full, '--json'], quiet)).toBe(0);
    const second = JSON.parse(readFileSync(join(full, 'changes.json'), 'utf8'));
    expect(second.previous.blocks).toBe(6);
    expect(second.summary).toMatchObject({ new: 0, removed: 0, moved: 0, changed: 0 });
    expect(readFileSync(join(full, 'changes.atom'), 'utf8')).toContain('<feed xmlns="http://www.w3.org/2005/Atom"');
  });

  it('is deterministic: a second build gives byte-identical files', async () => {
    const again = tempDir('nnb-cat-');
    expect(await runCli(['build', '--config', config, '--out', again, '--json'], quiet)).toBe(0);
    expect(catalogFiles(again)).toEqual(catalogFiles(full));
  });

  it('gives the same bytes from warm caches as from none (assembled modules, own code, fingerprints, result)', async () => {
    const store = Store.open(loadConfig(config).cacheDir);
    const kept = (ns: string) =>
      (store.db.prepare('SELECT count(*) AS n FROM kv WHERE ns = ?').get(ns) as { n: number }).n;
    try {
      // The builds before this one left every cache warm: this build takes everything from them...
      const namespaces = ['assembled', ...Object.values(DEDUP_NAMESPACES)];
      for (const ns of namespaces) expect(kept(ns), ns).toBeGreaterThan(0);
      const warm = tempDir('nnb-cat-');
      expect(await runCli(['build', '--config', config, '--out', warm, '--json'], quiet)).toBe(0);
      // ...and this one from none.
      for (const ns of namespaces) store.db.prepare('DELETE FROM kv WHERE ns = ?').run(ns);
      const cold = tempDir('nnb-cat-');
      expect(await runCli(['build', '--config', config, '--out', cold, '--json'], quiet)).toBe(0);
      expect(catalogFiles(warm)).toEqual(catalogFiles(full));
      expect(catalogFiles(cold)).toEqual(catalogFiles(full));
    } finally {
      store.close();
    }
  });

  it('merges sharded builds into exactly the unsharded catalog (N = 1, 2, 3)', async () => {
    for (const n of [1, 2, 3]) {
      const parts: string[] = [];
      for (let k = 1; k <= n; k++) {
        const part = tempDir(`nnb-part-${k}-`);
        expect(
          await runCli(['build', '--config', config, '--shard', `${k}/${n}`, '--out', part, '--json'], quiet),
        ).toBe(0);
        parts.push(part);
      }
      const merged = tempDir('nnb-merged-');
      expect(await runCli(['merge', ...parts, '--out', merged, '--json'], quiet)).toBe(0);
      expect(catalogFiles(merged), `N = ${n}`).toEqual(catalogFiles(full));
    }
  });

  it('refuses an incomplete set of partials', async () => {
    const part = tempDir('nnb-part-');
    await runCli(['build', '--config', config, '--shard', '1/2', '--out', part, '--json'], quiet);
    const errs: string[] = [];
    const code = await runCli(['merge', part, '--out', tempDir()], () => ({
      ...quiet(),
      err: (t: string) => errs.push(t),
    }));
    expect(code).toBe(2);
    expect(errs.join('')).toContain('complete sharded build');
  });
});
