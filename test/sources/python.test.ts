// python sources against the real Debian torchvision package: version, upstream repository and tag, files, license.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { normalizeRepoUrl, tagForVersion, upstreamRepository } from '../../pipeline/sources/python-dist.ts';
import { tempDir } from '../helpers/tree.ts';
import { debianPython, testPython } from '../helpers/python.ts';

const ctx = quietContext();

function config(sources: object[], cacheDir = tempDir('nnb-cache-'), python = testPython()) {
  return resolveConfig({ name: 't', python, cacheDir, sources }, join(tempDir('nnb-proj-'), 'corpus.json'));
}

describe('the installed torchvision distribution', () => {
  // pip's torchvision 0.29.1 in the managed environment (site-packages, license in dist-info) and Debian's 0.14.1
  // (dist-packages, license in /usr/share/doc): located the same way.
  it.each([
    ['0.29.1', testPython(), 160, 230],
    ['0.14.1', debianPython(), 120, 200],
  ])(
    'torchvision %s is located with its version, upstream repository, tag, files and license',
    async (version, python, fewest, most) => {
      const c = config(
        [{ id: 'torchvision', kind: 'python', distribution: 'torchvision', include: ['torchvision/**/*.py'] }],
        tempDir('nnb-cache-'),
        python,
      );
      const { snapshots, diagnostics } = await fetchSources(c, ctx);
      expect(diagnostics).toEqual([]);
      const s = snapshots[0];
      expect(s).toMatchObject({
        kind: 'python',
        status: 'fetched',
        distribution: 'torchvision',
        repository: 'https://github.com/pytorch/vision',
        tag: `v${version}`,
      });
      expect(s.version!.startsWith(version.slice(0, 4))).toBe(true);
      // The package sits in dist-packages (Debian) or site-packages (pip); the import root is that folder.
      expect(s.root).toMatch(/\/(dist|site)-packages$/);
      expect(s.importRoot).toBe(s.root);
      expect(s.files.length).toBeGreaterThan(fewest);
      expect(s.files.length).toBeLessThan(most);
      expect(s.files.map((f) => f.path)).toEqual(
        expect.arrayContaining(['torchvision/__init__.py', 'torchvision/models/resnet.py', 'torchvision/ops/misc.py']),
      );
      expect(s.files.every((f) => f.path.startsWith('torchvision/') && f.path.endsWith('.py'))).toBe(true);
      expect(s.license.spdx).toBe('BSD-3-Clause');
      expect(s.license.method).toMatch(/BSD/);
      // Same version next time: unchanged.
      expect((await fetchSources(c, ctx)).snapshots[0].status).toBe('unchanged');
    },
  );

  it('a distribution that is not installed fails with a hint; the interpreter being wrong is a diagnostic too', async () => {
    const { snapshots, diagnostics } = await fetchSources(
      config([{ id: 'nope', kind: 'python', distribution: 'no-such-dist-xyz' }]),
      ctx,
    );
    expect(snapshots[0].status).toBe('failed');
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'distribution-not-found',
        source: 'nope',
        message: expect.stringContaining('"no-such-dist-xyz" is not installed'),
      }),
    ]);
  });
});

describe('provenance rules', () => {
  it('tags drop pre-release, dev and local parts of the version', () => {
    expect(tagForVersion('0.14.1a0')).toBe('v0.14.1');
    expect(tagForVersion('2.1.0+cu118')).toBe('v2.1.0');
    expect(tagForVersion('1.13.0a0+gitunknown')).toBe('v1.13.0');
    expect(tagForVersion('0.9.0.dev20240101')).toBe('v0.9.0');
    expect(tagForVersion('unknown')).toBeUndefined();
  });

  it('repository URLs are normalized to https forge URLs', () => {
    expect(normalizeRepoUrl('git@github.com:pytorch/vision.git')).toBe('https://github.com/pytorch/vision');
    expect(normalizeRepoUrl('https://github.com/huggingface/transformers/tree/main')).toBe(
      'https://github.com/huggingface/transformers',
    );
    expect(normalizeRepoUrl('https://pytorch.org')).toBeNull();
    expect(
      upstreamRepository(
        {
          homePage: 'https://pytorch.org',
          projectUrls: ['Documentation, https://docs.x.org', 'Source, https://github.com/o/r'],
        },
        'x',
      ),
    ).toEqual({ repository: 'https://github.com/o/r', diagnostics: [] });
    // Anything after owner/repo but a path, query or fragment: no repository URL (`;` separates SWHID qualifiers).
    expect(normalizeRepoUrl('https://github.com/o/r;origin=https://evil')).toBeNull();
    expect(normalizeRepoUrl('https://github.com/o/r\u001b[2J')).toBeNull();
    expect(normalizeRepoUrl('https://github.com/../r')).toBeNull();
    expect(normalizeRepoUrl('https://github.com/o/r.git#readme')).toBe('https://github.com/o/r');
  });
});
