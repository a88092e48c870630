// The block page's instructions, in the built site: each claim is generated from a catalog fact and is
// one a reader can act on. The extract command carries the config the catalog was built from; the pip line
// appears only for a source pip can install; the interpreter and torch are named; a requirement is shown at a
// version on the index; a block that never built has no architecture verdict; the corpus is named; a module no
// known distribution provides is never offered as a package to install. Same site build as static.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import {
  FIXTURE_CONFIG,
  FIXTURE_CORPUS_NAME,
  FIXTURE_ENVIRONMENT,
  FIXTURE_LOCAL_TORCH,
  UNKNOWN_MODULE,
} from './fixtures/make-catalog.ts';
import { parseHtml, type Page } from './helpers/html.ts';
import { siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
let specs: BlockSpec[];
const page = (path: string): Page => parseHtml(readFileSync(join(site.dist, path, 'index.html'), 'utf8'));
const words = (p: Page, selector: string) => p.one(selector).text().replace(/\s+/g, ' ').trim();
/** The first block matching `test`, by slug. */
const first = (test: (s: BlockSpec) => boolean): BlockSpec => specs.find(test)!;

beforeAll(async () => {
  site = await siteFixture();
  const dir = join(site.catalog.dir, 'blocks');
  specs = readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as BlockSpec);
});

describe('block page instructions', () => {
  it('gives the extract command with the config the catalog was built from', () => {
    const p = page(`blocks/${site.catalog.attention.slug}/`);
    expect(p.one('#extract-cmd').text()).toBe(
      `nnblocks extract ${site.catalog.attention.id} --config ${FIXTURE_CONFIG} --out blocks`,
    );
    expect(p.one('[data-config]').text()).toBe(FIXTURE_CONFIG);
  });

  it('offers pip install git+... only for a source pip can install; otherwise the clone and the extracted module', () => {
    const installable = page(`blocks/${first((s) => s.sourceId === 'torchvision').slug}/`);
    expect(installable.one('[data-install="git"]').text()).toMatch(
      /^pip install git\+https:\/\/github\.com\/pytorch\/vision@/,
    );
    const research = page(`blocks/${first((s) => s.sourceId === 'orphan-nets').slug}/`);
    expect(research.all('[data-install="git"]')).toEqual([]);
    expect(research.one('main').text()).not.toContain('pip install git+');
    const says = words(research, '[data-install="clone"]');
    expect(says).toContain('not a pip-installable package');
    expect(says).toContain('Use the extracted module');
    expect(research.one('#use-clone').text()).toMatch(/^git clone https:\/\/github\.com\/example\/orphan-nets /);
  });

  it('names the interpreter and torch to run with, from the build environment', () => {
    const p = page(`blocks/${site.catalog.attention.slug}/`);
    const lines = p.all('[data-runtime]');
    expect(lines.length).toBe(2); // under "Use it" and under the replay script
    for (const l of lines) {
      expect(l.one('[data-python]').text()).toBe(FIXTURE_ENVIRONMENT.python);
      expect(l.one('[data-torch]').text()).toBe(FIXTURE_ENVIRONMENT.torch);
      expect(l.text().replace(/\s+/g, ' ')).toContain('pip install torch==2.14.1');
    }
  });

  it('ends the replay script with a check of the recorded checksums and projections', () => {
    const p = page(`blocks/${site.catalog.attention.slug}/`);
    const script = p.one('pre.replay').text();
    const output = first((s) => s.slug === site.catalog.attention.slug).validation!.outputs[0];
    expect(script).toContain(`float('${output.checksum}'), float('${output.projection}')`);
    const end = script.trimEnd().split('\n').slice(-5).join('\n');
    expect(end).toContain('assert shape == want_shape');
    expect(end).toContain('assert want_p is None or near(p, want_p, 0.01 * norm)');
  });

  it('shows requirements at a public release, never a local build', () => {
    const s = first((x) => x.dependencies.distributions.some((d) => d.version === FIXTURE_LOCAL_TORCH));
    const p = page(`blocks/${s.slug}/`);
    const chips = p.all('[data-requirement]').map((c) => c.text());
    expect(chips).toEqual(['torch==1.13.0']);
    expect(p.one('main').text()).not.toContain('gitunknown');
  });

  it('says "not built" for the architecture of a block that never built, not ✗', () => {
    const p = page(`blocks/${site.catalog.failed['needs-arguments'].slug}/`);
    expect(words(p, '[data-level="architecture"]')).toBe('architecture: not built');
    expect(p.one('section[aria-labelledby="similar"]').text()).not.toMatch(/architecture\s*✗/);
    // A block that built keeps its verdict.
    expect(words(page(`blocks/${site.catalog.attention.slug}/`), '[data-level="architecture"]')).toMatch(
      /^architecture [✓✗]$/,
    );
  });

  it("names the corpus by its config's name on the home and stats pages", () => {
    for (const path of ['', 'stats/']) {
      const p = page(path);
      expect(p.one('[data-corpus-name]').text(), path).toBe(FIXTURE_CORPUS_NAME);
      expect(p.one('[data-corpus] code').text(), path).toBe(FIXTURE_CONFIG);
    }
  });

  it('never offers a module no known distribution provides as a package to install', () => {
    const stats = page('stats/');
    expect(stats.one('table[data-unblock]').text()).not.toContain(UNKNOWN_MODULE);
    expect(words(stats, '[data-unblock-unknown]')).toContain(UNKNOWN_MODULE);
    // Read as "flax — 55 blocks", the module and its count apart (the dash once followed the name with no space).
    expect(stats.one('[data-unblock-unknown] li').text().replace(/\s+/g, ' ')).toMatch(
      new RegExp(`^${UNKNOWN_MODULE} — \\d+ blocks?$`),
    );
    expect(stats.one('table[data-per-source]').text()).toContain(`module ${UNKNOWN_MODULE} (no known distribution)`);
    const p = page(`blocks/${site.catalog.blockedUnknown!.slug}/`);
    const blocked = words(p, '[data-blocked]');
    expect(blocked).toContain(`module ${UNKNOWN_MODULE}`);
    expect(blocked).toContain(`no known distribution provides ${UNKNOWN_MODULE}`);
    expect(blocked).not.toContain('is assumed');
  });
});
