// Two small synthetic catalogs for the change-feed tests: `previous` and a `current` edited so that every change
// kind happens exactly where the tests expect it, plus a site-like copy (`api/catalog.json` + block files).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { SourcesFile } from '../../pipeline/contract/sources.ts';
import { CATALOG_FORMAT_VERSION } from '../../pipeline/contract/vocabulary.ts';
import { makeCatalog, stableJson } from '../site/fixtures/make-catalog.ts';

export interface FeedFixture {
  previous: string;
  current: string;
  /** Block ids by the change the current catalog makes to them. */
  expect: {
    new: string[];
    removed: string[];
    moved: Map<string, { from: string; matchedBy: string }>;
    changed: Map<string, string[]>;
  };
  hostileName: string;
}

const specPath = (dir: string, slug: string) => join(dir, 'blocks', `${slug}.json`);
const readSpec = (dir: string, slug: string) => JSON.parse(readFileSync(specPath(dir, slug), 'utf8')) as BlockSpec;

/** The slug of block `i` of a makeCatalog directory (file names are `<source>-<name>-<i>.json`). */
function slugOf(dir: string, i: number): string {
  const f = readdirSync(join(dir, 'blocks')).find((name) => name.endsWith(`-${i}.json`));
  if (!f) throw new Error(`fixture: no block ${i} in ${dir}`);
  return f.slice(0, -'.json'.length);
}

/** Rewrites a block; a new slug renames its file. */
function edit(dir: string, slug: string, fn: (s: BlockSpec) => void): BlockSpec {
  const spec = readSpec(dir, slug);
  fn(spec);
  rmSync(specPath(dir, slug));
  writeFileSync(specPath(dir, spec.slug), stableJson(spec));
  return spec;
}

function movePath(s: BlockSpec, module: string): void {
  s.module = module;
  s.id = `${s.sourceId}:${module}.${s.qualname}`;
  s.provenance.path = `${module.replace(/\./g, '/')}.py`;
}

export function makeFeedFixture(work: string): FeedFixture {
  const base = join(work, 'base');
  makeCatalog({ dir: base, blocks: 24 });
  const previous = join(work, 'previous');
  const current = join(work, 'current');
  rmSync(previous, { recursive: true, force: true });
  rmSync(current, { recursive: true, force: true });
  cpSync(base, previous, { recursive: true });
  cpSync(base, current, { recursive: true });
  const id = (i: number) => readSpec(base, slugOf(base, i)).id;

  // new: block 7 only exists in the current catalog.
  rmSync(specPath(previous, slugOf(previous, 7)));
  // removed: block 5 only exists in the previous one.
  rmSync(specPath(current, slugOf(current, 5)));

  // moved by blob: the file moved, unchanged (same blob, same lines): new module, id, path and slug.
  const m2 = edit(current, slugOf(current, 2), (s) => {
    movePath(s, `${s.module}_moved`);
    s.slug = `${s.slug}-moved`;
  });
  // moved by exact group: new id and file contents, but the same exact-duplicate group (block 21 is in exact-20).
  const m21 = edit(current, slugOf(current, 21), (s) => {
    movePath(s, `${s.module}.relocated`);
    s.slug = `${s.slug}-relocated`;
    s.provenance.blobSha1 = 'b'.repeat(40);
    s.provenance.swhid = `swh:1:cnt:${'b'.repeat(40)}`;
    s.provenance.lines = [500, 530];
  });
  // moved with the same id: a package's module became `__init__.py`, so the id stayed.
  const m3 = edit(current, slugOf(current, 3), (s) => {
    s.provenance.path = s.provenance.path.replace(/\.py$/, '/__init__.py');
  });

  // changed: interface, status, fingerprint, and the hostile block's name and default.
  const c4 = edit(current, slugOf(current, 4), (s) => {
    s.interface.forward!.params.push({
      name: 'scale',
      kind: 'keyword-only',
      annotation: 'float',
      default: '1.0',
      defaultLiteral: 1,
    });
  });
  const c8 = edit(current, slugOf(current, 8), (s) => {
    const { recipe, ...ran } = s.validation!; // a failed block has no replay recipe, and has a reason
    s.validation = {
      ...ran,
      status: 'failed',
      failureClass: 'timeout',
      failureDetail: 'TimeoutError',
      reason: { stage: 'forward', exceptionType: null, message: 'killed at the deadline', recipeTried: recipe ?? null },
      outputs: [],
    };
  });
  const c9 = edit(current, slugOf(current, 9), (s) => {
    s.dedup = { ...s.dedup!, archHash: 'f'.repeat(16) };
  });
  const hostileName = '__proto__</title><script>alert("x")</script>&amp;\u0001\ud800';
  const c11 = edit(current, slugOf(current, 11), (s) => {
    s.name = hostileName;
    s.interface.constructorParams[0].default = ']]></content><evil attr="1"/>';
  });

  // upstream: torchvision moved to a new commit.
  const sourcesPath = join(current, 'sources.json');
  const sources = JSON.parse(readFileSync(sourcesPath, 'utf8')) as SourcesFile;
  sources.sources.find((s) => s.id === 'torchvision')!.commit = 'c'.repeat(40);
  writeFileSync(sourcesPath, stableJson(sources));
  writeFileSync(
    join(current, 'build-info.json'),
    stableJson({ formatVersion: 1, builtAt: '2025-02-01T12:00:00Z', nnblocksVersion: '0.1.0-fixture' }),
  );

  return {
    previous,
    current,
    expect: {
      new: [id(7)],
      removed: [id(5)],
      moved: new Map([
        [m2.id, { from: id(2), matchedBy: 'blob' }],
        [m21.id, { from: id(21), matchedBy: 'exact-group' }],
        [m3.id, { from: id(3), matchedBy: 'id' }],
      ]),
      changed: new Map([
        [c4.id, ['interface.forward']],
        [c8.id, ['validation.status', 'validation.outputs']],
        [c9.id, ['dedup.archHash']],
        [c11.id, ['name', 'interface.constructorParams']],
      ]),
    },
    hostileName,
  };
}

/**
 * Publishes a catalog directory the way the site does: `api/catalog.json` (summaries with links) and
 * `api/blocks/<slug>.json` (the block files unchanged). See src/pages/api/.
 */
export function publishSite(catalogDir: string, siteDir: string): void {
  rmSync(siteDir, { recursive: true, force: true });
  mkdirSync(join(siteDir, 'api', 'blocks'), { recursive: true });
  const files = readdirSync(join(catalogDir, 'blocks')).sort();
  const blocks = files.map((f) => {
    const text = readFileSync(join(catalogDir, 'blocks', f), 'utf8');
    writeFileSync(join(siteDir, 'api', 'blocks', f), text);
    const s = JSON.parse(text) as BlockSpec;
    return {
      slug: s.slug,
      id: s.id,
      name: s.name,
      module: s.module,
      sourceId: s.sourceId,
      kind: s.kind,
      categories: s.categories,
      status: s.validation?.status ?? 'unvalidated',
      params: s.validation ? s.validation.params : null,
      license: s.provenance.license.spdx,
      page: `/nnblocks/blocks/${s.slug}/`,
      json: `/nnblocks/api/blocks/${s.slug}.json`,
    };
  });
  const sources = (JSON.parse(readFileSync(join(catalogDir, 'sources.json'), 'utf8')) as SourcesFile).sources;
  const stats = JSON.parse(readFileSync(join(catalogDir, 'stats.json'), 'utf8')) as unknown;
  writeFileSync(
    join(siteDir, 'api', 'catalog.json'),
    JSON.stringify({ formatVersion: CATALOG_FORMAT_VERSION, stats, sources, blocks }),
  );
}
