// Resolver cases for annotations and what only type checkers see: postponed annotations (PEP 563), names bound
// under `if TYPE_CHECKING:`, outside names used only as annotations, and subpackages reached through
// `from pkg import sub` and `__init__` re-exports (the shapes of torchvision 0.29's transforms.v2). Each emitted
// module is imported with `pkg` blocked (test/assemble/import.test.ts).
import { py, type Tree } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

/** A block in pkg/m.py (no future import) that uses the tensor subclass `Boxes` of pkg/tensors.py at run time. */
const usesBoxes = py`
  import torch.nn as nn
  from pkg.tensors import Boxes
  class Block(nn.Module):
      def forward(self, x):
          return x.as_subclass(Boxes)
`;

/** A heavy module that must not be inlined: importing it fails without its own dependencies. */
const heavy = py`
  import not_installed_anywhere
  class Heavy:
      pass
`;

export const annotationCases: ResolverCase[] = [
  {
    name: 'postponed annotations stay postponed when their statement is emitted',
    why: '`from __future__ import annotations` holds for its module: `def wrap(self, like: Boxes)` inside class Boxes never evaluates Boxes; emitted without the future import it would (NameError)',
    files: pkg({
      'pkg/tensors.py': py`
        from __future__ import annotations
        import torch
        class Boxes(torch.Tensor):
            def wrap(self, like: Boxes) -> Boxes:
                return like
      `,
      'pkg/m.py': usesBoxes,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.tensors:Boxes'],
    code: ['from __future__ import annotations'],
    run: 'assert type(Block()(torch.ones(2))).__name__ == "Boxes"',
  },
  {
    name: 'a postponed annotation may name what is emitted after it',
    why: 'under PEP 563 `def setup_fill(fill: FillType)` reads nothing when it runs, so no ordering edge puts FillType (pkg/types.py) before it (pkg/_utils.py sorts first)',
    files: pkg({
      'pkg/types.py': 'from typing import Union\nFillType = Union[int, float, None]\n',
      'pkg/_utils.py': py`
        from __future__ import annotations
        from pkg.types import FillType
        def setup_fill(fill: FillType) -> dict[str, FillType]:
            return {'fill': fill}
      `,
      'pkg/m.py': py`
        import torch.nn as nn
        from pkg._utils import setup_fill
        class Block(nn.Module):
            def __init__(self, fill=0):
                super().__init__()
                self.fill = setup_fill(fill)
            def forward(self, x):
                return x + self.fill['fill']
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg._utils:setup_fill', 'pkg.types:FillType'],
    code: ['from __future__ import annotations'],
    run: 'assert Block(1)(torch.zeros(1)).item() == 1',
  },
  {
    name: 'no future import when no emitted statement postpones annotations',
    why: 'annotations of modules without `from __future__ import annotations` are evaluated as upstream evaluates them',
    files: pkg({
      'pkg/tensors.py': 'import torch\nclass Boxes(torch.Tensor):\n    pass\n',
      'pkg/m.py': usesBoxes,
    }),
    block: 'pkg.m:Block',
    notCode: ['__future__'],
  },
  {
    name: 'a subpackage imported with `from pkg import sub` that pkg/__init__ does not bind',
    why: 'the import system loads pkg/tv/ and binds it on pkg; `tv.Image` is what pkg/tv/__init__ re-exports from its private module',
    files: {
      'pkg/__init__.py': 'from pkg import ops  # binds ops, not tv\n',
      'pkg/ops.py': 'def unused():\n    return 0\n',
      'pkg/tv/__init__.py': 'from ._base import Base\nfrom ._image import Image\n',
      'pkg/tv/_base.py': 'import torch\nclass Base(torch.Tensor):\n    pass\n',
      'pkg/tv/_image.py': 'from ._base import Base\nclass Image(Base):\n    pass\n',
      'pkg/m.py': py`
        import torch.nn as nn
        from pkg import tv
        class Block(nn.Module):
            def forward(self, x):
                return x if isinstance(x, tv.Base) else x.as_subclass(tv.Image)
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.tv._base:Base', 'pkg.tv._image:Image'],
    hasNot: ['pkg.ops:unused'],
    code: ['tv = _nnb_SimpleNamespace('],
    run: 'assert type(Block()(torch.ones(1))).__name__ == "Image"',
  },
  {
    name: 're-exports through the __init__ of nested subpackages',
    why: '`from pkg.v2 import functional as F`: F.clamp is functional/__init__ re-exporting ._meta.clamp, which reads Boxes re-exported by pkg/tv/__init__',
    files: {
      'pkg/__init__.py': '',
      'pkg/tv/__init__.py': 'from ._boxes import Boxes\n',
      'pkg/tv/_boxes.py': 'import torch\nclass Boxes(torch.Tensor):\n    pass\n',
      'pkg/v2/__init__.py': 'from . import functional\n',
      'pkg/v2/functional/__init__.py': 'from ._meta import clamp\n',
      'pkg/v2/functional/_meta.py': py`
        from pkg import tv
        def clamp(x):
            return x.clamp(0, 1).as_subclass(tv.Boxes)
      `,
      'pkg/m.py': py`
        import torch.nn as nn
        from pkg.v2 import functional as F
        class Block(nn.Module):
            def forward(self, x):
                return F.clamp(x)
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.v2.functional._meta:clamp', 'pkg.tv._boxes:Boxes'],
    run: 'assert type(Block()(torch.ones(1))).__name__ == "Boxes"',
  },
  {
    name: 'a name bound only under `if TYPE_CHECKING:` is not followed; the block stays for type checkers',
    why: 'TYPE_CHECKING is False at run time: Heavy is never bound and, postponed, never read; its import is kept (absolute) and never runs',
    files: pkg({
      'pkg/heavy.py': heavy,
      'pkg/m.py': py`
        from __future__ import annotations
        from typing import TYPE_CHECKING
        import torch.nn as nn
        if TYPE_CHECKING:
            from .heavy import Heavy
        class Block(nn.Module):
            def forward(self, x: Heavy) -> Heavy:
                return x
      `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.heavy:Heavy'],
    code: ['from __future__ import annotations', 'if TYPE_CHECKING:\n    from pkg.heavy import Heavy'],
    notCode: ['from .heavy', 'not_installed_anywhere'],
    run: 'Block()(torch.ones(1))',
  },
  {
    name: "a lazy package's `if TYPE_CHECKING:` imports are its run-time names (the Hugging Face pattern)",
    why: '`if TYPE_CHECKING: from .ggml import MAPPING` / `else: sys.modules[__name__] = _LazyModule(...)`: at run time the lazy module serves MAPPING from pkg.ggml, so `from pkg import MAPPING` works upstream and the definition must come (transformers: GGUF_CONFIG_MAPPING, 30 blocks failed NameError)',
    files: {
      'pkg/__init__.py': py`
        from typing import TYPE_CHECKING
        _import_structure = {"ggml": ["MAPPING"]}
        if TYPE_CHECKING:
            from .ggml import MAPPING
        else:
            import sys
            from ._lazy import LazyModule
            sys.modules[__name__] = LazyModule(__name__, __file__, _import_structure)
      `,
      'pkg/_lazy.py': py`
        import importlib, types
        class LazyModule(types.ModuleType):
            def __init__(self, name, file, structure):
                super().__init__(name)
                self.__file__, self.__path__ = file, [file.rsplit("/", 1)[0]]
                self._where = {n: m for m, names in structure.items() for n in names}
            def __getattr__(self, name):
                if name not in self._where:
                    raise AttributeError(name)
                return getattr(importlib.import_module(f"{self.__name__}.{self._where[name]}"), name)
      `,
      'pkg/ggml.py': 'MAPPING = {"llama": 1, "bert": 2}\n',
      'pkg/m.py': py`
        import torch.nn as nn
        from pkg import MAPPING
        class Block(nn.Module):
            def forward(self, x):
                return x * len(MAPPING)
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.ggml:MAPPING'],
    code: ['MAPPING = {"llama": 1, "bert": 2}'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: 'the else branch of `if TYPE_CHECKING:` is what runs',
    why: '`if TYPE_CHECKING: from .heavy import Heavy` / `else: Heavy = object`: at run time Heavy is object, pkg.heavy is never imported',
    files: pkg({
      'pkg/heavy.py': heavy,
      'pkg/m.py': py`
        from typing import TYPE_CHECKING
        import torch.nn as nn
        if TYPE_CHECKING:
            from .heavy import Heavy
        else:
            Heavy = object
        class Block(nn.Module):
            def forward(self, x):
                return x * isinstance(x, Heavy)
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.m:Heavy'],
    hasNot: ['pkg.heavy:Heavy'],
    code: ['from pkg.heavy import Heavy', 'Heavy = object'],
    run: 'assert Block()(torch.ones(1)).item() == 1',
  },
  {
    name: 'a TYPE_CHECKING import named only in a string annotation needs nothing',
    why: 'strings are not read: `x: "npt.NDArray"` follows nothing, so neither numpy nor the block comes',
    files: pkg({
      'pkg/m.py': py`
        from typing import TYPE_CHECKING
        import torch.nn as nn
        if TYPE_CHECKING:
            import numpy.typing as npt
            from .heavy import Heavy
        class Block(nn.Module):
            def forward(self, x: "npt.NDArray", h: "Heavy" = None):
                return x
      `,
      'pkg/heavy.py': heavy,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.heavy:Heavy'],
    notCode: ['TYPE_CHECKING', 'numpy'],
  },
  {
    name: 'a TYPE_CHECKING name read at run time is said',
    why: '`cast(Heavy, x)` evaluates Heavy when forward runs: NameError upstream too; a diagnostic, nothing inlined',
    files: pkg({
      'pkg/heavy.py': heavy,
      'pkg/m.py': py`
        from typing import TYPE_CHECKING, cast
        import torch.nn as nn
        if TYPE_CHECKING:
            from .heavy import Heavy
        class Block(nn.Module):
            def forward(self, x):
                return cast(Heavy, x)
      `,
    }),
    block: 'pkg.m:Block',
    hasNot: ['pkg.heavy:Heavy'],
    diagnostics: ['unresolved-name'],
  },
  {
    name: 'an outside module used only in annotations stays imported',
    why: 'without PEP 563 `img: PIL.Image.Image = None` is evaluated when forward is defined: `import PIL.Image` must come',
    files: pkg({
      'pkg/m.py': py`
        import torch
        import torch.nn as nn
        import PIL.Image
        class Block(nn.Module):
            def forward(self, x: torch.Tensor, img: PIL.Image.Image = None) -> torch.Tensor:
                return x
      `,
    }),
    block: 'pkg.m:Block',
    code: ['import PIL.Image'],
    notCode: ['__future__'],
  },
  {
    name: "PIL's Image and an internal Image class in one emitted module",
    why: '`from PIL import Image` (annotations) and tv.Image (run time) clash: the internal class is renamed, its own postponed `-> Image` with it',
    files: {
      'pkg/__init__.py': '',
      'pkg/tv/__init__.py': 'from ._image import Image\n',
      'pkg/tv/_image.py': py`
        from __future__ import annotations
        import torch
        class Image(torch.Tensor):
            def wrap(self, like: Image) -> Image:
                return like
      `,
      'pkg/m.py': py`
        from __future__ import annotations
        import torch.nn as nn
        from PIL import Image
        from pkg import tv
        class Block(nn.Module):
            def forward(self, x, img: Image.Image | None = None):
                return x.as_subclass(tv.Image)
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.tv._image:Image'],
    code: ['from PIL import Image', 'from __future__ import annotations', ') -> Image_'],
    run: 'assert type(Block()(torch.ones(1))).__name__.startswith("Image_")',
  },
];
