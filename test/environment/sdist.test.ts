// Source distributions found without pip (which would run their setup.py to read metadata): the indexes pip is
// configured with, a PEP 503 page read as data, the newest version the specifiers allow, the sha256 checked; and
// the requirements pip said it found no wheel for.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wheelless } from '../../pipeline/environment/layer.ts';
import { fetchSdist, indexSources } from '../../pipeline/environment/sdist.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

describe('indexSources', () => {
  it("reads pip's index, extra indexes and find-links; PIP_* beats the files; no-index drops the indexes", () => {
    const settings: [string, string][] = [
      ['global.extra-index-url', 'file:///opt/a/simple file:///opt/b/simple'],
      ['global.find-links', '/opt/wheels'],
    ];
    expect(indexSources({ settings, env: {}, localPaths: [] })).toEqual({
      indexes: ['https://pypi.org/simple', 'file:///opt/a/simple', 'file:///opt/b/simple'],
      findLinks: ['/opt/wheels'],
    });
    expect(
      indexSources({ settings, env: { PIP_FIND_LINKS: '/x', PIP_INDEX_URL: 'https://mirror/simple' }, localPaths: [] }),
    ).toEqual({
      indexes: ['https://mirror/simple', 'file:///opt/a/simple', 'file:///opt/b/simple'],
      findLinks: ['/x'],
    });
    expect(indexSources({ settings, env: { PIP_NO_INDEX: '1' }, localPaths: [] }).indexes).toEqual([]);
  });
});

describe('fetchSdist', () => {
  it('takes the newest sdist the specifiers allow from a file:// simple index, and checks its sha256', async () => {
    const root = tempDir();
    const files: Record<string, string> = {
      'files/demo-pkg-0.9.tar.gz': 'old',
      'files/demo_pkg-1.2.tar.gz': 'new',
      'files/demo_pkg-2.0rc1.tar.gz': 'pre',
      'files/demo_pkg-1.3-py3-none-any.whl': 'a wheel, not an sdist',
      'files/other-1.5.tar.gz': 'another project',
    };
    writeTree(files, root);
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const links = Object.entries(files)
      .map(([p, t]) => `<a href="../../${p}#sha256=${sha(t)}">${p.split('/')[1]}</a>`)
      .join('\n');
    writeTree({ 'simple/demo-pkg/index.html': `<html><body>${links}</body></html>` }, root);
    const src = { indexes: [`file://${root}/simple`], findLinks: [] };
    const dir = tempDir();
    const got = await fetchSdist('demo-pkg', ['demo-pkg<2'], src, dir);
    expect(got).toBe(join(dir, 'demo_pkg-1.2.tar.gz'));
    expect(readFileSync(got!, 'utf8')).toBe('new');
    expect(await fetchSdist('demo-pkg', ['demo-pkg<1'], src, dir)).toBe(join(dir, 'demo-pkg-0.9.tar.gz'));
    expect(await fetchSdist('demo-pkg', ['demo-pkg>=3'], src, dir)).toBeNull();
    // A file whose bytes are not what the index says is refused.
    writeFileSync(join(root, 'files/demo_pkg-1.2.tar.gz'), 'tampered');
    expect(await fetchSdist('demo-pkg', ['demo-pkg<2'], src, tempDir())).toBeNull();
  });

  it('finds one in a find-links folder', async () => {
    const links = writeTree({ 'tool-0.3.zip': 'z', 'tool-0.4.tar.gz': 't' });
    const got = await fetchSdist('tool', ['tool'], { indexes: [], findLinks: [links] }, tempDir());
    expect(got?.endsWith('tool-0.4.tar.gz')).toBe(true);
  });
});

describe('wheelless', () => {
  it('names what pip found no wheel for, with the requirement as pip wrote it', () => {
    const lines = [
      'ERROR: Could not find a version that satisfies the requirement iopath>=0.1.7 (from fvcore) (from versions: none)',
      'ERROR: No matching distribution found for iopath>=0.1.7',
      'ERROR: Cannot install numpy<1.24 because these package versions have conflicting dependencies.',
    ];
    expect([...wheelless(lines)]).toEqual([['iopath', 'iopath>=0.1.7']]);
  });
});
