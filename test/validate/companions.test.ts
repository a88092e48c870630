// What a worker imports before any block (validate/companions.ts): the fixed companions and the heavy libraries its
// root's blocks import, each from the environment's site that holds it, and never an installed copy of a package
// that the worker's own import root (a checkout) holds: its originals import the checkout's.
import { describe, expect, it } from 'vitest';
import { companionsFor, isLibrary } from '../../pipeline/validate/companions.ts';
import { writeTree } from '../helpers/tree.ts';

describe('companions of a worker', () => {
  const site = writeTree({
    'torchvision/__init__.py': '',
    'transformers/__init__.py': '',
    'transformers/tokenization_utils_base.py': '',
    'seaborn/__init__.py': '',
  });

  it('takes the libraries its blocks import from the site holding them, transformers among them', () => {
    expect(isLibrary('transformers.tokenization_utils_base')).toBe(true);
    expect(companionsFor([site], ['transformers.tokenization_utils_base', 'seaborn', 'pandas'])).toEqual([
      { importRoot: site, package: 'torchvision' },
      { importRoot: site, package: 'seaborn' },
      { importRoot: site, package: 'transformers.tokenization_utils_base' },
    ]);
  });

  it('leaves out an installed package that the worker root, a checkout, holds: not the copy its originals import', () => {
    const checkout = writeTree({ 'transformers/__init__.py': '', 'torchvision/__init__.py': '' });
    expect(companionsFor([site], ['transformers.tokenization_utils_base', 'seaborn'], checkout)).toEqual([
      { importRoot: site, package: 'seaborn' },
    ]);
  });

  it('keeps what the worker root holds when that root is the site itself (an installed source)', () => {
    expect(companionsFor([site], ['transformers.tokenization_utils_base'], site)).toEqual([
      { importRoot: site, package: 'torchvision' },
      { importRoot: site, package: 'transformers.tokenization_utils_base' },
    ]);
  });
});
