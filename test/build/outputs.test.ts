// Where a build's outputs go: beside the config, never into the project's own tree; the change feed
// compares a catalog only with the same corpus's previous one; no path of this machine in any catalog or site file;
// output folders checked before any work (exit 2 naming the option, nothing fetched or built).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { tempDir } from '../helpers/tree.ts';
import { fixtureCorpus } from './fixture.ts';
import { cli } from '../helpers/cli.ts';

/** Runs the CLI, keeping what it printed. */

/** Every file below `dir` (a catalog, a site), as path → text. */
function filesBelow(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (statSync(path).isFile()) out.set(entry, readFileSync(path, 'latin1'));
  }
  return out;
}

const projectCatalog = resolve(import.meta.dirname, '..', '..', 'content', 'catalog');
const stateOf = (dir: string) =>
  existsSync(join(dir, 'build-info.json')) ? readFileSync(join(dir, 'build-info.json'), 'utf8') : null;

describe('where a build writes', () => {
  it('writes the catalog beside the config without --out, never into the project’s content/catalog', async () => {
    const before = stateOf(projectCatalog);
    const { config } = fixtureCorpus();
    const r = await cli(['build', '--config', config, '--no-validate', '--json']);
    expect(r.code, r.err).toBe(0);
    const dir = join(config, '..', 'catalog');
    expect(JSON.parse(r.out).catalogDir).toBe(dir);
    expect(checkCatalog(dir).errors).toEqual([]);
    expect(stateOf(projectCatalog)).toBe(before);
  });

  it('compares only with the same corpus’s previous catalog: another config’s in the folder starts a baseline', async () => {
    // Two configs in one folder share its catalog/ (as content/corpus.json and content/corpus.paper.json do).
    const { config, root } = fixtureCorpus();
    const other = join(config, '..', 'other.json');
    writeFileSync(other, readFileSync(config, 'utf8'));
    const catalog = join(config, '..', 'catalog');
    const feed = () => JSON.parse(readFileSync(join(catalog, 'changes.json'), 'utf8'));

    expect((await cli(['build', '--config', config, '--no-validate', '--json'])).code).toBe(0);
    expect((await cli(['build', '--config', other, '--no-validate', '--json'])).code).toBe(0);
    expect(feed().previous).toBeNull();
    expect(feed().diagnostics.map((d: { code: string }) => d.code)).toContain('previous-other-corpus');
    expect(JSON.parse(readFileSync(join(catalog, 'build-info.json'), 'utf8')).config).toBe('other.json');

    // The same config again: compared, nothing changed.
    expect((await cli(['build', '--config', other, '--no-validate', '--json'])).code).toBe(0);
    expect(feed().previous).toMatchObject({ origin: 'the previous build', blocks: 6 });
    expect(feed().summary).toMatchObject({ new: 0, removed: 0, moved: 0, changed: 0 });

    // Another corpus (no source in common) built into the same folder, even from a config of the same name.
    const elsewhere = tempDir('nnb-cfg-');
    const unrelated = join(elsewhere, 'other.json');
    writeFileSync(
      unrelated,
      JSON.stringify({
        name: 'u',
        cacheDir: join(elsewhere, 'cache'),
        sources: [{ id: 'u', kind: 'path', path: root }],
      }),
    );
    expect((await cli(['build', '--config', unrelated, '--out', catalog, '--no-validate', '--json'])).code).toBe(0);
    expect(feed().previous).toBeNull();
    expect(feed().summary.removed).toBe(0);
  });
});

describe('no path of this machine is published', () => {
  let root: string;
  let cfgDir: string;
  let catalog: string;
  let site: string;
  let hint: string;

  beforeAll(async () => {
    const fx = fixtureCorpus();
    root = fx.root;
    cfgDir = resolve(fx.config, '..');
    catalog = join(cfgDir, 'catalog');
    // Inside the project, as the site tests build theirs (docs/testing.md, "Site tests").
    site = join(import.meta.dirname, '..', '..', 'test-artifacts', `outputs-site-${process.pid}`);
    const first = await cli(['build', '--config', fx.config]);
    expect(first.code, first.err).toBe(0);
    // The second build's feed compares with the first: the folder it replaced must not be named.
    const second = await cli(['build', '--config', fx.config, '--site', site]);
    expect(second.code, second.err).toBe(0);
    hint = second.out;
  });

  afterAll(() => rmSync(site, { recursive: true, force: true }));

  // The source's and the config's folders, the nnblocks checkout, any temp folder.
  const leaks = (files: Map<string, string>) => {
    const paths = [root, cfgDir, resolve(import.meta.dirname, '..', '..'), `${tmpdir()}/`];
    return [...files].flatMap(([name, text]) => paths.filter((p) => text.includes(p)).map((p) => `${name}: ${p}`));
  };

  it('names a path source by its id, never its folder or a file:// URL', () => {
    const sources = JSON.parse(readFileSync(join(catalog, 'sources.json'), 'utf8'));
    expect(sources.sources[0].repository).toBe('local:tiny');
    const spec = JSON.parse(readFileSync(join(catalog, 'blocks', 'tiny.tinynet.blocks.attention.json'), 'utf8'));
    expect(spec.provenance.repository).toBe('local:tiny');
    expect(spec.provenance.permalink).toMatch(/^local:tiny@[0-9a-f]{40}\/tinynet\/blocks\.py#L\d+-L\d+$/);
    // A SWHID's origin is a URL: a local source's has none, rather than `origin=local:tiny`.
    expect(spec.provenance.swhidQualified).toMatch(/^swh:1:cnt:[0-9a-f]{40};anchor=swh:1:rev:[0-9a-f]{40};path=\//);
    // No URL to cite: the citation names the source's authors and leaves its URL fields out.
    expect(spec.citation.bibtex).toContain('author = {{tiny contributors}}');
    expect(spec.citation.bibtex).not.toContain('url = ');
    expect(spec.citation.cff).not.toMatch(/^(repository-code|url):/m);
    expect(checkCatalog(catalog).errors).toEqual([]);
  });

  it('leaves the source folder and the config folder out of every catalog and site file', () => {
    expect(JSON.parse(readFileSync(join(catalog, 'changes.json'), 'utf8')).previous.origin).toBe('the previous build');
    expect(leaks(filesBelow(catalog))).toEqual([]);
    expect(existsSync(join(site, 'changes', 'index.html'))).toBe(true);
    expect(leaks(filesBelow(site))).toEqual([]);
  });

  it('links no local: name as if it were a place: the page says the source has no public repository', () => {
    const html = [...filesBelow(site)].filter(([name]) => name.endsWith('.html'));
    expect(html.flatMap(([name, text]) => (/href="local:/.test(text) ? [name] : []))).toEqual([]);
    const page = readFileSync(join(site, 'blocks', 'tiny.tinynet.blocks.attention', 'index.html'), 'utf8');
    expect(page).toContain('has no public repository');
  });

  it('names a local previous catalog of `nnblocks changes` without its folder, in the feed and its warnings', async () => {
    const previous = join(tempDir('nnb-prev-'), 'old catalog');
    cpSync(catalog, previous, { recursive: true });
    const out = tempDir('nnb-feed-');
    const r = await cli(['changes', '--catalog', catalog, '--previous', previous, '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'changes.json'), 'utf8')).previous.origin).toBe('a local catalog');
    const missing = join(previous, 'gone');
    expect((await cli(['changes', '--catalog', catalog, '--previous', missing, '--out', out, '--json'])).code).toBe(0);
    const feed = readFileSync(join(out, 'changes.json'), 'utf8');
    expect(feed).toContain('previous-not-found');
    expect(feed).toContain('no previous catalog: <previous catalog>: no such file or directory');
    for (const [name, text] of filesBelow(out)) expect(text.includes(previous), name).toBe(false);
  });

  it('points the build’s hint at `nnblocks preview` and the folder it built', () => {
    expect(hint).toContain(`(preview: npx nnblocks preview test-artifacts/outputs-site-${process.pid})`);
  });
});

describe('output folders are checked before any work', () => {
  it('`build --out FILE`, a file on the way, or an unwritable place: exit 2 naming --out, nothing fetched', async () => {
    const { config } = fixtureCorpus();
    const cache = join(config, '..', 'cache');
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    for (const [out, why] of [
      [file, 'is a file, not a folder'],
      [join(file, 'catalog'), 'cannot be written'],
      ['/proc/nnblocks-catalog', 'cannot be written'],
    ]) {
      const r = await cli(['build', '--config', config, '--out', out, '--no-validate']);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(`--out ${out}: ${why}`);
      expect(r.err).toContain('hint: pass a folder this user can write for --out');
      expect(r.err).not.toContain('internal error');
      expect(existsSync(cache), 'the build fetched sources').toBe(false);
    }
  });

  it('`build --site` on a folder holding the config (emptied before the site build): exit 2', async () => {
    const { config } = fixtureCorpus();
    const r = await cli(['build', '--config', config, '--site', join(config, '..'), '--no-validate']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('holds the config');
    expect(existsSync(join(config, '..', 'cache'))).toBe(false);
  });

  it('`changes --out` makes a missing folder and refuses a file; `merge --out` refuses a file', async () => {
    const { config } = fixtureCorpus();
    expect((await cli(['build', '--config', config, '--no-validate', '--json'])).code).toBe(0);
    const catalog = join(config, '..', 'catalog');
    const fresh = join(tempDir(), 'feeds', 'today');
    const made = await cli(['changes', '--catalog', catalog, '--out', fresh]);
    expect(made.code, made.err).toBe(0);
    expect(existsSync(join(fresh, 'changes.json'))).toBe(true);

    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    const refused = await cli(['changes', '--catalog', catalog, '--out', file]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`--out ${file}: is a file, not a folder`);
    const part = tempDir('nnb-part-');
    mkdirSync(part, { recursive: true });
    const merge = await cli(['merge', part, '--out', file]);
    expect(merge.code).toBe(2);
    expect(merge.err).toContain(`--out ${file}: is a file, not a folder`);
  });

  it('`changes` and `merge` find the catalog of `--config` without --catalog or --out', async () => {
    const { config } = fixtureCorpus();
    const shard = join(tempDir('nnb-shard-'), 'partial-1');
    expect((await cli(['build', '--config', config, '--no-validate', '--shard', '1/1', '--out', shard])).code).toBe(0);
    const merged = await cli(['merge', shard, '--config', config, '--json']);
    expect(merged.code, merged.err).toBe(0);
    const catalog = join(config, '..', 'catalog');
    expect(JSON.parse(merged.out).catalogDir).toBe(catalog);
    const feed = await cli(['changes', '--config', config, '--json']);
    expect(feed.code, feed.err).toBe(0);
    expect(JSON.parse(feed.out).files).toEqual([join(catalog, 'changes.json'), join(catalog, 'changes.atom')]);
  });
});
