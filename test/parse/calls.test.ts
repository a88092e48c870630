// Usage facts of the parse stage (pipeline/parse/calls.ts): each case a snippet and the calls or links it records,
// with why. Heads come from the statement walk's scopes: global, parameter, self or local where the name is read.
import { describe, expect, it } from 'vitest';
import type { CallFact } from '../../pipeline/parse/facts.ts';
import { parseText } from '../../pipeline/parse/parse-module.ts';
import { py } from '../helpers/tree.ts';

const calls = (src: string): CallFact[] => parseText(src).usage.calls;
/** Each call or link with its scope by name (facts number them: `UsageFacts.scopes`). */
const scoped = <T extends { scope: number }>(src: string, pick: (u: ReturnType<typeof parseText>['usage']) => T[]) => {
  const u = parseText(src).usage;
  return pick(u).map((x) => ({ ...x, scope: u.scopes[x.scope] }));
};
const call = (src: string, callee: string): CallFact => {
  const found = calls(src).find((c) => c.callee === callee);
  if (!found)
    throw new Error(
      `no call of ${callee} in: ${calls(src)
        .map((c) => c.callee)
        .join(', ')}`,
    );
  return found;
};

describe('which calls are recorded', () => {
  it('records module-level names, parameters, locals and self.x; not methods of locals nor builtins', () => {
    const src = py`
      import torch.nn as nn
      from .blocks import Block
      def make(block, x):
          layer = Block(64)
          y = x.view(-1)
          n = len(y)
          return block(n), layer(y), nn.Conv2d(3, 8, 3)
    `;
    expect(calls(src).map((c) => `${c.callee} ${c.head ?? 'global'}`)).toEqual([
      'Block global',
      'block param',
      'layer local',
      'nn.Conv2d global',
    ]);
  });

  it('leaves out a function whose value goes nowhere followed, unless a class is passed to it by name', () => {
    const src = py`
      from m import f, g, h, k, register, Block
      def run(x):
          f(1)                  # a statement passing nothing on
          y = len(x) + g(x)     # part of a larger expression
          k(x)                  # a statement passing x on: k's parameter holds it
          if register(Block):   # a class passed by name
              return h(x)       # returned
    `;
    expect(calls(src).map((c) => c.callee)).toEqual(['k', 'register', 'h']);
  });

  it('records `self.x(...)` but not `self.x.y(...)`, and `super().__init__(...)`', () => {
    const src = py`
      class A(Base):
          def __init__(self, dim):
              super().__init__(dim, bias=False)
              self.proj.reset_parameters()
          def forward(self, x):
              return self.proj(x)
    `;
    expect(scoped(src, (u) => u.calls).map((c) => `${c.scope} ${c.callee} ${c.head}`)).toEqual([
      'A.__init__ super().__init__ self',
      'A.forward self.proj self',
    ]);
  });

  it('gives a call its enclosing scope: module, class body, method, function, nested function', () => {
    const src = py`
      from m import f
      y = f(1)
      class A:
          x = f(2)
          def g(self):
              def inner():
                  return f(3)
              return f(4)
    `;
    expect(scoped(src, (u) => u.calls).map((c) => `${c.scope || '<module>'} ${c.line}`)).toEqual([
      '<module> 2',
      'A 4',
      'A.g.<locals>.inner 7',
      'A.g 8',
    ]);
  });

  it('counts a closure reading an outer parameter as local: only the function itself knows what it holds', () => {
    const src = py`
      def outer(block):
          def inner():
              return block(1)
          return inner
    `;
    expect(call(src, 'block').head).toBe('local');
  });
});

describe('arguments', () => {
  it('reads positional, keyword and starred arguments with literal, name, call and text values', () => {
    const src = py`
      from functools import partial
      import torch.nn as nn
      from .blocks import Block
      def make(planes, *args, **kwargs):
          return Block(64, planes, (3, 3), 'relu', None, nn.ReLU, planes * 2, *args,
                       norm=partial(nn.BatchNorm2d, eps=1e-3), stride=-1, **kwargs)
    `;
    const c = call(src, 'Block');
    expect(c.args).toEqual([
      { lit: 64 },
      { name: 'planes', head: 'param' },
      { lit: [3, 3] },
      { lit: 'relu' },
      { lit: null },
      { name: 'nn.ReLU' }, // no head: a module-level name
      { expr: 'planes * 2' },
      { name: 'args', head: 'param', star: 1 },
      { kw: 'norm', call: 1 },
      { kw: 'stride', lit: -1 },
      { name: 'kwargs', head: 'param', star: 2 },
    ]);
    expect(calls(src)[1]).toMatchObject({ callee: 'partial' });
    expect(calls(src)[1].head).toBeUndefined();
  });

  it('splits at top-level commas only, skipping strings and comments', () => {
    const src = py`
      from m import f
      x = f(
          "a, b",  # a comment, with a comma
          g(1, 2),
          [3, 4],
      )
    `;
    expect(call(src, 'f').args).toEqual([
      { lit: 'a, b' },
      { expr: 'g(1, 2)' }, // g is not bound: a builtin or a typo, never recorded
      { lit: [3, 4] },
    ]);
  });

  it('reads a display of names item by item: `[BasicConv2d, InceptionA]`', () => {
    const src = py`
      from m import f, A, B
      f(blocks=[A, B, 1])
    `;
    expect(call(src, 'f').args[0]).toEqual({ kw: 'blocks', list: [{ name: 'A' }, { name: 'B' }, { lit: 1 }] });
  });

  it('caps what it keeps: 64 arguments, strings of 200 characters, text of 80', () => {
    const many = Array.from({ length: 100 }, (_, i) => String(i)).join(', ');
    const long = 'x'.repeat(300);
    const src = `from m import f\nx = f(${many})\ny = f('${long}', ${'a + '.repeat(50)}b)\n`;
    const [a, b] = calls(src);
    expect(a.args).toHaveLength(64);
    expect(b.args[0]).toHaveProperty('expr');
    expect([...(b.args[1] as { expr: string }).expr].length).toBeLessThanOrEqual(80);
  });
});

describe('where the value goes', () => {
  it('records an assignment to a name or to self.x, and a return, through `or` and parentheses', () => {
    const src = py`
      from m import A, B, C
      class Net:
          def __init__(self, enc=None):
              self.a = A(1)
              model = (enc or B(2))
              return C(3)
    `;
    expect(calls(src).map((c) => `${c.callee} ${c.assign ?? ''} ${c.returned ?? false}`)).toEqual([
      'A self.a false',
      'B model false',
      'C  true',
    ]);
  });

  it('does not take a call inside a larger expression for the assigned value', () => {
    const src = py`
      from m import A
      def f():
          x = A(1) + 1
          y = [A(2)]
    `;
    expect(calls(src).map((c) => c.assign)).toEqual([undefined, undefined]);
  });

  it('links returned names and attributes of self set from names, conditional branches included', () => {
    const src = py`
      from m import Frozen, BN, Block
      def build(block, trained):
          model = block(1)
          return model
      class Up:
          def __init__(self, encoder, trained):
              self.encoder = encoder
              norm = Frozen if trained else BN
              if block is None:
                  block = Block
    `;
    expect(
      scoped(src, (u) => u.links).map(
        (l) =>
          `${l.scope} ${l.kind} ${l.target ?? ''} ${'name' in l.value ? `${l.value.name}:${l.value.head ?? 'global'}` : ''}`,
      ),
    ).toEqual([
      'build return  model:local',
      'Up.__init__ assign self.encoder encoder:param',
      'Up.__init__ assign norm Frozen:global',
      'Up.__init__ assign norm BN:global',
      'Up.__init__ assign block Block:global',
    ]);
  });
});

describe('registries and configs', () => {
  it('reads `REG[key](...)` with its literal key, or null for a computed one', () => {
    const src = py`
      from m import Basic
      BLOCKS = {'basic': Basic}
      def f(name):
          return BLOCKS['basic'](1), BLOCKS[name](2)
    `;
    expect(calls(src).map((c) => `${c.callee} ${JSON.stringify(c.key)}`)).toEqual([
      'dict undefined',
      'BLOCKS "basic"',
      'BLOCKS null',
    ]);
    expect(calls(src)[0]).toMatchObject({
      assign: 'BLOCKS',
      args: [{ kw: 'basic', name: 'Basic' }],
    });
  });

  it('records config dicts (`type` key) anywhere and dict literals bound to a name; not other dicts', () => {
    // `opts = {...}` in a function: a builder's configuration spread later (`**opts`); `print({...})` goes nowhere.
    const src = py`
      model = dict(type='ResNet', depth=50)
      head = {'type': 'Head', 'in_channels': 256, **extra}
      def f():
          opts = {'lr': 0.1}
          print({'lr': 0.2})
          return {'type': 'Loss', 'weight': 1.0}
    `;
    expect(
      scoped(src, (u) => u.calls).map((c) => `${c.scope || '<module>'} ${c.args.map((a) => a.kw ?? `**`).join(',')}`),
    ).toEqual(['<module> type,depth', '<module> type,in_channels,**', 'f lr', 'f type,weight']);
  });
});

describe('robustness', () => {
  it('records nothing from a statement nested too deep for the walk', () => {
    const deep = `X = {'type': 'A', 'f': ${'lambda: '.repeat(1000)}1}\nfrom m import f\ny = f(1)\n`;
    expect(calls(deep).map((c) => c.callee)).toEqual(['f']);
  });

  it('is the same with and without the text scan of the statement walk', () => {
    const src = py`
      from m import A, f
      class B(A):
          def __init__(self, block, n=2):
              super().__init__()
              self.layers = [block(i, stride=2) for i in range(n)]
              self.head = A(n, key=f(1))
          def forward(self, x):
              return self.head(x, *self.layers)
    `;
    const scanned = parseText(src).usage;
    expect(scanned.calls.map((c) => c.callee)).toEqual(['super().__init__', 'block', 'A', 'f', 'self.head']);
    expect(parseText(src, 'utf-8', { textScan: false }).usage).toEqual(scanned);
  });
});
