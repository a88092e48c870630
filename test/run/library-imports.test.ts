// Which heavy libraries a root's blocks' children import (run/library-imports.ts): the walk over the index from each
// block's original module, through the corpus's modules and parent packages, collecting library modules. Real
// tree-sitter facts of inline packages; the result is what the root's workers preload (validate/companions.ts).
import { describe, expect, it } from 'vitest';
import { libraryImports } from '../../pipeline/run/library-imports.ts';
import { indexFolders } from '../helpers/corpus.ts';
import { writeTree } from '../helpers/tree.ts';

describe('library imports of an import root', () => {
  it('follows module-level imports through the corpus, parents first, and collects only library modules', async () => {
    const root = writeTree({
      'models/__init__.py': '',
      'models/common.py': 'import torch\nfrom utils.plots import colors\nfrom . import heads\n',
      'models/heads.py': 'try:\n    from scipy.optimize import linear_sum_assignment\nexcept ImportError:\n    pass\n',
      'utils/__init__.py': 'import pandas as pd\n',
      'utils/plots.py':
        'import seaborn as sn\nimport matplotlib.pyplot as plt\nimport yaml\n\ndef f():\n    import cv2\n',
      'tools/train.py': 'import sklearn.metrics\n',
    });
    const { program } = await indexFolders([{ id: 'yolo', root }]);
    const found = libraryImports(program, [
      { sourceId: 'yolo', importRoot: root, module: 'models.common', imports: ['torch', 'scipy'] },
    ]);
    // cv2 is imported inside a function, sklearn only by a script no block's module reaches, yaml is no library.
    expect(found.get(root)).toEqual(['matplotlib.pyplot', 'pandas', 'scipy', 'scipy.optimize', 'seaborn']);
  });

  it('gives a root whose blocks import no library nothing', async () => {
    const root = writeTree({ 'pkg/__init__.py': 'import numpy\n', 'pkg/m.py': 'import torch.nn as nn\n' });
    const { program } = await indexFolders([{ id: 'pkg', root }]);
    expect(libraryImports(program, [{ sourceId: 'pkg', importRoot: root, module: 'pkg.m', imports: [] }]).size).toBe(0);
  });
});
