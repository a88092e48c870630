// The change feed: every change kind found where the fixture made it, deterministic bytes, schema-valid JSON,
// well-formed Atom (parsed by a real XML parser) with hostile strings escaped, and the CLI command end to end.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import type { CliIO } from '../../pipeline/cli/io.ts';
import { escapeXml, renderAtom } from '../../pipeline/feed/atom.ts';
import { diffCatalogs, paramsText } from '../../pipeline/feed/diff.ts';
import { checkChangeFeed, writeChangeFeed } from '../../pipeline/feed/feed.ts';
import { readCurrentCatalog } from '../../pipeline/feed/read-snapshot.ts';
import type { BlockChange, ChangeFeed } from '../../pipeline/contract/changes.ts';
import { testPython } from '../helpers/python.ts';
import { makeFeedFixture, type FeedFixture } from './fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-feed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let fx: FeedFixture;
let feed: ChangeFeed;
beforeAll(() => {
  fx = makeFeedFixture(work);
  feed = diffCatalogs(readCurrentCatalog(fx.previous), readCurrentCatalog(fx.current));
});

const ids = (kind: BlockChange['kind']) => feed.changes.filter((c) => c.kind === kind).map((c) => c.block.id);

/** Parses Atom with Python's XML parser (expat): a well-formedness check we did not write ourselves. */
function parseAtom(text: string): { feed: Record<string, string>; entries: Record<string, string>[] } {
  const script = `
import json, sys, xml.etree.ElementTree as ET
A = '{http://www.w3.org/2005/Atom}'
root = ET.fromstring(sys.stdin.buffer.read())
assert root.tag == A + 'feed', root.tag
def kids(e):
    return {c.tag[len(A):]: (c.text or '') for c in e if c.tag.startswith(A) and c.tag != A + 'entry'}
print(json.dumps({'feed': kids(root), 'entries': [kids(e) for e in root.findall(A + 'entry')]}))
`;
  return JSON.parse(execFileSync(testPython(), ['-c', script], { input: text, encoding: 'utf8' }));
}

describe('diffCatalogs', () => {
  it('finds new and removed blocks', () => {
    expect(ids('new')).toEqual(fx.expect.new);
    expect(ids('removed')).toEqual(fx.expect.removed);
  });

  it('pairs moves by id, by file blob and lines, and by exact-duplicate group', () => {
    const moved = feed.changes.filter((c) => c.kind === 'moved');
    expect(new Map(moved.map((c) => [c.block.id, { from: c.from.id, matchedBy: c.matchedBy }]))).toEqual(
      fx.expect.moved,
    );
    // A move is not also reported as new + removed.
    for (const m of moved) expect([...ids('new'), ...ids('removed')]).not.toContain(m.block.id);
  });

  it('says which fields changed, with before and after', () => {
    const changed = feed.changes.filter((c) => c.kind === 'changed');
    expect(new Map(changed.map((c) => [c.block.id, c.fields.map((f) => f.field)]))).toEqual(fx.expect.changed);
    const status = changed.flatMap((c) => c.fields).find((f) => f.field === 'validation.status')!;
    expect(status.after).toBe('failed: timeout');
    const forward = changed.flatMap((c) => c.fields).find((f) => f.field === 'interface.forward')!;
    expect(forward.after).toContain('*, scale: float = 1.0');
  });

  it('reports upstream commit bumps per source', () => {
    expect(feed.upstream).toEqual([
      expect.objectContaining({ sourceId: 'torchvision', kind: 'bumped', after: { commit: 'c'.repeat(40) } }),
    ]);
    expect(feed.summary).toEqual({ new: 1, removed: 1, moved: 3, changed: 4, upstream: 1 });
  });

  it('is dated by the build, orders changes by kind then id, and validates against its schema', () => {
    expect(feed.generatedAt).toBe('2025-02-01T12:00:00Z');
    const kinds = feed.changes.map((c) => c.kind);
    expect(kinds).toEqual(
      [...kinds].sort(
        (a, b) => ['new', 'removed', 'moved', 'changed'].indexOf(a) - ['new', 'removed', 'moved', 'changed'].indexOf(b),
      ),
    );
    expect(checkChangeFeed(JSON.parse(JSON.stringify(feed)))).toEqual([]);
  });

  it('is empty against itself, and a baseline without a previous catalog', () => {
    const same = diffCatalogs(readCurrentCatalog(fx.current), readCurrentCatalog(fx.current));
    expect(same.changes).toEqual([]);
    expect(same.upstream).toEqual([]);
    const baseline = diffCatalogs(null, readCurrentCatalog(fx.current));
    expect(baseline.previous).toBeNull();
    expect(baseline.changes).toEqual([]);
    expect(baseline.current.blocks).toBe(readCurrentCatalog(fx.current).blocks.length);
  });

  it('renders parameter lists like Python', () => {
    expect(
      paramsText([
        { name: 'x', kind: 'positional-only' },
        { name: 'dim', kind: 'positional', annotation: 'int', default: '64' },
        { name: 'args', kind: 'var-positional' },
        { name: 'norm', kind: 'keyword-only', default: 'None' },
        { name: 'kw', kind: 'var-keyword' },
      ]),
    ).toBe('(x, /, dim: int = 64, *args, norm=None, **kw)'); // PEP 8: spaces around = only with an annotation
  });
});

describe('writeChangeFeed', () => {
  it('writes byte-identical files for the same inputs', async () => {
    const outs = [join(work, 'out-a'), join(work, 'out-b')];
    for (const out of outs) {
      mkdirSync(out, { recursive: true });
      const r = await writeChangeFeed({
        catalogDir: fx.current,
        previous: fx.previous,
        outDir: out,
        siteUrl: 'https://example.github.io/nnblocks/',
      });
      expect(r.errors).toEqual([]);
    }
    for (const f of ['changes.json', 'changes.atom']) {
      expect(readFileSync(join(outs[1], f), 'utf8')).toBe(readFileSync(join(outs[0], f), 'utf8'));
    }
  });

  it('writes Atom 1.0 with stable tag ids, escaping hostile names', async () => {
    const out = join(work, 'out-atom');
    mkdirSync(out, { recursive: true });
    await writeChangeFeed({
      catalogDir: fx.current,
      previous: fx.previous,
      outDir: out,
      siteUrl: 'https://example.github.io/nnblocks',
    });
    const text = readFileSync(join(out, 'changes.atom'), 'utf8');
    const atom = parseAtom(text);
    expect(atom.feed).toMatchObject({
      id: 'tag:example.github.io,2025:/nnblocks/changes',
      updated: '2025-02-01T12:00:00Z',
    });
    expect(atom.feed.title).toBeTruthy();
    expect(atom.entries).toHaveLength(feed.changes.length + feed.upstream.length);
    for (const e of atom.entries) {
      expect(e.id).toMatch(/^tag:example\.github\.io,2025:\/nnblocks\/changes\/2025-02-01T12%3A00%3A00Z\//);
      expect(e.title && e.updated).toBeTruthy();
    }
    expect(new Set(atom.entries.map((e) => e.id)).size).toBe(atom.entries.length);
    // The hostile name comes back as text (control character and lone surrogate replaced), never as markup.
    const hostile = atom.entries.find((e) => e.title.includes('__proto__'))!;
    expect(hostile.title).toContain('__proto__</title><script>alert("x")</script>&amp;\uFFFD\uFFFD');
    expect(hostile.content).toContain(']]></content><evil attr="1"/>');
    expect(text).not.toContain('<script>');
  });

  it('links to itself with rel="self": absolute under the site URL, else relative to where the site serves it', () => {
    const links = (text: string) => [...text.matchAll(/<link rel="(\w+)" href="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]);
    const withUrl = links(renderAtom(feed, { siteUrl: 'https://example.github.io/nnblocks' }));
    expect(withUrl.slice(0, 2)).toEqual([
      ['self', 'https://example.github.io/nnblocks/changes.atom'],
      ['alternate', 'https://example.github.io/nnblocks/changes/'],
    ]);
    // No site URL configured: /changes.atom still names itself, and each entry its page, relative to the feed.
    const bare = renderAtom(feed);
    expect(links(bare).slice(0, 2)).toEqual([
      ['self', 'changes.atom'],
      ['alternate', 'changes/'],
    ]);
    expect(links(bare).filter(([rel]) => rel === 'alternate')).toHaveLength(
      1 + feed.changes.length + feed.upstream.length,
    );
    parseAtom(bare);
  });

  it('escapes every XML special character', () => {
    expect(escapeXml(`<a href="x">'&'</a>\u0000`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;\uFFFD',
    );
  });

  it('makes a valid tag URI from any block id, a lone surrogate included', () => {
    const block = { id: 'src:m.\ud800<x>&', slug: 'src-x', name: 'X', sourceId: 'src' };
    const atom = parseAtom(renderAtom({ ...feed, upstream: [], changes: [{ kind: 'new', block }] }));
    expect(atom.entries[0].id).toBe(
      'tag:nnblocks.invalid,2025:/changes/2025-02-01T12%3A00%3A00Z/new/src%3Am.%EF%BF%BD%3Cx%3E%26',
    );
  });
});

describe('nnblocks changes', () => {
  it('writes the feed and prints a JSON summary', async () => {
    const out = join(work, 'out-cli');
    mkdirSync(out, { recursive: true });
    let stdout = '';
    const io = (json: boolean): CliIO => ({ out: (t) => (stdout += t), err: () => {}, isTTY: false, ci: true, json });
    const code = await runCli(
      ['changes', '--catalog', fx.current, '--previous', fx.previous, '--out', out, '--json'],
      io,
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.summary).toEqual(feed.summary);
    expect(JSON.parse(readFileSync(join(out, 'changes.json'), 'utf8')).summary).toEqual(feed.summary);
  });
});
