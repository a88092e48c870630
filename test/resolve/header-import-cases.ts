// Resolver cases for the header imports a module is emitted with: an import statement copied as it is binds every
// name it lists, also those nothing reads through it (PyG: `from inspect import Parameter` in one module, `from
// torch.nn import LayerNorm, Parameter` in another whose code never reads Parameter). An import only function
// bodies read, of a module that is not installed, binds a stand-in that raises where a body uses it
// (pipeline/assemble/lazy-imports.ts: transformers' flax and tensorflow helpers).
import { py } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

/**
 * A block that imports `pkg/<loader>.py`'s `load` only when built with weights (`Block(path=...)`), from inside a
 * method, as transformers imports its flax and TF helpers.
 */
const loadsLazily = (loader: string): string => py`
  import torch
  import torch.nn as nn
  class Block(nn.Module):
      def __init__(self, path=None):
          super().__init__()
          if path is not None:
              self.load_weights(path)
      def load_weights(self, path):
          from .${loader} import load
          return load(self, path)
      def forward(self, x):
          return x
`;

/** The block builds and runs without the library; built with weights, it raises the import's error naming `module`. */
const raisesOnLoad = (module: string): string =>
  [
    'assert Block()(torch.ones(1)).item() == 1',
    'try:',
    "    Block(path='weights')",
    '    raise AssertionError("expected the import error")',
    'except ModuleNotFoundError as e:',
    `    assert e.name == '${module}', e`,
  ].join('\n');

export const headerImportCases: ResolverCase[] = [
  {
    name: 'a name an import lists but nothing reads does not rebind the one another module reads',
    why: "copied verbatim, `from torch.nn import LayerNorm, Parameter` would rebind inspect's Parameter that `defaults` reads",
    files: {
      'pkg/__init__.py': '',
      'pkg/inspector.py': py`
        from inspect import Parameter, signature
        def defaults(fn):
            return [p.name for p in signature(fn).parameters.values() if p.default is Parameter.empty]
      `,
      // Reads torch's Parameter: the binding of `torch.nn.Parameter` as `Parameter` is this statement's.
      'pkg/scale.py': py`
        import torch
        from torch.nn import Module, Parameter
        class Scale(Module):
            def __init__(self):
                super().__init__()
                self.w = Parameter(torch.ones(1))
            def forward(self, x):
                return x * self.w
      `,
      'pkg/m.py': py`
        import torch
        from torch.nn import LayerNorm, Module, Parameter
        from pkg.inspector import defaults
        from pkg.scale import Scale
        class Block(Module):
            def __init__(self, dim=4):
                super().__init__()
                self.norm = LayerNorm(dim)
                self.scale = Scale()
            def forward(self, x):
                return self.scale(self.norm(x)) * len(defaults(self.forward))
      `,
    },
    block: 'pkg.m:Block',
    run: 'assert Block()(torch.ones(2, 4)).shape == (2, 4)',
  },
  {
    name: 'a missing library only function bodies read does not fail the import (transformers and flax)',
    why: "upstream imports the module holding `load` only when `load_weights` runs; emitted, its `import absent_lib` is the block's: guarded, the block builds and runs, and `load` still raises the import's error",
    files: {
      'pkg/__init__.py': '',
      'pkg/flaxutil.py': py`
        import absent_lib
        from absent_lib.serialization import from_bytes
        def load(m, path):
            return from_bytes(absent_lib.read(path))
      `,
      'pkg/m.py': loadsLazily('flaxutil'),
    },
    block: 'pkg.m:Block',
    has: ['pkg.flaxutil:load'],
    code: ['    import absent_lib\nexcept ImportError as _nnb_error:', '    from_bytes = _nnb_absent(_nnb_error)'],
    run: raisesOnLoad('absent_lib'),
  },
  {
    name: 'a missing library read at import time still fails the import',
    why: 'a base class from `absent_lib` is read when the module is imported: the import stays as it is, and fails there, naming the module',
    files: {
      'pkg/__init__.py': '',
      'pkg/m.py': py`
        import torch
        from absent_lib import Mixin
        class Block(Mixin, torch.nn.Module):
            def forward(self, x):
                return x
      `,
    },
    block: 'pkg.m:Block',
    notCode: ['_nnb_absent'],
    importError: "ModuleNotFoundError: No module named 'absent_lib'",
  },
  {
    name: "a module-level try that imports a missing library, read only in function bodies, is guarded whole (transformers' keras)",
    why: '`try: import tf_keras as keras` / `except ImportError: import keras` fails out of its handler when neither is installed; only `load` reads keras, which upstream is imported when `load_weights` runs',
    files: {
      'pkg/__init__.py': '',
      'pkg/tfutil.py': py`
        try:
            import absent_tf_keras as keras
        except (ModuleNotFoundError, ImportError):
            import absent_keras as keras
        try:
            import absent_apex
        except ImportError:
            absent_apex = None
        def load(m, path):
            return keras.load(path) if absent_apex is None else None
      `,
      'pkg/m.py': loadsLazily('tfutil'),
    },
    block: 'pkg.m:Block',
    has: ['pkg.tfutil:load'],
    code: [
      'except ImportError as _nnb_error:  # nnblocks: only function bodies read what it binds\n    keras = _nnb_absent(_nnb_error)',
    ],
    // Its own handler catches the failed import: nothing can fail out of it, so it stays as it is.
    notCode: ['    absent_apex = _nnb_absent'],
    run: raisesOnLoad('absent_keras'),
  },
  {
    name: "a patch of an imported outside class comes with the import when the closure reads what it sets (transformers' warning_once)",
    why: '`logging.Logger.warning_once = warning_once` binds nothing the block names, but its `logger.warning_once(...)` needs it to have run; a patch of an attribute nothing reads stays out',
    files: {
      'pkg/__init__.py': '',
      'pkg/log.py': py`
        import logging
        def warning_once(self, *args, **kwargs):
            self.warning(*args, **kwargs)
        def heavy_patch(self):
            import absent_heavy_lib
        logging.Logger.warning_once = warning_once
        logging.Logger.heavy_patch = heavy_patch
        def get_logger(name):
            return logging.getLogger(name)
      `,
      'pkg/m.py': py`
        import torch
        import torch.nn as nn
        from .log import get_logger
        logger = get_logger(__name__)
        class Block(nn.Module):
            def forward(self, x):
                logger.warning_once('once')
                return x
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.log:warning_once', 'pkg.log:get_logger'],
    hasNot: ['pkg.log:heavy_patch'],
    code: ['logging.Logger.warning_once = warning_once'],
    notCode: ['heavy_patch'],
    run: 'Block()(torch.ones(1))',
  },
];
