// Resolver cases for module objects of the corpus (docs/resolve.md, "Module objects"): a namespace stands in for
// one, holding the members read through attributes; a module used as an object (`vars(m)`, `getattr(m, name)`,
// passed on) holds every public member, since which ones are read is decided when the code runs.
import { py, type Tree } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

const NN = 'import torch\nimport torch.nn as nn\n';
const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

/** A package re-exporting four classes from three modules, listed in `__all__` (PyG's torch_geometric.nn.aggr). */
const AGGR: Record<string, string> = {
  'pkg/aggr/__init__.py': py`
    from .base import Aggregation
    from .multi import MultiAggregation
    from .basic import MeanAggregation, SumAggregation

    __all__ = classes = ['Aggregation', 'MultiAggregation', 'SumAggregation', 'MeanAggregation']
  `,
  'pkg/aggr/base.py':
    NN +
    py`
    class Aggregation(nn.Module):
        def forward(self, x):
            return x
  `,
  'pkg/aggr/basic.py': py`
    from .base import Aggregation
    class SumAggregation(Aggregation):
        def forward(self, x):
            return x.sum()
    class MeanAggregation(Aggregation):
        def forward(self, x):
            return x.mean()
  `,
  'pkg/aggr/multi.py': py`
    from .base import Aggregation
    class MultiAggregation(Aggregation):
        def __init__(self, names):
            super().__init__()
            self.names = names
  `,
};

export const moduleObjectCases: ResolverCase[] = [
  {
    name: 'a module imported in a function and passed to vars(): every member of its __all__ (PyG aggregation_resolver)',
    why:
      '`import pkg.aggr as aggr` binds a local whose attribute reads are members; `vars(aggr)` (evaluated in the ' +
      'function: the comprehension variable of the same name is another scope) reads them all, chosen by name',
    files: pkg({
      ...AGGR,
      'pkg/resolver.py': py`
        def aggregation_resolver(query, *args, **kwargs):
            import pkg.aggr as aggr
            if isinstance(query, (list, tuple)):
                return aggr.MultiAggregation(query, *args, **kwargs)
            base_cls = aggr.Aggregation
            aggrs = [
                aggr for aggr in vars(aggr).values()
                if isinstance(aggr, type) and issubclass(aggr, base_cls)
            ]
            aggr_dict = {'add': aggr.SumAggregation}
            names = {a.__name__.lower().replace('aggregation', ''): a for a in aggrs}
            return (aggr_dict.get(query) or names[query])(*args, **kwargs)
      `,
      'pkg/conv.py':
        NN +
        py`
        from .resolver import aggregation_resolver
        class Block(nn.Module):
            def __init__(self, aggr='mean'):
                super().__init__()
                self.aggr = aggregation_resolver(aggr)
            def forward(self, x):
                return self.aggr(x)
      `,
    }),
    block: 'pkg.conv:Block',
    has: [
      'pkg.aggr.base:Aggregation',
      'pkg.aggr.multi:MultiAggregation',
      'pkg.aggr.basic:SumAggregation',
      'pkg.aggr.basic:MeanAggregation',
    ],
    code: ['(every public member: used as an object)'],
    diagnostics: ['module-namespace-complete'],
    run: 'assert Block()(torch.ones(3)).item() == 1.0 and Block("add")(torch.ones(3)).item() == 3.0',
  },
  {
    name: 'a function-local module import read through attributes: those members only',
    why: '`from . import helpers` in a method binds a local; `helpers.f` is a member, `g` is read by nothing',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t + 1\n\ndef g(t):\n    return t\n',
      'pkg/m.py':
        NN +
        py`
        class Block(nn.Module):
            def forward(self, t):
                from . import helpers
                return helpers.f(t)
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
    hasNot: ['pkg.helpers:g'],
    run: 'assert Block()(torch.zeros(1)).item() == 1.0',
  },
  {
    name: 'getattr with a computed name off a module: every public member (detr backbone)',
    why: '`getattr(models, name)` reads a member chosen when it runs; `_private` names and typing-only ones are not members',
    files: pkg({
      'pkg/models/__init__.py': 'from .resnet import *\nfrom .vgg import vgg11\n',
      'pkg/models/resnet.py':
        NN +
        py`
        __all__ = ['resnet18', 'resnet50']
        def resnet18():
            return nn.Identity()
        def resnet50():
            return nn.Flatten()
        def helper():
            return None
      `,
      'pkg/models/vgg.py': NN + 'def vgg11():\n    return nn.ReLU()\n\ndef _private():\n    return None\n',
      'pkg/m.py':
        NN +
        py`
        import pkg.models
        class Block(nn.Module):
            def __init__(self, name='resnet50'):
                super().__init__()
                self.body = getattr(pkg.models, name)()
            def forward(self, x):
                return self.body(x)
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.models.resnet:resnet18', 'pkg.models.resnet:resnet50', 'pkg.models.vgg:vgg11'],
    hasNot: ['pkg.models.resnet:helper', 'pkg.models.vgg:_private'],
    diagnostics: ['module-namespace-complete'],
    run: 'assert Block()(torch.ones(2, 2)).shape == (2, 2) and type(Block("vgg11").body).__name__ == "ReLU"',
  },
  {
    name: "getattr with a name taken from a table of strings: the members the table names (transformers' auto_docstring)",
    why:
      "`getattr(getattr(auto, TABLE[k][0]), TABLE[k][1])` reads one of the table's strings, at import time through " +
      'a decorator: the submodules it names and their members it names are in the namespace, nothing else of the package',
    files: pkg({
      'pkg/auto/__init__.py': '',
      'pkg/auto/proc.py': "PROC_NAMES = {'block': 'BlockProcessor'}\n\ndef other():\n    return None\n",
      'pkg/auto/conf.py': "CONF_NAMES = {'block': 'BlockConfig'}\n",
      'pkg/auto/unused.py': 'X = 1\n',
      'pkg/doc.py': py`
        TABLE = {
            'processor_class': ('proc', 'PROC_NAMES'),
            'config_class': ('conf', 'CONF_NAMES'),
        }
        def described(cls):
            from pkg import auto as auto_module
            found = [getattr(getattr(auto_module, TABLE[k][0]), TABLE[k][1]).get('block') for k in sorted(TABLE)]
            cls.__doc__ = ' '.join(found)
            return cls
      `,
      'pkg/m.py':
        NN +
        py`
        from .doc import described
        @described
        class Block(nn.Module):
            def forward(self, x):
                return x
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.auto.proc:PROC_NAMES', 'pkg.auto.conf:CONF_NAMES'],
    hasNot: ['pkg.auto.proc:other', 'pkg.auto.unused:X'],
    notCode: ['every public member'],
    run: 'assert Block.__doc__ == "BlockConfig BlockProcessor"',
  },
  {
    name: 'getattr with a literal name off a module is a static read of that member',
    why: "`getattr(helpers, 'f')` reads f as `helpers.f` does; g stays out, and the namespace is not complete",
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t + 1\n\ndef g(t):\n    return t\n',
      'pkg/m.py':
        NN +
        py`
        from . import helpers
        class Block(nn.Module):
            def forward(self, t):
                return getattr(helpers, 'f')(t)
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f'],
    hasNot: ['pkg.helpers:g'],
    notCode: ['every public member'],
    run: 'assert Block()(torch.zeros(1)).item() == 1.0',
  },
  {
    name: "a module's __dict__ read: every public member",
    why: '`helpers.__dict__[name]` reads a member chosen when it runs, as vars(helpers) does',
    files: pkg({
      'pkg/helpers.py': 'def f(t):\n    return t + 1\n\ndef g(t):\n    return t + 2\n',
      'pkg/m.py':
        NN +
        py`
        from . import helpers
        class Block(nn.Module):
            def __init__(self, name='g'):
                super().__init__()
                self.name = name
            def forward(self, t):
                return helpers.__dict__[self.name](t)
      `,
    }),
    block: 'pkg.m:Block',
    has: ['pkg.helpers:f', 'pkg.helpers:g'],
    diagnostics: ['module-namespace-complete'],
    run: 'assert Block()(torch.zeros(1)).item() == 2.0',
  },
  {
    name: "a package's submodule beats a name only guessed from an outside module's star import (transformers' utils)",
    why: "`from absent_ext import *` in the package might bind `utils`, but nothing says it does; `pkg/utils.py` is bound on the package when it is imported, so `pkg.utils.helper` is that module's",
    files: {
      'pkg/__init__.py': py`
        from absent_ext import *
        from .utils import helper
      `,
      'pkg/utils.py': py`
        def helper(x):
            return x + 1
      `,
      'pkg/m.py': py`
        import torch
        import pkg
        class Block(torch.nn.Module):
            def forward(self, x):
                return pkg.utils.helper(x)
      `,
    },
    block: 'pkg.m:Block',
    has: ['pkg.utils:helper'],
    notCode: ['absent_ext'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
];
