// Declared requirements of real repositories: the bare git mirrors under /work/.mirror (detr, dino, mae,
// segment-anything, yolov5, yolov7, mmengine, mmcv), each cloned into a temp folder with only its metadata and
// requirements files checked out (a sparse checkout: nothing upstream is copied into this repository, and large
// blobs the mirrors lack are never needed). Skipped, with the reason printed, where the mirrors are absent.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { declaredRequirements, requirementsToInstall } from '../../pipeline/sources/requirements.ts';
import { skipBecause } from '../helpers/skip.ts';
import { tempDir } from '../helpers/tree.ts';

/** Where the mirrors are; NNBLOCKS_MIRRORS points elsewhere (or nowhere, to see the skips). */
const MIRRORS = process.env.NNBLOCKS_MIRRORS ?? '/work/.mirror';
const METADATA = ['/requirements*', '/setup.py', '/setup.cfg', '/pyproject.toml'];

/** A sparse clone of one mirror (`open-mmlab+mmengine`) holding only its metadata files; skips when absent. */
function checkout(ctx: TestContext, mirror: string): string {
  const repo = join(MIRRORS, mirror, 'repo');
  if (!existsSync(repo)) skipBecause(ctx, `no mirror at ${repo}`);
  const dir = join(tempDir('nnb-reqs-'), mirror);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { stdio: 'pipe' });
  git('clone', '-q', '--no-checkout', repo, dir);
  git('-C', dir, 'sparse-checkout', 'set', '--no-cone', ...METADATA);
  git('-C', dir, 'checkout', '-q');
  return dir;
}

function read(ctx: TestContext, mirror: string) {
  const r = declaredRequirements(checkout(ctx, mirror));
  return { ...r, names: r.requirements.map((x) => x.name), codes: r.diagnostics.map((d) => d.code) };
}

describe('declared requirements of the mirrored repositories', () => {
  it('mmengine: requirements/runtime.txt through setup.py; tests.txt not followed; regex is Windows-only', (ctx) => {
    const r = read(ctx, 'open-mmlab+mmengine');
    expect(r.names).toEqual(
      expect.arrayContaining(['addict', 'matplotlib', 'numpy', 'pyyaml', 'rich', 'termcolor', 'yapf']),
    );
    expect(r.names).not.toContain('regex'); // `regex;sys_platform=='win32'`
    expect(r.names).not.toContain('pytest');
    expect(r.requirements.every((x) => x.from === 'requirements/runtime.txt')).toBe(true);
    // install_requires is parse_requirements('requirements/runtime_lite.txt') under MMENGINE_LITE, else the default
    expect(r.codes).toContain('requirements-conditional');
    expect(r.codes).toContain('requirements-include-not-runtime');
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });

  it('mmcv: runtime.txt only; the opencv choice made by running code is reported', (ctx) => {
    const r = read(ctx, 'open-mmlab+mmcv');
    expect(r.names).toEqual(
      expect.arrayContaining(['addict', 'mmengine', 'numpy', 'packaging', 'pillow', 'pyyaml', 'yapf']),
    );
    for (const notRuntime of ['pytest-runner', 'ninja', 'psutil', 'pytest']) expect(r.names).not.toContain(notRuntime);
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toMatchObject([
      { code: 'requirements-not-static', path: 'setup.py', message: expect.stringContaining('choose_requirement') },
    ]);
    // with mmengine in the corpus, nnblocks installs neither it nor torch
    const { kept, dropped } = requirementsToInstall(r.requirements, ['mmengine']);
    expect(dropped.map((d) => d.requirement.name)).toEqual(['mmengine']);
    expect(kept.map((k) => k.name)).not.toContain('mmengine');
  });

  it('yolov5: pyproject.toml and requirements.txt agree; commented-out exporters are not declared', (ctx) => {
    const r = read(ctx, 'ultralytics+yolov5');
    expect(r.names).toEqual(
      expect.arrayContaining([
        'opencv-python',
        'matplotlib',
        'numpy',
        'pillow',
        'pyyaml',
        'requests',
        'scipy',
        'torch',
        'torchvision',
        'pandas',
        'seaborn',
        'psutil',
        'ultralytics-thop',
      ]),
    );
    for (const commented of ['tensorboard', 'coremltools', 'onnx', 'pycocotools'])
      expect(r.names).not.toContain(commented);
    expect(r.requirements.find((x) => x.name === 'opencv-python')).toMatchObject({ from: 'pyproject.toml' });
    expect(r.diagnostics).toEqual([]);
    const { dropped } = requirementsToInstall(r.requirements);
    expect(dropped.map((d) => d.requirement.name)).toEqual(['torch', 'torchvision']);
  });

  it('yolov7: requirements.txt', (ctx) => {
    const r = read(ctx, 'WongKinYiu+yolov7');
    expect(r.names).toEqual(
      expect.arrayContaining(['matplotlib', 'numpy', 'opencv-python', 'pillow', 'pyyaml', 'scipy', 'tqdm', 'seaborn']),
    );
    expect(r.requirements.find((x) => x.name === 'numpy')?.specifier).toBe('>=1.18.5,<1.24.0');
    expect(r.names).not.toContain('wandb'); // commented out
  });

  it('detr: requirements.txt; the git+ URLs are skipped with the name they would install', (ctx) => {
    const r = read(ctx, 'facebookresearch+detr');
    expect(r.names).toEqual(expect.arrayContaining(['cython', 'submitit', 'torch', 'torchvision', 'scipy']));
    const skipped = r.diagnostics.filter((d) => d.code === 'requirement-skipped').map((d) => d.message);
    expect(skipped).toEqual([expect.stringContaining('pycocotools'), expect.stringContaining('panopticapi')]);
  });

  it('dino, mae and segment-anything declare nothing (segment-anything: install_requires=[])', (ctx) => {
    for (const mirror of ['facebookresearch+dino', 'facebookresearch+mae', 'facebookresearch+segment-anything']) {
      const r = read(ctx, mirror);
      expect(r.requirements, mirror).toEqual([]);
      expect(r.diagnostics, mirror).toEqual([]);
    }
  });
});
