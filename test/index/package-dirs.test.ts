// setup.py's `package_dir`: a folder installed under another package name (detectron2's
// `"detectron2.projects.point_rend": "projects/PointRend/point_rend"`) is indexed under that name, so a block of
// another source importing `detectron2.projects.point_rend.point_features` gets it inlined and validates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPartial } from '../../pipeline/run/build.ts';
import type { PartialBuild } from '../../pipeline/run/partial.ts';
import { openRun, prepare, type RunContext } from '../../pipeline/run/prepare.ts';
import { readPackageDirs } from '../../pipeline/sources/package-dirs.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

const dirsOf = (setup: string) => readPackageDirs(writeTree({ 'setup.py': setup }), 1 << 20);

describe('readPackageDirs', () => {
  it('reads a module-level name assigned a dict literal (detectron2)', () => {
    const setup = py`
      from setuptools import setup, find_packages
      PROJECTS = {
          "d2.projects.point_rend": "projects/PointRend/point_rend",
          "d2.projects.panoptic": "projects/Panoptic-DeepLab/panoptic/",
      }
      setup(name="d2", packages=find_packages() + list(PROJECTS.keys()), package_dir=PROJECTS)
    `;
    expect(dirsOf(setup)).toEqual([
      { package: 'd2.projects.panoptic', folder: 'projects/Panoptic-DeepLab/panoptic' },
      { package: 'd2.projects.point_rend', folder: 'projects/PointRend/point_rend' },
    ]);
  });

  it('reads a dict literal given in the call; leaves out what is not a static, in-checkout mapping', () => {
    const setup = py`
      import setuptools
      setuptools.setup(package_dir={
          "": "src",               # the root of every package: the import root's business
          "pkg.ext": "third/ext",
          "bad-name": "x",         # no module can have that name
          "pkg.up": "../outside",  # leaves the checkout
          "pkg.cc": "a\x1bb",      # a control character: every log printing its paths would carry it
          "pkg.f": f"{1}",         # not a plain literal
      })
    `;
    expect(dirsOf(setup)).toEqual([{ package: 'pkg.ext', folder: 'third/ext' }]);
  });

  it('reads nothing from a computed mapping or without setup.py', () => {
    expect(dirsOf('from setuptools import setup\nsetup(package_dir=dict(a="b"))\n')).toEqual([]);
    expect(readPackageDirs(writeTree({ 'x.py': '' }), 1 << 20)).toEqual([]);
  });
});

describe('a package installed from another folder, used across sources', () => {
  let ctx: RunContext;
  let partial: PartialBuild;

  beforeAll(async () => {
    const d2 = gitRepo({
      'setup.py': py`
        from setuptools import setup
        PROJECTS = {"dtwo.projects.point_rend": "projects/Point-Rend/point_rend"}
        setup(name="dtwo", package_dir=PROJECTS)
      `,
      'dtwo/__init__.py': '',
      'dtwo/projects/__init__.py': '',
      'dtwo/layers.py': 'def helper(x):\n    return x\n',
      'projects/Point-Rend/point_rend/__init__.py': 'from .point_features import point_sample\n',
      'projects/Point-Rend/point_rend/point_features.py': py`
        import torch

        def point_sample(x):
            return x * 2
      `,
    });
    const m2f = gitRepo({
      'mtwo/__init__.py': '',
      'mtwo/criterion.py': py`
        import torch.nn as nn
        from dtwo.projects.point_rend.point_features import point_sample

        class Criterion(nn.Module):
            def forward(self, x):
                return point_sample(x)
      `,
    });
    const config = writeConfig([
      { id: 'mtwo', kind: 'git', url: `file://${m2f.dir}`, ref: 'main' },
      { id: 'dtwo', kind: 'git', url: `file://${d2.dir}`, ref: 'main', include: ['dtwo/layers.py'] },
    ]);
    ctx = openRun(config);
    ({ partial } = await buildPartial(ctx, { outDir: tempDir('nnb-cat-') }));
  }, 120_000);
  afterAll(() => ctx?.store.close());

  it('indexes the mapped folder under the package name, its hyphenated folder walked', async () => {
    const p = await prepare(ctx);
    const d2 = p.snapshots.find((s) => s.id === 'dtwo')!;
    expect(d2.packageDirs).toEqual([{ package: 'dtwo.projects.point_rend', folder: 'projects/Point-Rend/point_rend' }]);
    const names = p.index.modules.filter((m) => m.sourceId === 'dtwo' && m.path.startsWith('projects/'));
    expect(names.map((m) => [m.path, m.module, m.isPackage])).toEqual([
      ['projects/Point-Rend/point_rend/__init__.py', 'dtwo.projects.point_rend', true],
      ['projects/Point-Rend/point_rend/point_features.py', 'dtwo.projects.point_rend.point_features', false],
    ]);
  });

  it('inlines the mapped module into the other source’s block, which validates', () => {
    const s = partial.specs.find((x) => x.id === 'mtwo:mtwo.criterion.Criterion')!;
    expect(s.dependencies.internal).toEqual([
      {
        qualname: 'point_sample',
        module: 'dtwo.projects.point_rend.point_features',
        path: 'projects/Point-Rend/point_rend/point_features.py',
        lines: [3, 4],
        source: 'dtwo',
      },
    ]);
    expect(s.validation).toMatchObject({ status: 'passed' });
  });
});
