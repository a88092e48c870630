// Citations: a year from the commit date, the public version without local labels, short stable keys,
// and a `@codefragment` beside the `@software` entry; the published module tree's caps and checks.
import { describe, expect, it } from 'vitest';
import { CITE_KEY_MAX, citationKey, citationOf, citedVersion, publicVersion } from '../../pipeline/catalog/citation.ts';
import type { Provenance } from '../../pipeline/contract/provenance.ts';
import { CITE_KEY_PATTERN } from '../../pipeline/contract/rules.ts';
import { MODULE_TREE_LIMITS } from '../../pipeline/contract/vocabulary.ts';
import { publishedTree } from '../../pipeline/catalog/module-tree.ts';
import type { ModuleTreeNode } from '../../pipeline/dedup/types.ts';

const base: Provenance = {
  sourceId: 'torchvision',
  repository: 'https://github.com/pytorch/vision',
  path: 'torchvision/ops/misc.py',
  lines: [225, 260],
  blobSha1: 'a'.repeat(40),
  sha256: 'b'.repeat(64),
  swhid: `swh:1:cnt:${'a'.repeat(40)}`,
  swhidQualified: `swh:1:cnt:${'a'.repeat(40)};origin=https://github.com/pytorch/vision;path=/torchvision/ops/misc.py;lines=225-260`,
  permalink: 'https://github.com/pytorch/vision/blob/v0.14.1/torchvision/ops/misc.py#L225-L260',
  license: { spdx: 'BSD-3-Clause', method: 'license-file' },
};
const field = (entry: string, name: string) => new RegExp(`^  ${name} = \\{(.*)\\},$`, 'm').exec(entry)?.[1];

describe('publicVersion (PEP 440: the local label after "+" is never part of a public version)', () => {
  it.each([
    ['0.14.1+cpu', '0.14.1'],
    ['2.6.0+cu124', '2.6.0'],
    ['0.14.1a0', '0.14.1a0'], // a pre-release is public: only a matched tag replaces it
    ['1.0.post1+local.7', '1.0.post1'],
    ['1!2.0RC1', '1!2.0rc1'],
  ])('%s → %s', (v, want) => expect(publicVersion(v)).toBe(want));

  it('cites the release the tag pins (torchvision ships 0.14.1a0 in version.txt for 0.14.1)', () => {
    const release = { distribution: 'torchvision', version: '0.14.1a0', tag: 'v0.14.1' };
    expect(citedVersion({ ...base, release })).toBe('0.14.1');
    expect(citedVersion({ ...base, release: { distribution: 'x', version: '0.14.1a0+cpu' } })).toBe('0.14.1a0');
    expect(citedVersion({ ...base, commit: 'c'.repeat(40) })).toBeNull();
  });
});

describe('citation keys', () => {
  it('are short, match the contract, and are the same on every run', () => {
    const long = citationKey(
      'torchvision:torchvision.ops.misc.SqueezeExcitation',
      'torchvision',
      'SqueezeExcitation',
      '2022',
    );
    expect(long.length).toBeLessThanOrEqual(CITE_KEY_MAX);
    expect(long).toMatch(new RegExp(CITE_KEY_PATTERN));
    expect(long.startsWith('torchvision2022squeeze')).toBe(true);
    expect(
      citationKey('torchvision:torchvision.ops.misc.SqueezeExcitation', 'torchvision', 'SqueezeExcitation', '2022'),
    ).toBe(long);
  });

  it('tell apart blocks of the same name (three InvertedResidual classes in torchvision)', () => {
    const ids = ['mobilenetv2', 'mobilenetv3', 'efficientnet'].map(
      (m) => `torchvision:torchvision.models.${m}.InvertedResidual`,
    );
    const keys = ids.map((id) => citationKey(id, 'torchvision', 'InvertedResidual', null));
    expect(new Set(keys).size).toBe(3);
  });

  it('survive names with nothing usable in them', () => {
    expect(citationKey('s:m.__proto__', '-', '__', null)).toMatch(new RegExp(CITE_KEY_PATTERN));
  });
});

describe('citationOf', () => {
  const cite = (p: Provenance) =>
    citationOf({
      id: 'torchvision:torchvision.ops.misc.SqueezeExcitation',
      name: 'SqueezeExcitation',
      module: 'torchvision.ops.misc',
      sourceId: 'torchvision',
      provenance: p,
    });

  it('a git commit: @software with year and date from the commit date, no version', () => {
    const c = cite({ ...base, commit: 'c'.repeat(40), commitDate: '2022-12-08T23:30:00-08:00' });
    expect(c.bibtex.startsWith(`@software{${c.key},`)).toBe(true);
    expect(field(c.bibtex, 'year')).toBe('2022');
    expect(field(c.bibtex, 'date')).toBe('2022-12-08'); // the committer's calendar day, not UTC's
    expect(field(c.bibtex, 'version')).toBeUndefined();
    expect(c.codefragment!.startsWith(`@codefragment{${c.key},`)).toBe(true);
    expect(field(c.codefragment!, 'swhid')).toBe(base.swhidQualified);
    expect(c.text).toMatch(/^pytorch\/vision contributors \(2022\)\./);
    expect(c.cff).toContain('date-released: "2022-12-08"');
    expect([c.date, c.version]).toEqual(['2022-12-08', undefined]);
  });

  it('an installed release: the public version, and no year rather than a guessed one', () => {
    const c = cite({ ...base, release: { distribution: 'torchvision', version: '0.14.1a0', tag: 'v0.14.1' } });
    expect(field(c.bibtex, 'version')).toBe('0.14.1');
    expect(field(c.codefragment!, 'version')).toBe('0.14.1');
    expect(field(c.bibtex, 'year')).toBeUndefined();
    expect(c.text).toContain('(n.d.)');
    expect([c.date, c.version]).toEqual([undefined, '0.14.1']);
  });

  it("an installed release with the config's releaseDate: its year, the month for biblatex, no whole day claimed", () => {
    const release = { distribution: 'torchvision', version: '0.14.1a0', tag: 'v0.14.1', date: '2022-12' };
    const c = cite({ ...base, release });
    expect(field(c.bibtex, 'year')).toBe('2022');
    expect(field(c.codefragment!, 'date')).toBe('2022-12');
    expect(c.text).toContain('(2022)');
    expect(c.key).toMatch(/^torchvision2022/);
    // CITATION.cff's date-released and the catalog's citation.date are whole days only.
    expect(c.cff).not.toContain('date-released');
    expect(c.date).toBeUndefined();
    // A whole day is used as it is.
    expect(cite({ ...base, release: { ...release, date: '2022-12-15' } }).date).toBe('2022-12-15');
  });

  it('escapes braces and backslashes so an entry stays balanced', () => {
    const c = citationOf({
      id: 'x:m.A',
      name: 'A}{\\',
      module: 'm',
      sourceId: 'x',
      provenance: { ...base, commit: 'c'.repeat(40) },
    });
    const depth = [...c.bibtex.replace(/\\[\\{}]/g, '')].reduce(
      (d, ch) => d + (ch === '{' ? 1 : ch === '}' ? -1 : 0),
      0,
    );
    expect(depth).toBe(0);
  });
});

describe('publishedTree', () => {
  const node = (type: string, children: ModuleTreeNode['children'] = []): ModuleTreeNode => ({
    type,
    params: [{ name: 'weight', shape: [4, 2] }],
    children,
  });

  it('keeps names, types and direct parameter counts; drops hostile names and marks the parent', () => {
    const t = publishedTree(
      node('pkg.Block', [
        { name: 'conv', ...node('torch.nn.modules.conv.Conv2d') },
        { name: '/etc/passwd', ...node('torch.nn.ReLU') },
        { name: 'x', ...node('root:x:0:0 /bin/sh') },
      ]),
    )!;
    expect(t).toEqual({
      type: 'pkg.Block',
      params: 8,
      children: [{ name: 'conv', type: 'torch.nn.modules.conv.Conv2d', params: 8, children: [] }],
      truncated: true,
    });
    expect(publishedTree(node('not a type'))).toBeNull();
  });

  it('is capped breadth first: the top levels survive a huge network', () => {
    const wide = Array.from({ length: 50 }, (_, i) => ({
      name: String(i),
      ...node(
        'torch.nn.Sequential',
        Array.from({ length: 10 }, (_, j) => ({ name: `c${j}`, ...node('torch.nn.Conv2d') })),
      ),
    }));
    const t = publishedTree(node('pkg.Net', wide))!;
    expect(t.children).toHaveLength(50); // the whole first level
    const count = (n: typeof t): number => 1 + n.children.reduce((s, c) => s + count(c), 0);
    expect(count(t)).toBe(MODULE_TREE_LIMITS.nodes);
  });
});
