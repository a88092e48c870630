// Extension modules a corpus builds itself, read from its setup.py files as text (pipeline/validate/extensions.ts):
// a block importing one is `native-extension` (classify.test.ts has the row), so the names must be the right ones.
import { describe, expect, it } from 'vitest';
import { corpusExtensions, declaredExtensions } from '../../pipeline/validate/extensions.ts';
import { writeTree } from '../helpers/tree.ts';

describe('declaredExtensions', () => {
  it.each([
    [
      'Deformable DETR: an alias of CUDAExtension, the name as the first positional argument',
      [
        'from torch.utils.cpp_extension import CppExtension, CUDAExtension',
        'def get_extensions():',
        '    extension = CppExtension',
        '    if torch.cuda.is_available():',
        '        extension = CUDAExtension',
        '    return [extension("MultiScaleDeformableAttention", sources, include_dirs=include_dirs)]',
        'setup(name="deformable_detr", ext_modules=get_extensions())',
      ],
      ['MultiScaleDeformableAttention'],
    ],
    [
      "mmcv: `name=` holds a variable assigned a string; setup()'s own name= is not an extension",
      [
        "ext_name = 'mmcv._ext'",
        'ext_ops = extension(',
        '    name=ext_name,',
        '    sources=sources)',
        "setup(name='mmcv', ext_modules=[ext_ops])",
        'extension = CppExtension',
      ],
      ['mmcv._ext'],
    ],
    [
      'detectron2: a dotted name; a plain setuptools Extension by keyword',
      [
        '    extension = CppExtension  # CUDAExtension with CUDA',
        'ext_modules = [extension("detectron2._C", sources)]',
        "fast = Extension(name='pkg.fast_ops', sources=['a.c'])",
        'cmdclass={"build_ext": torch.utils.cpp_extension.BuildExtension}',
      ],
      ['detectron2._C', 'pkg.fast_ops'],
    ],
    [
      "a call's name only: a positional that is no name, and `name=` of a later call, are not taken",
      ['CUDAExtension(names[0], srcs)', "setup(name='wrong')"],
      [],
    ],
  ])('%s', (_why, lines, expected) => {
    // `extension` is an alias only where it is assigned an extension class (first two rows).
    expect(declaredExtensions(lines.join('\n'))).toEqual(expected);
  });
});

describe('corpusExtensions', () => {
  it("reads each source's root setup.py and the setup.py files among its indexed files", () => {
    const root = writeTree({
      'setup.py': 'CUDAExtension("RootExt", [])\n',
      'models/ops/setup.py': 'CppExtension(name="NestedExt", sources=[])\n',
      'models/ops/other.py': 'CppExtension(name="NotASetupFile", sources=[])\n',
    });
    const files = [{ path: 'models/ops/setup.py' }, { path: 'models/ops/other.py' }];
    expect(
      corpusExtensions([
        { root, files },
        { root: '', files: [] },
      ]),
    ).toEqual(['NestedExt', 'RootExt']);
  });
});
