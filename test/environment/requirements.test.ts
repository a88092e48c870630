// What the requirements layer is asked to install, from a config and fetched snapshots: merged by distribution,
// the torch family and the corpus's own packages left out, python sources the base lacks brought in, the config's
// add and drop applied. And the installed set as the file system shows it (metadata folders, never Python).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { installedDigest, installedDistributions } from '../../pipeline/environment/installed.ts';
import { collectRequirements } from '../../pipeline/environment/requirements.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import { tempDir } from '../helpers/tree.ts';

function snapshot(id: string, extra: Partial<SourceSnapshot> = {}): SourceSnapshot {
  return {
    id,
    kind: 'git',
    priority: 1,
    status: 'fetched',
    root: `/src/${id}`,
    importRoot: `/src/${id}`,
    files: [],
    skipped: [],
    license: { spdx: null, method: 'none', file: null } as unknown as SourceSnapshot['license'],
    diagnostics: [],
    ...extra,
  };
}

const config = (sources: object[], extra: object = {}) =>
  resolveConfig({ name: 't', sources, ...extra }, join(tempDir(), 'corpus.json'));

describe('collectRequirements', () => {
  it('merges declarations by name and keeps every spec for pip to intersect', () => {
    const c = config(
      [
        { id: 'a', kind: 'git', url: 'https://example.org/a.git', ref: 'main' },
        { id: 'b', kind: 'git', url: 'https://example.org/b.git', ref: 'main' },
      ],
      { environment: { requirements: ['einops'] } },
    );
    const snaps = [
      snapshot('a', { requirements: [{ name: 'numpy', spec: 'numpy>=1.20', from: 'requirements.txt' }] }),
      snapshot('b', {
        requirements: [
          { name: 'numpy', spec: 'numpy<2', from: 'setup.py', also: [{ spec: 'numpy!=1.21', from: 'setup.py' }] },
          { name: 'addict', spec: 'addict', from: 'requirements/runtime.txt' },
        ],
      }),
    ];
    expect(collectRequirements(c, snaps, []).entries).toEqual([
      { name: 'addict', specs: ['addict'], from: ['b'] },
      { name: 'einops', specs: ['einops'], from: ['config'] },
      { name: 'numpy', specs: ['numpy!=1.21', 'numpy<2', 'numpy>=1.20'], from: ['a', 'b'] },
    ]);
  });

  it('leaves out the torch family (the base pins it) and what the corpus provides (its code is inlined)', () => {
    // mmcv declares mmengine; mmengine is a source of the same corpus: its checkout is what blocks use.
    const c = config([
      { id: 'mmengine', kind: 'git', url: 'https://example.org/e.git', ref: 'main' },
      { id: 'mmcv', kind: 'git', url: 'https://example.org/c.git', ref: 'main' },
    ]);
    const snaps = [
      snapshot('mmengine', { files: [{ path: 'mmengine/__init__.py' } as SourceSnapshot['files'][0]] }),
      snapshot('mmcv', {
        requirements: [
          { name: 'mmengine', spec: 'mmengine>=0.3.0', from: 'requirements/runtime.txt' },
          { name: 'torch', spec: 'torch>=1.7', from: 'requirements/runtime.txt' },
          { name: 'nvidia-cublas-cu12', spec: 'nvidia-cublas-cu12', from: 'requirements/runtime.txt' },
          { name: 'yapf', spec: 'yapf', from: 'requirements/runtime.txt' },
        ],
      }),
    ];
    const r = collectRequirements(c, snaps, []);
    expect(r.entries.map((e) => e.name)).toEqual(['yapf']);
    expect(r.leftOut).toEqual([
      { name: 'mmengine', from: 'mmcv', reason: 'provided-by-corpus' },
      { name: 'torch', from: 'mmcv', reason: 'torch-family' },
      { name: 'nvidia-cublas-cu12', from: 'mmcv', reason: 'torch-family' },
    ]);
  });

  it("brings in a python source's distribution the base lacks, and applies the config's add and drop", () => {
    const c = config([
      { id: 'timm', kind: 'python', distribution: 'timm' },
      { id: 'tv', kind: 'python', distribution: 'torchvision' },
      {
        id: 'yolo',
        kind: 'git',
        url: 'https://example.org/y.git',
        ref: 'main',
        requirements: { add: ['thop>=0.1'], drop: ['opencv-python'] },
      },
    ]);
    const snaps = [
      snapshot('yolo', {
        requirements: [
          { name: 'opencv-python', spec: 'opencv-python>=4.1', from: 'requirements.txt' },
          { name: 'scipy', spec: 'scipy', from: 'requirements.txt' },
        ],
      }),
    ];
    const r = collectRequirements(c, snaps, [{ name: 'torchvision', version: '0.29.1' }]);
    expect(r.entries).toEqual([
      { name: 'scipy', specs: ['scipy'], from: ['yolo'] },
      { name: 'thop', specs: ['thop>=0.1'], from: ['yolo'] },
      { name: 'timm', specs: ['timm'], from: ['timm'] },
    ]);
    expect(r.leftOut).toContainEqual({ name: 'opencv-python', from: 'yolo', reason: 'dropped-by-config' });
  });
});

describe('installedDistributions', () => {
  it('reads names and versions off metadata folders, earlier folders first, and digests them', () => {
    const a = tempDir();
    const b = tempDir();
    for (const d of [
      'torch-2.14.1.dist-info',
      'PyYAML-6.0.4.dist-info',
      'notes.txt',
      'fvcore-0.1.5.post20221221-py3.11.egg-info',
    ])
      mkdirSync(join(a, d));
    for (const d of ['torch-1.13.0.dist-info', 'typing_extensions-4.16.0.dist-info']) mkdirSync(join(b, d));
    const found = installedDistributions([a, b, '/nonexistent']);
    expect(found).toEqual([
      { name: 'fvcore', version: '0.1.5.post20221221' },
      { name: 'pyyaml', version: '6.0.4' },
      { name: 'torch', version: '2.14.1' },
      { name: 'typing-extensions', version: '4.16.0' },
    ]);
    expect(installedDigest(found)).toBe(installedDigest([...found]));
    expect(installedDigest(found)).not.toBe(installedDigest(found.slice(1)));
  });
});
