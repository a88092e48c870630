// Resolver cases for the header imports a module is emitted with: an import statement copied as it is binds every
// name it lists, also those nothing reads through it (PyG: `from inspect import Parameter` in one module, `from
// torch.nn import LayerNorm, Parameter` in another whose code never reads Parameter).
import { py } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

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
];
