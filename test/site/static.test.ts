// The catalog site's built files, checked without a browser: every page parses cleanly and carries its meta tags,
// every internal link resolves, no upstream code is published, hostile strings are text, and the block, listing,
// API, change-feed and 404 pages hold what they should. The browser checks are in browser.test.ts; both share one
// build per run (helpers/site-fixture.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { MethodsFile } from '../../pipeline/contract/methods.ts';
import { CAUSE_GROUPS } from '../../pipeline/contract/cause-groups.ts';
import type { StatsFile } from '../../pipeline/contract/stats.ts';
import { testPython } from '../helpers/python.ts';
import { TORCH_DTYPES } from '../../pipeline/contract/vocabulary.ts';
import { macs } from '../../src/lib/format.ts';
import {
  FIXTURE_SANDBOX,
  FIXTURE_MENTION_ARXIV,
  FIXTURE_SOURCE_ARXIV,
  HOSTILE_KWARG_VALUE,
  ODD_LAYER_TYPES,
} from './fixtures/make-catalog.ts';
import { REMOVED_NAME } from './fixtures/make-changes.ts';
import { parseHtml, type Page } from './helpers/html.ts';
import { auditPython, REPLAY_ATTRIBUTES, REPLAY_NAMES } from './helpers/python-audit.ts';
import { BASE, SITE, siteFixture, type SiteFixture } from './helpers/site-fixture.ts';

let site: SiteFixture;
const pages = new Map<string, Page>();

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** A built page by its path under the base, e.g. `blocks/x/` or `404.html`; parsed once. */
function page(path: string): Page {
  const file = path.endsWith('.html') ? path : `${path}index.html`;
  let p = pages.get(file);
  if (!p) pages.set(file, (p = parseHtml(readFileSync(join(site.dist, file), 'utf8'))));
  return p;
}

const htmlPages = () => [...files(site.dist)].filter((f) => f.endsWith('.html')).map((f) => relative(site.dist, f));
const spec = (slug: string): BlockSpec =>
  JSON.parse(readFileSync(join(site.catalog.dir, 'blocks', `${slug}.json`), 'utf8'));

beforeAll(async () => {
  site = await siteFixture();
});

describe('catalog site, built files', () => {
  it('parses every page without errors, each with its title, description, viewport and feed link', () => {
    const all = htmlPages();
    expect(all.length).toBeGreaterThan(100);
    for (const path of all) {
      const p = page(path);
      expect(p.errors, `${path}: HTML parse errors`).toEqual([]);
      expect(p.one('html').attr('lang'), path).toBe('en');
      expect(p.one('head title').text().trim(), path).not.toBe('');
      expect(p.one('head meta[charset]').attr('charset'), path).toBe('utf-8');
      expect(p.one('head meta[name="viewport"]').attr('content'), path).toContain('width=device-width');
      expect(p.one('head meta[name="description"]').attr('content'), path).not.toBe('');
      expect(p.one('head link[rel="alternate"][type="application/atom+xml"]').attr('href'), path).toBe(
        `${BASE}changes.atom`,
      );
    }
    const slug = site.catalog.attention.slug;
    // Absolute: the fixture site is configured with its URL (SITE), as a published one is.
    expect(page(`blocks/${slug}/`).one('head link[rel="canonical"]').attr('href')).toBe(
      `${SITE}${BASE}blocks/${slug}/`,
    );
    expect(page(`blocks/${slug}/`).one('head title').text()).toBe(`${site.catalog.attention.name} · nnblocks`);
  });

  it('resolves every internal link, stylesheet and fragment', () => {
    let checked = 0;
    for (const path of htmlPages()) {
      const p = page(path);
      const ids = new Set(p.all('[id]').map((e) => e.attr('id')));
      for (const e of [...p.all('[href]'), ...p.all('[src]')]) {
        const url = e.attr('href') ?? e.attr('src')!;
        if (/^(https?:|mailto:)/.test(url)) continue;
        checked++;
        if (url.startsWith('#')) {
          expect(ids.has(url.slice(1)), `${path}: ${url} names no element`).toBe(true);
          continue;
        }
        expect(url.startsWith(BASE), `${path}: ${url} is outside the base path`).toBe(true);
        const target = join(site.dist, url.slice(BASE.length).replace(/[?#].*$/, ''));
        const file = url.replace(/[?#].*$/, '').endsWith('/') ? join(target, 'index.html') : target;
        expect(existsSync(file), `${path}: ${url} resolves to nothing`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(1000);
    // Search loads Pagefind from the folder the page names.
    const bundle = page('search/').one('[data-bundle]').attr('data-bundle')!;
    expect(existsSync(join(site.dist, bundle.slice(BASE.length), 'pagefind.js'))).toBe(true);
  });

  it('publishes no upstream function-body line anywhere in the output', () => {
    for (const file of files(site.dist)) {
      if (/\.(pf_\w+|pagefind|wasm)$/.test(file)) continue; // gzipped index data; its source text is the HTML checked here
      const text = readFileSync(file, 'utf8');
      for (const line of site.catalog.upstreamBodyLines)
        expect(text.includes(line.trim()), `${file} contains an upstream line`).toBe(false);
    }
  });

  it('renders hostile strings as text, never as markup', () => {
    const p = page(`blocks/${site.catalog.hostile.slug}/`);
    expect(p.one('h1').text()).toBe('__proto__');
    const body = p.one('main').text();
    for (const payload of site.catalog.hostile.payloads) expect(body).toContain(payload);
    expect(p.all('script').map((s) => s.text())).not.toContainEqual(expect.stringContaining('alert('));
    expect(p.all('img')).toHaveLength(0);
    // A failure message carrying markup is text in the reason, on a page without an <img>.
    const failed = page(`blocks/${site.catalog.hostileFailure.slug}/`);
    expect(failed.one('[data-reason-error]').text()).toContain(site.catalog.hostileFailure.payload);
    expect(failed.all('img')).toHaveLength(0);
    const changes = page('changes/');
    expect(changes.one(`[data-change="removed"][data-block-id="${site.changes.removed.id}"] .gone`).text()).toBe(
      REMOVED_NAME,
    );
    expect(changes.all('main img')).toHaveLength(0);
    expect(readFileSync(join(site.dist, 'changes', 'index.html'), 'utf8')).not.toContain(REMOVED_NAME);
  });

  it('shows a recipe the replay rules refuse as no script at all (a forged one never reaches a page)', () => {
    // The schema passes this recipe; its reference names a kwarg holding a number, which only the replay rules
    // (and checkCatalog) refuse. A record the schema refuses stops the site build (catalog-format.test.ts).
    const p = page(`blocks/${site.catalog.forgeable.slug}/`);
    expect(p.all('pre.replay')).toHaveLength(0);
    expect(p.one('[data-replay-refused]').text()).toContain('No replay script');
    const copyable = [
      ...p.all('pre'),
      ...p.all('code'),
      ...p.all('button[data-copy]').map((b) => p.one(`#${b.attr('data-copy')}`)),
    ];
    expect(copyable.length).toBeGreaterThan(5);
    for (const e of copyable) expect(e.text(), `${e.tag} replays the block`).not.toContain('manual_seed(');
  });

  it('writes a hostile but valid recipe as Python literals only, and keeps dotted layer names', () => {
    const p = page(`blocks/${site.catalog.hostile.slug}/`);
    const script = p.one('pre.replay').text();
    expect(script).toMatch(/^[\x20-\x7e\n]*$/); // pure ASCII: no bidi override can reorder what a reader sees
    const a = auditPython(script);
    expect(a.error).toBeNull();
    expect(a.imports).toEqual(['contextlib', 'importlib', 'json', 'math', 'sys', 'torch']);
    expect(a.names.filter((n) => !/^x\d+$/.test(n) && !REPLAY_NAMES.includes(n))).toEqual([]);
    const dtypes: readonly string[] = TORCH_DTYPES;
    expect(a.attributes.filter((n) => !REPLAY_ATTRIBUTES.includes(n) && !dtypes.includes(n))).toEqual([]);
    expect(a.strings).toContain(HOSTILE_KWARG_VALUE);
    expect(a.importModule).toEqual(["entry['module']", "'torch.nn'"]);
    const layers = p.all('[aria-labelledby="composition"] code').map((c) => c.text());
    for (const t of ODD_LAYER_TYPES) expect(layers).toContain(t);
  });

  it('shows how upstream code ran on the stats page, as plain text', () => {
    const p = page('stats/');
    const facts = p.one('dl[data-sandbox="on"]');
    expect(facts.text()).toContain('on (bubblewrap)');
    expect(facts.one('[data-fact="uid"]').text()).toBe('65534 (nobody), gid 65534 (nobody)');
    expect(facts.one('[data-fact="host-uid"]').text()).toBe('65534 (nobody)');
    expect(facts.one('[data-fact="cap-eff"]').text()).toBe(`${FIXTURE_SANDBOX.capEff} (none)`);
    expect(facts.one('[data-fact="no-new-privs"]').text()).toBe('set');
    expect(facts.one('[data-fact="seccomp"]').text()).toBe('on');
    expect(facts.one('[data-fact="device"]').text()).toBe('cpu');
    expect(facts.one('[data-fact="tmp"]').text()).toBe('64 MiB (67,108,864 bytes)');
  });

  it('shows what validation ran with on the stats page: torch, CUDA, the installed set, requirements, as text', () => {
    const p = page('stats/');
    const facts = p.one('dl[data-environment="managed"]');
    expect(facts.one('[data-fact="torch"]').text()).toBe('2.14.1+cu130');
    expect(facts.one('[data-fact="cuda"]').text()).toBe('13.0');
    expect(facts.one('[data-fact="python"]').text()).toBe('3.11.2');
    expect(facts.one('[data-fact="packages"]').text()).toBe('47, digest aaaaaaaaaaaaaaaa');
    expect(p.all('table[data-requirements] tbody tr').map((r) => r.attr('data-requirement'))).toEqual([
      'addict',
      'termcolor',
    ]);
    const missing = p.one('tr[data-missing-requirement="opencv-python"]');
    // A hostile reason is text in the DOM, never markup.
    expect(missing.text()).toContain('<script>alert(1)</script>');
    expect(p.all('table[data-missing] script')).toEqual([]);
  });

  it("shows per-repository figures beside the paper's, and the distributions that would unblock blocks", () => {
    const stats = JSON.parse(readFileSync(join(site.catalog.dir, 'stats.json'), 'utf8')) as StatsFile;
    const p = page('stats/');
    const table = p.one('table[data-per-source]');
    const rows = table.all('tbody tr');
    expect(rows.map((r) => r.attr('data-source'))).toEqual(stats.perSource.map((r) => r.sourceId));
    const row = (id: string) => table.one(`tr[data-source="${id}"]`);
    // Matched by repository URL: torchvision is pytorch/vision (156 in the paper), timm pytorch-image-models (167).
    expect(row('torchvision').one('[data-paper]').text()).toBe('156');
    expect(row('timm').one('[data-paper]').text()).toBe('167');
    expect(row('fixture-lab').one('[data-paper]').text()).toBe('–');
    const tv = stats.perSource.find((r) => r.sourceId === 'torchvision')!;
    const cells = row('torchvision')
      .all('td')
      .map((c) => c.text().replace(/\s+/g, ' ').trim());
    expect(cells.slice(0, 7)).toEqual(
      [tv.files, tv.blocks, 156, tv.abstract!, tv.extracted!, tv.importOk, tv.passed].map((n) =>
        n.toLocaleString('en-US'),
      ),
    );
    expect(tv.blocked).toBeGreaterThan(0);
    expect(cells[7]).toContain('opencv-python');
    expect(cells[8]).toBe(
      tv.notRun.toLocaleString('en-US') + tv.notRunByRule.map((r) => ` ${r.rule} ${r.count}`).join(''),
    );
    expect(cells[10]).toContain(`${(tv.passRate!.value * 100).toFixed(1)}%`);
    const unblock = p.one('table[data-unblock]');
    const first = unblock.one('tbody tr').text().replace(/\s+/g, ' ');
    expect(first).toContain('opencv-python');
    expect(first).toContain(`${stats.unblock[0].blocks}`);
    expect(unblock.text()).toContain('scipy');
  });

  it('groups the blocks that did not pass as the paper groups its failures, beside its counts, in a table', () => {
    const stats = JSON.parse(readFileSync(join(site.catalog.dir, 'stats.json'), 'utf8')) as StatsFile;
    const p = page('stats/');
    const table = p.one('table[data-cause-groups]');
    expect(table.one('caption').text()).toContain('grouped as the NN-RAG paper groups its failures');
    expect(table.all('thead th').map((th) => th.attr('scope'))).toEqual(Array(7).fill('col'));
    // One row per group, the paper's four first, each headed by its name in words.
    expect(table.all('tbody tr').map((r) => r.attr('data-cause-group'))).toEqual(CAUSE_GROUPS.map((g) => g.id));
    const row = (g: string) => table.one(`tr[data-cause-group="${g}"]`);
    expect(row('native-ops').one('th[scope="row"]').text()).toBe('External C++/CUDA ops');
    expect(
      ['native-ops', 'dependencies', 'metaprogramming', 'repository-utilities'].map((g) =>
        row(g).one('[data-paper-count]').text(),
      ),
    ).toEqual(['87', '70', '52', '139']);
    // A group of ours says so in words, not only by the dash where the paper's count would be.
    expect(row('harness').one('[data-paper-count]').text()).toBe('–');
    expect(row('harness').one('th[scope="row"]').text()).toContain('no group in the paper');
    for (const r of stats.causeGroups!)
      expect(row(r.group).one('[data-count]').text(), r.group).toBe(r.count.toLocaleString('en-US'));
    // The fixture has compiled-ops failures, blocked and not-run blocks, and failures after import.
    for (const g of ['native-ops', 'not-installed', 'harness', 'after-import'])
      expect(stats.causeGroups!.find((r) => r.group === g)!.count, g).toBeGreaterThan(0);
    const { failed, notRun, blocked } = stats.validation;
    expect(table.one('tfoot [data-total]').text()).toBe((failed + notRun + blocked).toLocaleString('en-US'));
    expect(p.one('[data-import-ok]').text().replace(/\s+/g, ' ')).toContain("the paper's 941 of 1,289 (73.0%)");
    expect(p.one('[data-paper-others]').text()).toContain('335 blocks of its 12 other repositories');
  });

  it('says what a blocked block needs on its page, and badges it blocked rather than failed', () => {
    const p = page(`blocks/${site.catalog.blocked.slug}/`);
    expect(p.one('[data-blocked]').text().replace(/\s+/g, ' ')).toContain(
      `blocked: needs ${site.catalog.blocked.distribution}`,
    );
    expect(p.all('.badge').map((b) => b.text())).toContain('⊘ blocked');
    expect(p.all('.badge.failed')).toEqual([]);
    expect(p.one('[data-reason-error]').text()).toBe("ModuleNotFoundError: No module named 'cv2'");
    expect(p.all('[data-params]')).toEqual([]);
    expect(p.all('pre.replay')).toEqual([]);
  });

  it('badges what the harness could not run "not run automatically", apart from failed, with its own filter and figures', () => {
    const p = page(`blocks/${site.catalog.failed['needs-arguments'].slug}/`);
    expect(p.all('.badge').map((b) => b.text())).toContain('◌ not run automatically');
    expect(p.all('.badge.failed')).toEqual([]);
    expect(p.one('.meta .badge').attr('data-pagefind-filter')).toBe('status:not-run');
    expect(p.one('[data-not-run]').text().replace(/\s+/g, ' ').trim()).toMatch(
      /^not run automatically: no constructor arguments that build it were found — the harness could not run it, which says nothing about the code: not a failure, and not counted in the pass rate/,
    );
    // Broken code keeps the red ✗: the native extension and the hostile forward error are the code's.
    const broken = page(`blocks/${site.catalog.failed['native-extension'].slug}/`);
    expect(broken.all('.badge').map((b) => b.text())).toContain('✗ failed');
    expect(broken.all('[data-not-run]')).toEqual([]);
    // The search filter offers the status by its words, counted.
    const stats = JSON.parse(readFileSync(join(site.catalog.dir, 'stats.json'), 'utf8')) as StatsFile;
    const box = page('search/').one('input[data-filter="status"][value="not-run"]');
    expect(box).toBeDefined();
    expect(stats.validation.notRun).toBeGreaterThan(0);
    // The stats page gives the rate's definition with what it leaves out, and the causes by rule.
    const sp = page('stats/');
    expect(sp.one('[data-rate-definition]').text().replace(/\s+/g, ' ')).toBe(
      `Passed ÷ (passed + failed): ${stats.validation.passed} passed of ${stats.validation.passed + stats.validation.failed} that ran; ${stats.validation.notRun} not run automatically and ${stats.validation.blocked} blocked left out (of ${stats.validation.validated} validated).`,
    );
    expect(sp.one('#not-run').text()).toBe('Not run automatically');
    expect(stats.notRunCauses.map((c) => c.rule)).toEqual(expect.arrayContaining(['needs-arguments', 'time-limit']));
  });

  it('says why a block could not be built, naming the constructor parameter it needs, with no size or replay script', () => {
    const p = page(`blocks/${site.catalog.failed['needs-arguments'].slug}/`);
    const card = p.one('section[aria-labelledby="validation"]');
    const summary = card.one('[data-reason-summary]');
    expect(summary.text().replace(/\s+/g, ' ')).toBe('could not be built automatically: needs a backbone');
    expect(summary.all('code').map((c) => c.text())).toEqual(['backbone']); // `dim` has a role: inference fills it
    expect(card.one('[data-reason-stage]').text()).toBe('build');
    expect(card.one('[data-reason-error]').text()).toBe(
      "TypeError: __init__() missing 2 required positional arguments: 'backbone' and 'dim'",
    );
    expect(card.one('[data-reason-recipe]').text()).toContain('not recorded');
    // Never built: no "Parameters 0", no size at all, no replay script that would itself fail.
    const text = p.one('main').text();
    expect(text).not.toMatch(/Parameters\s*0|parameters at the test configuration/);
    expect(p.all('[data-params]')).toEqual([]);
    expect(card.all('dt').map((d) => d.text())).not.toContain('Parameters');
    expect(p.all('pre.replay')).toEqual([]);
    expect(text).not.toContain('Block(');
    expect(p.one('[data-replay-none]').text()).toContain('did not pass validation');
  });

  it('says what happened to every failed block by its class, never a bare "failed"', () => {
    const expected: Record<string, RegExp> = {
      'needs-arguments': /^could not be built automatically: needs a backbone$/,
      'forward-error': /^built, but no probe input ran forward: ValueError: <img src=x onerror="alert\(2\)"> is not/,
      'backward-error': /^ran forward, but backward failed: RuntimeError: element 0 of tensors does not require grad/,
      'native-extension': /^needs compiled extensions \(fixture_lab\._C\)$/,
      timeout: /^stopped at the time limit during forward/,
    };
    expect(Object.keys(site.catalog.failed).sort()).toEqual(Object.keys(expected).sort());
    for (const [cls, want] of Object.entries(expected)) {
      const p = page(`blocks/${site.catalog.failed[cls].slug}/`);
      expect(p.one('[data-reason-summary]').text().replace(/\s+/g, ' ').trim(), cls).toMatch(want);
      expect(p.all('pre.replay'), cls).toEqual([]);
    }
    // A block that built, then failed: its size is shown, measured where it ran, and the arguments it tried.
    const built = page(`blocks/${site.catalog.failed['backward-error'].slug}/`);
    expect(built.one('[data-reason-recipe]').text()).toContain('dim=64');
    expect(built.one('section[aria-labelledby="validation"] [data-params]').text()).toMatch(
      /^[\d,]+ parameters at the test configuration/,
    );
    // The page head shows a size only for a block that passed.
    expect(built.all('.meta [data-params]')).toEqual([]);
  });

  it("labels a passed block's parameter count as measured at the test configuration, and replays only passed blocks", () => {
    const s = spec(site.catalog.attention.slug);
    expect(s.validation!.status).toBe('passed');
    const p = page(`blocks/${site.catalog.attention.slug}/`);
    const label = `${s.validation!.params!.toLocaleString('en-US')} parameters at the test configuration`;
    expect(p.one('.meta [data-params]').text()).toBe(label);
    expect(p.one('section[aria-labelledby="validation"] [data-params]').text()).toContain(label);
    expect(p.all('pre.replay')).toHaveLength(1);
    expect(p.all('[data-reason-summary]')).toEqual([]);
  });

  it('shows no parameter count for a block that did not pass in listings, and sorts those last', () => {
    const failed = site.catalog.failed['needs-arguments'];
    const rows = page('browse/all/params/').all('tbody tr');
    const row = rows.find((r) => r.all('a').some((a) => a.text() === failed.name))!;
    expect(row.all('td')[3].text().trim()).toBe('—');
    const counts = rows.map((r) => r.all('td')[3].text().trim());
    expect(counts.indexOf('—')).toBeGreaterThan(0);
    expect(counts.slice(counts.indexOf('—')).every((c) => c === '—')).toBe(true);
    expect(page('blocks/').one('thead').text()).toContain('at test config');
  });

  it('links code drawn from another source to that source, and warns where its license does not mix', () => {
    const slug = readdirSync(join(site.catalog.dir, 'blocks'))
      .map((f) => spec(f.replace(/\.json$/, '')))
      .find((s) => (s.dependencies.sources ?? []).length > 1)!.slug;
    const p = page(`blocks/${slug}/`);
    const deps = p.one('section[aria-labelledby="dependencies"]');
    const nms = deps.all('li').find((li) => li.text().includes('torchvision.ops.boxes.nms'))!;
    // The definition's own repository and pinned revision, not the block's.
    expect(
      nms
        .all('a')
        .map((a) => a.attr('href'))
        .join(' '),
    ).toMatch(/github\.com\/pytorch\/vision\/blob\/[0-9a-f]{40}\/torchvision\/ops\/boxes\.py#L10-L40/);
    expect(nms.text()).toContain('from torchvision');
    expect(deps.text()).toContain('license unknown');
  });

  it("says a block was built by its source's builder, with sizes and MACs at builder configurations, and replays through it", () => {
    const p = page(`blocks/${site.catalog.built.slug}/`);
    expect(p.one('[data-recipe-origin]').text()).toBe('a builder function of its source: make_block()');
    const line = (b: string) => p.one(`[data-canonical-builder="${b}"]`).text().replace(/\s+/g, ' ').trim();
    expect(line('make_block')).toMatch(
      /^make_block: [\d.,]+[kMB]? parameters, [\d.]+ [kMG]?MACs at \[1, 64, 14, 14\]$/,
    );
    // MACs beside the parameters, with the input they were counted at; the exact count and its unit in the title.
    expect(line('make_block_large')).toMatch(/^make_block_large: [\d.]+M parameters, 4\.1 GMACs at 224 px$/);
    expect(p.one('[data-canonical-builder="make_block_large"] [data-canonical-macs]').attr('title')).toMatch(
      /^4,089,184,256 multiply-accumulates \(MACs, half the FLOPs\) of one forward at \[1, 3, 224, 224\]/,
    );
    expect(p.one('main').text()).toContain(
      "    model = getattr(module, 'make_block')(**kwargs)\nmodel = model.to(device)\nmodel.eval()",
    );
  });

  it('shows the SWHID, the permalink and the interface stub on a block page', () => {
    const s = spec(site.catalog.attention.slug);
    const p = page(`blocks/${site.catalog.attention.slug}/`);
    expect(p.one('h1').text()).toBe(site.catalog.attention.name);
    const swhid = p.one('[data-swhid]');
    expect(swhid.text()).toBe(s.provenance.swhid);
    expect(swhid.attr('href')).toBe(`https://archive.softwareheritage.org/${s.provenance.swhidQualified}`);
    expect(p.one('[data-permalink]').attr('href')).toBe(s.provenance.permalink);
    expect(p.one('.stub').text()).toContain(`class ${s.name}(torch.nn.Module):`);
    // The BibTeX the copy button hands to the clipboard is on the page (browser.test.ts clicks it).
    expect(p.one('main').text()).toContain(s.citation.bibtex.split('\n')[0]);
  });

  it('renders the home page with headline figures and one main navigation', () => {
    const p = page('');
    const figures = p.all('[aria-label="Headline figures"] .label').map((e) => e.text());
    expect(figures).toEqual(['blocks', 'sources', 'pass rate', 'unique architectures']);
    // The caption says what the percentage is of (passed ÷ those that ran) and what it leaves out of those validated.
    const stats = JSON.parse(readFileSync(join(site.catalog.dir, 'stats.json'), 'utf8')) as StatsFile;
    const v = stats.validation;
    const rate = p.one('[data-figure="pass-rate"]').text();
    expect(rate).toBe(`${(v.passRate!.value * 100).toFixed(1)}%`);
    const note = p.all('[aria-label="Headline figures"] li')[2].one('.note').text();
    expect(note).toMatch(
      new RegExp(`^${v.passed} passed of ${v.passed + v.failed} that ran \\(passed \\+ failed\\); 95% CI `),
    );
    expect(note).toContain(
      `${v.validated} validated: ${v.notRun} not run automatically, ${v.blocked} blocked, not counted.`,
    );
    expect(v.passed / (v.passed + v.failed)).toBeCloseTo(v.passRate!.value, 10);
    expect(p.all('nav[aria-label="Main"]')).toHaveLength(1);
    expect(p.one('a.skip').attr('href')).toBe('#main');
  });

  it('publishes browse listings, the JSON API, charts and a 404 page without JavaScript', () => {
    const { attention } = site.catalog;
    const listing = page('blocks/');
    expect(listing.all(`a[href="${BASE}blocks/${attention.slug}/"]`).length).toBeGreaterThan(0);
    expect(listing.all(`a[href="${BASE}browse/all/params/"]`).length).toBeGreaterThan(0);
    expect(readdirSync(join(site.dist, 'browse', 'category', 'attention'))).toEqual(['name', 'params', 'status']);
    expect(readFileSync(join(site.dist, 'api', 'blocks', `${attention.slug}.json`), 'utf8')).toBe(
      readFileSync(join(site.catalog.dir, 'blocks', `${attention.slug}.json`), 'utf8'),
    );
    const index = JSON.parse(readFileSync(join(site.dist, 'api', 'catalog.json'), 'utf8')) as {
      blocks: { slug: string; json: string }[];
    };
    expect(index.blocks).toHaveLength(60);
    expect(index.blocks.find((b) => b.slug === attention.slug)?.json).toBe(`${BASE}api/blocks/${attention.slug}.json`);
    // methods.json and stats.json through the API too, byte for byte.
    for (const f of ['methods.json', 'stats.json'])
      expect(readFileSync(join(site.dist, 'api', f), 'utf8'), f).toBe(readFileSync(join(site.catalog.dir, f), 'utf8'));
    expect(page('404.html').one('main').text()).toContain('Page not found');
    for (const p of ['stats/', 'sources/torchvision/']) expect(page(p).all('svg').length, p).toBeGreaterThan(0);
  });

  it('shows on /sources/ the commit or release each source is pinned to, as its text promises', () => {
    const list = JSON.parse(readFileSync(join(site.catalog.dir, 'sources.json'), 'utf8')) as {
      sources: { id: string; commit?: string; release?: { distribution: string; version: string } }[];
    };
    const p = page('sources/');
    expect(p.one('main p.muted').text()).toContain('commit or release');
    const rows = p.all('tbody tr');
    expect(rows).toHaveLength(list.sources.length);
    for (const s of list.sources) {
      const row = rows.find((r) => r.all('a').some((a) => a.text() === s.id))!;
      const pin = row.one('[data-pin]');
      if (s.commit) {
        expect(pin.one('code').text(), s.id).toBe(s.commit.slice(0, 12));
        expect(pin.one('code').attr('title')).toBe(s.commit);
      } else expect(pin.text(), s.id).toContain(`${s.release!.distribution} ${s.release!.version}`);
    }
  });

  it('labels filter counts with a singular noun for one block', () => {
    const labels = page('search/')
      .all('.count')
      .map((c) => [c.text(), c.attr('aria-label')]);
    expect(labels.length).toBeGreaterThan(0);
    for (const [text, label] of labels) expect(label).toBe(`${text} ${text === '1' ? 'block' : 'blocks'}`);
  });

  it("lists the latest build's changes on /changes/, all in the static HTML", () => {
    const { changes } = site;
    const p = page('changes/');
    for (const kind of ['new', 'removed', 'moved', 'changed']) expect(p.all(`[data-change="${kind}"]`).length).toBe(1);
    expect(p.one('[data-generated-at]').text()).toBe('2025-01-01T00:00:00Z');
    expect(p.one('[data-summary]').text()).toMatch(/1 new · 1 removed · 1 moved · 1 changed · 1 upstream/);
    // A new block links to its page; a removed one has no page (its hostile name is checked above).
    const added = p.one(`[data-change="new"][data-block-id="${changes.added.id}"] a[data-block-link]`);
    expect(added.attr('href')).toBe(`${BASE}blocks/${changes.added.slug}/`);
    expect(p.all(`[data-change="removed"][data-block-id="${changes.removed.id}"] a`)).toHaveLength(0);
    const status = p.one(
      `[data-change="changed"][data-block-id="${changes.statusChanged.id}"] [data-field="validation.status"]`,
    );
    expect(status.one('.before').text()).toBe('failed: timeout');
    expect(status.one('.after').text()).toBe('passed');
    expect(p.one(`[data-change="moved"][data-block-id="${changes.moved.id}"] .from`).text()).toContain(
      'matched by same id',
    );
    expect(p.one(`[data-upstream="${changes.bumpedSource}"]`).text()).toContain('aaaaaaaaaaaa');
    expect(p.one('nav[aria-label="Main"] a[aria-current="page"]').text()).toContain('Changes');
  });

  it('publishes the change feed as the pipeline wrote it, the Atom file well-formed', () => {
    const atom = readFileSync(join(site.dist, 'changes.atom'), 'utf8');
    expect(atom).toBe(readFileSync(join(site.catalog.dir, 'changes.atom'), 'utf8'));
    expect(JSON.parse(readFileSync(join(site.dist, 'changes.json'), 'utf8'))).toEqual(site.changes.feed);
    // Python's expat: a conforming XML parser, which rejects a malformed document outright.
    const script = `
import json, sys, xml.dom.minidom as m
d = m.parseString(sys.stdin.buffer.read())
ns = 'http://www.w3.org/2005/Atom'
print(json.dumps({'root': d.documentElement.namespaceURI + ' ' + d.documentElement.localName,
  'titles': [e.getElementsByTagNameNS(ns, 'title')[0].firstChild.data for e in d.getElementsByTagNameNS(ns, 'entry')]}))`;
    const parsed = JSON.parse(execFileSync(testPython(), ['-I', '-c', script], { input: atom, encoding: 'utf8' })) as {
      root: string;
      titles: string[];
    };
    expect(parsed.root).toBe('http://www.w3.org/2005/Atom feed');
    expect(parsed.titles).toHaveLength(5); // one upstream bump, four block changes
    const { removed } = site.changes;
    expect(parsed.titles).toContain(`Removed: ${REMOVED_NAME} (${removed.id.split(':')[0]})`);
  });
});

describe('method pages and papers', () => {
  const methodsJson = (): MethodsFile =>
    JSON.parse(readFileSync(join(site.catalog.dir, 'methods.json'), 'utf8')) as MethodsFile;
  const sourceOf = (id: string) => id.split(':')[0];

  it('lists every implementation of a method from two sources side by side, with provenance and interfaces', () => {
    const m = methodsJson().methods.find((x) => new Set(x.members.map((b) => sourceOf(b.blockId))).size >= 2);
    expect(m, 'the fixture has a method implemented in two sources').toBeDefined();
    const p = page(`methods/${m!.slug}/`);
    expect(p.one('h1').text()).toBe(m!.name);
    const rows = p.all('tr[data-implementation]');
    expect(rows.map((r) => r.attr('data-implementation')).sort()).toEqual(m!.members.map((b) => b.blockId).sort());
    expect(new Set(rows.map((r) => sourceOf(r.attr('data-implementation')!))).size).toBeGreaterThanOrEqual(2);
    for (const r of rows) {
      const s = spec(
        readdirSync(join(site.catalog.dir, 'blocks'))
          .map((f) => f.replace(/\.json$/, ''))
          .find((slug) => spec(slug).id === r.attr('data-implementation'))!,
      );
      // Provenance pinned to the commit or tag, and the status of each implementation.
      expect(r.all('a').map((a) => a.attr('href'))).toContain(s.provenance.permalink);
      expect(r.text()).toContain(s.validation ? s.validation.status : 'not validated');
    }
    expect(p.one('#interfaces').text()).toContain('Interfaces side by side');
    // The index lists it with its implementation count.
    expect(page('methods/').one(`tr[data-method="${m!.slug}"]`).text()).toContain(String(m!.members.length));
  });

  it('gives a method with no implementation in this catalog no page: the index lists it apart, by name', () => {
    const none = methodsJson().methods.filter((x) => x.members.length === 0);
    expect(none.length, 'the taxonomy knows methods the fixture implements none of').toBeGreaterThan(0);
    const index = page('methods/');
    for (const m of none) {
      expect(existsSync(join(site.dist, 'methods', m.slug, 'index.html')), m.slug).toBe(false);
      expect(index.all(`tr[data-method="${m.slug}"]`)).toEqual([]);
      expect(index.one('section[aria-labelledby="absent"]').text()).toContain(m.name);
    }
  });

  it("shows an implementation's first builder configuration with its MACs and the input they were counted at", () => {
    const bySlug = readdirSync(join(site.catalog.dir, 'blocks')).map((f) => spec(f.replace(/\.json$/, '')));
    const byId = new Map(bySlug.map((s) => [s.id, s]));
    const m = methodsJson().methods.find((x) =>
      x.members.some((b) => byId.get(b.blockId)?.validation?.canonical?.[0]?.macs !== undefined),
    );
    expect(m, 'the fixture has a method implemented by a block with builder MACs').toBeDefined();
    const rows = page(`methods/${m!.slug}/`).all('tr[data-implementation]');
    const withMacs = rows.filter((r) => byId.get(r.attr('data-implementation')!)?.validation?.canonical?.[0]?.macs);
    expect(withMacs.length).toBeGreaterThan(0);
    for (const r of withMacs) {
      const canon = byId.get(r.attr('data-implementation')!)!.validation!.canonical![0];
      expect(r.one('[data-canonical-macs]').text()).toBe(`${macs(canon.macs!)} at [1, 64, 14, 14]`);
      expect(r.text()).toContain(`at ${canon.builder}`);
    }
  });

  it('links a block page to its method and shows the paper it was introduced in, with BibTeX', () => {
    const withSource = readdirSync(join(site.catalog.dir, 'blocks'))
      .map((f) => spec(f.replace(/\.json$/, '')))
      .find((s) => s.papers?.some((x) => x.arxiv === FIXTURE_SOURCE_ARXIV))!;
    expect(withSource, 'the fixture writes a source-named paper').toBeDefined();
    const p = page(`blocks/${withSource.slug}/`);
    expect(p.one('#methods').text()).toContain('Implements');
    // The rule that matched, in words: the record's label (`name#0`) is not for readers.
    expect(p.one('section[aria-labelledby="methods"]').text()).toMatch(
      /matched by (its name|its base class|its composition|its structure|its module|being an? )/,
    );
    expect(p.one('section[aria-labelledby="methods"]').text()).not.toMatch(/#\d/);
    const methodLinks = p.all('a').map((a) => a.attr('href'));
    expect(methodLinks).toContain(`${BASE}methods/${withSource.methods![0].slug}/`);
    const papers = p.all('[data-paper]');
    const hrefs = papers.flatMap((x) => x.all('a').map((a) => a.attr('href')));
    expect(hrefs).toContain(`https://arxiv.org/abs/${FIXTURE_SOURCE_ARXIV}`);
    expect(p.one('#paper-h').text()).toBe('Introduced in');
    // A paper only a comment names is listed apart, never as the block's origin.
    const introduced = p
      .one('section[aria-labelledby="paper-h"]')
      .all('[data-paper]')
      .map((x) => x.attr('data-paper'));
    expect(introduced).toContain(`arxiv:${FIXTURE_SOURCE_ARXIV}`);
    expect(introduced).not.toContain(`arxiv:${FIXTURE_MENTION_ARXIV}`);
    expect(p.one('#mention-h').text()).toBe('Also cited');
    const mentioned = p.one('section[aria-labelledby="mention-h"]').all('[data-paper]');
    expect(mentioned.map((x) => x.attr('data-paper'))).toEqual([`arxiv:${FIXTURE_MENTION_ARXIV}`]);
    expect(mentioned[0].text()).toContain('named in a comment or parameter note');
    // A paper the taxonomy describes carries a BibTeX entry with its arXiv eprint.
    expect(
      p
        .all('[data-paper] pre')
        .map((x) => x.text())
        .join('\n'),
    ).toMatch(/eprint = \{\d{4}\.\d{4,5}\}/);
  });
});
