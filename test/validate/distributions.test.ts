// The module → distribution table behind "blocked: needs <distribution>" (pipeline/validate/distributions.ts):
// the names that differ, the guess for an unknown module, and the table in docs/validate.md kept in step.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  distributionsMarkdown,
  knownDistributions,
  MODULE_DISTRIBUTIONS,
  requirementOf,
  requirementsOf,
} from '../../pipeline/validate/distributions.ts';

describe('module → distribution', () => {
  it.each([
    ['cv2', 'opencv-python', 'the module and the distribution are named apart'],
    ['PIL', 'Pillow', 'case differs too'],
    ['sklearn', 'scikit-learn', ''],
    ['skimage', 'scikit-image', ''],
    ['yaml', 'PyYAML', ''],
    ['fvcore', 'fvcore', 'same name, listed so the table says it was checked'],
    ['einops', 'einops', ''],
    ['omegaconf', 'omegaconf', ''],
    ['matplotlib', 'matplotlib', ''],
    ['rich', 'rich', ''],
    ['packaging', 'packaging', ''],
    ['scipy', 'scipy', ''],
    ['transformers', 'transformers', ''],
    ['timm', 'timm', ''],
    ['ultralytics', 'ultralytics', ''],
    ['cv2.dnn', 'opencv-python', 'a submodule counts as its top-level module'],
  ])('%s → %s %s', (module, distribution) => {
    expect(requirementOf(module)).toEqual({ distribution, module: module.split('.')[0], known: true });
  });

  it('maps a module it does not know to itself, marked as a guess', () => {
    expect(requirementOf('nnb_unknown_q')).toEqual({
      distribution: 'nnb_unknown_q',
      module: 'nnb_unknown_q',
      known: false,
    });
  });

  it('knows a distribution the corpus declares or the environment installed, named like the module', () => {
    const known = knownDistributions(['segment-anything', 'Addict']);
    expect(requirementOf('segment_anything.modeling', known)).toEqual({
      distribution: 'segment-anything',
      module: 'segment_anything',
      known: true,
    });
    expect(requirementOf('addict', known)).toMatchObject({ distribution: 'Addict', known: true });
    // A mistyped module is no distribution anyone declared: a guess, which the site never offers as an install.
    expect(requirementOf('transformer', known)).toMatchObject({ distribution: 'transformer', known: false });
    expect(requirementsOf('transformer, cv2', known).map((r) => [r.distribution, r.known])).toEqual([
      ['opencv-python', true],
      ['transformer', false],
    ]);
  });

  it("reads a record's detail: every module once, sorted by distribution", () => {
    expect(requirementsOf('scipy, cv2, scipy').map((r) => r.distribution)).toEqual(['opencv-python', 'scipy']);
    expect(requirementsOf(null)).toEqual([]);
  });

  it('is sorted by module, one row per module, and rendered in docs/validate.md', () => {
    const modules = MODULE_DISTRIBUTIONS.map(([m]) => m);
    expect(modules).toEqual([...modules].sort());
    expect(new Set(modules).size).toBe(modules.length);
    const doc = readFileSync(new URL('../../docs/validate.md', import.meta.url), 'utf8');
    const block = /<!-- distributions:start -->\n([\s\S]*?)\n<!-- distributions:end -->/.exec(doc);
    expect(block?.[1], 'docs/validate.md: the table between the distributions markers').toBe(distributionsMarkdown());
  });
});
