// Resolver cases for names bound several times at module level: a statement that runs at import time reads the
// binding that precedes it, a function body the last one (timm's vision_transformer.py reads its plain
// `default_cfgs` dict, then rebinds it to DefaultCfg objects). Each emitted module is imported and run with `pkg`
// blocked (test/assemble/import.test.ts).
import { py, type Tree } from '../helpers/tree.ts';
import type { ResolverCase } from './cases.ts';

const pkg = (files: Record<string, string>): Tree => ({ 'pkg/__init__.py': '', ...files });

/** timm's shape: a plain dict, an import-time reader of it, a loop filling it, then its rebinding to wrapped values. */
const rebound = py`
  import torch
  import torch.nn as nn
  class Wrapped:
      def __init__(self, v):
          self.v = v
  cfgs = {'a': {'notes': ('quickgelu',)}, 'b': {}}
  _quick = [n for n, c in cfgs.items() if c.get('notes')]
  for n in _quick:
      cfgs[n + '_q'] = dict(cfgs[n])
  cfgs = {k: Wrapped(v) for k, v in cfgs.items()}
`;

export const flowCases: ResolverCase[] = [
  {
    name: 'an import-time read of a name bound again later reads the binding before it',
    why: '`_quick = [... cfgs.items() ...]` runs before `cfgs = {k: Wrapped(v) ...}`: it reads the plain dict (`.get` works), and the rebinding comes after it; `forward` runs later and reads the wrapped one',
    files: pkg({
      'pkg/m.py':
        rebound +
        py`
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.quick = list(_quick)
              self.kinds = sorted({type(v).__name__ for v in cfgs.values()})
          def forward(self, x):
              return x * len(cfgs)
    `,
    }),
    block: 'pkg.m:Block',
    order: ["cfgs = {'a'", '_quick = [', 'for n in _quick:', 'cfgs = {k: Wrapped(v)'],
    run: 'b = Block(); assert b.quick == ["a"] and b.kinds == ["Wrapped"], (b.quick, b.kinds); assert b(torch.ones(1)).item() == 3',
  },
  {
    name: 'both bindings of a name read before and after its rebinding are renamed together on a clash',
    why: "another module's `cfgs` keeps the name: every binding of pkg.m's `cfgs` gets the one new name, so the rebinding still rebinds what `_quick` read",
    files: pkg({
      'pkg/a.py': py`
      cfgs = {'x': 1}
      def a_cfg():
          return cfgs['x']
    `,
      'pkg/m.py':
        rebound +
        py`
      from .a import a_cfg
      class Block(nn.Module):
          def __init__(self):
              super().__init__()
              self.quick = list(_quick)
              self.kinds = sorted({type(v).__name__ for v in cfgs.values()})
              self.n = len(cfgs) + a_cfg()
          def forward(self, x):
              return x * self.n
    `,
    }),
    block: 'pkg.m:Block',
    code: ["cfgs_m = {'a'", 'cfgs_m = {k: Wrapped(v) for k, v in cfgs_m.items()}'],
    order: ["cfgs_m = {'a'", '_quick = [', 'for n in _quick:', 'cfgs_m = {k: Wrapped(v)'],
    run: 'b = Block(); assert b.quick == ["a"] and b.kinds == ["Wrapped"], (b.quick, b.kinds); assert b(torch.ones(1)).item() == 4',
  },
  {
    name: 'a plain rebinding comes after the import-time reader of the binding before it',
    why: '`LIMIT = 2` is read by `HALF = LIMIT // 2` at import time; `LIMIT = 8` comes only because `forward` reads it, after `HALF`',
    files: pkg({
      'pkg/m.py':
        'import torch\nimport torch.nn as nn\n' +
        py`
      LIMIT = 2
      HALF = LIMIT // 2
      LIMIT = 8
      class Block(nn.Module):
          def forward(self, x):
              return x * HALF + LIMIT
    `,
    }),
    block: 'pkg.m:Block',
    order: ['LIMIT = 2', 'HALF = LIMIT // 2', 'LIMIT = 8'],
    run: 'assert Block()(torch.ones(1)).item() == 9',
  },
  {
    name: 'a statement filling a name fills the binding before it, which comes with it',
    why: "`CFGS['b'] = 2` fills the first `CFGS`, which `KEYS` reads at import time; the rebinding no code reads stays out",
    files: pkg({
      'pkg/m.py':
        'import torch\nimport torch.nn as nn\n' +
        py`
      CFGS = {'a': 1}
      CFGS['b'] = 2
      KEYS = sorted(CFGS)
      CFGS = {k: str(v) for k, v in CFGS.items()}
      class Block(nn.Module):
          def forward(self, x):
              return x * len(KEYS)
    `,
    }),
    block: 'pkg.m:Block',
    order: ["CFGS = {'a': 1}", "CFGS['b'] = 2", 'KEYS = sorted(CFGS)'],
    notCode: ['str(v)'],
    run: 'assert Block()(torch.ones(1)).item() == 2',
  },
  {
    name: 'an imported name rebound from itself: the import binds it from the emitted definition',
    why: "mmpretrain's clip.py: `from ..datasets.categories import CATS` then `CATS = [... for c in CATS]`; the import came verbatim as the rebinding's earlier binding, and failed (its package is refused); the other name it imports comes on its own",
    files: pkg({
      'pkg/datasets/__init__.py': '',
      'pkg/datasets/categories.py': "CATS = ('a_b', 'c')\nSIMPLE = ('x',)\nUNUSED = ('z',)\n",
      'pkg/m.py':
        'import torch\nimport torch.nn as nn\n' +
        py`
      from pkg.datasets.categories import (CATS,
                                           SIMPLE, UNUSED)
      CATS = [' '.join(c.split('_')) for c in CATS]
      MAP = {'simple': SIMPLE, 'cats': CATS}
      class Block(nn.Module):
          def forward(self, x):
              return x * len(MAP['cats'][0])
    `,
    }),
    block: 'pkg.m:Block',
    notCode: ['from pkg.datasets', 'UNUSED'],
    order: ["CATS_categories = ('a_b', 'c')", 'CATS = CATS_categories', "CATS = [' '.join"],
    run: 'assert Block()(torch.ones(1)).item() == 3',
  },
];
