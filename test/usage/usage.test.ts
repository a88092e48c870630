// Usage mining on a tiny inline package (fixture.ts), through the real index (tree-sitter, SQLite) and resolver:
// each case reads like a resolver case — the upstream line, what is mined from it, and why. Records are shown in a
// compact text form (`path:line scope via callee(args) → assign`) so a case states the whole fact in one line.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LiteralValue } from '../../pipeline/contract/common.ts';
import type { BlockUsage, UsageArg, UsageValue } from '../../pipeline/usage/types.ts';
import { buildUsageIndex, type UsageIndex } from '../../pipeline/usage/usage-index.ts';
import { indexFolders, indexTree } from '../helpers/corpus.ts';
import { USAGE_TREE } from './fixture.ts';

let index: UsageIndex;
let first: Awaited<ReturnType<typeof indexTree>>;
const usage = (name: string): BlockUsage => index.usageOf(`fx:pkg.${name}`);

const literal = (v: LiteralValue): string => (Array.isArray(v) ? `[${v.map(literal).join(', ')}]` : JSON.stringify(v));

function value(v: UsageValue): string {
  switch (v.kind) {
    case 'literal':
      return literal(v.value);
    case 'ref':
    case 'instance':
      return `${v.kind}:${v.name}`;
    case 'partial':
      return `partial:${v.name}(${v.args.map(arg).join(', ')})`;
    case 'tensor':
      return `${v.factory}[${v.shape.join(', ')}]`;
    case 'list':
      return `[${v.items.map(value).join(', ')}]`;
    case 'expr':
      return `expr:${v.text}`;
    case 'config':
      return `config:${v.type}(${v.args.map(arg).join(', ')})`;
    default:
      return `${v.kind}:${v.name}`;
  }
}
const arg = (a: UsageArg) => `${'*'.repeat(a.star ?? 0)}${a.name !== undefined ? `${a.name}=` : ''}${value(a.value)}`;
const args = (list: UsageArg[]) => `(${list.map(arg).join(', ')})`;

const constructions = (name: string) =>
  usage(name).constructions.map(
    (c) =>
      `${c.path}:${c.line} ${c.scope || '<module>'} ${c.via} ${c.callee}${c.via === 'reference' ? ` as ${c.as}` : args(c.args)}${c.assign ? ` → ${c.assign}` : ''}`,
  );
const builders = (name: string) =>
  usage(name).builders.map(
    (b) =>
      `${b.name}${b.zeroArg ? ' (no arguments)' : ''}: ${args(b.args)}${b.through.length ? ` via ${b.through.join(', ')}` : ''}`,
  );
const forwards = (name: string) =>
  usage(name).forwardCalls.map((f) => `${f.scope} ${f.callee}${args(f.args)} arity ${f.arity}`);

beforeAll(async () => {
  first = await indexTree(USAGE_TREE);
  index = buildUsageIndex(first.program, first.discovered.blocks);
});

describe('construction sites', () => {
  it('follows an import alias: `from .blocks import Bottleneck as B`, then `B(3, 64, stride=2)`', () => {
    expect(constructions('blocks.Bottleneck')).toContain(
      'pkg/net.py:20 Net.__init__ call B(3, 64, stride=2) → self.stem',
    );
  });

  it('follows a module object: `from . import blocks`, then `blocks.Basic(...)`', () => {
    expect(constructions('blocks.Basic')).toContain(
      'pkg/net.py:22 Net.__init__ call blocks.Basic(64, 128, stride=2) → self.layer2',
    );
  });

  it('records the site in its block (nested instantiation: `self.stem = B(...)` in Net.__init__)', () => {
    const site = usage('blocks.Bottleneck').constructions.find((c) => c.line === 20)!;
    expect(site).toMatchObject({ inBlock: 'fx:pkg.net.Net', scope: 'Net.__init__', module: 'pkg.net', sourceId: 'fx' });
  });

  it('reads `partial(Norm, eps=1e-3)` as a construction with the bound keyword', () => {
    expect(constructions('blocks.Norm')).toContain(
      'pkg/net.py:18 Net.__init__ partial partial(eps=0.001) → norm_layer',
    );
  });

  it('follows the partial into the parameter it fills: `norm_layer(64)` is Norm(64, eps=1e-3)', () => {
    // `if norm_layer is None: norm_layer = partial(...)` rebinds the parameter; calling it builds a Norm.
    expect(constructions('blocks.Norm')).toContain(
      'pkg/net.py:24 Net.__init__ parameter norm_layer(64, eps=0.001) → self.norm',
    );
  });

  it('follows a class through parameters to where it is called: `block(...)` in Net._make_layer', () => {
    // net50 passes B to _net, _net passes block to Net(block, ...), Net passes it to self._make_layer(block, ...).
    expect(constructions('blocks.Bottleneck')).toContain(
      'pkg/net.py:26 Net._make_layer parameter block(name:self.inplanes, param:planes, stride=1)',
    );
    // make_basic passes Basic by keyword: `Net(block=Basic, ...)`.
    expect(constructions('blocks.Basic')).toContain(
      'pkg/net.py:26 Net._make_layer parameter block(name:self.inplanes, param:planes, stride=1)',
    );
  });

  it('records layer-factory references: `Net(block=Basic, ...)` and `_net(B, ...)`', () => {
    expect(constructions('blocks.Basic')).toContain('pkg/net.py:43 make_basic reference Net as block');
    expect(constructions('blocks.Bottleneck')).toContain('pkg/net.py:37 net50 reference _net as 0');
  });

  it("records a subclass's `super().__init__(...)` as a construction of its base", () => {
    expect(constructions('blocks.Basic')).toContain(
      'pkg/blocks.py:27 Wide.__init__ super super().__init__(param:inplanes, expr:planes * 2, stride=1)',
    );
  });
});

describe('registries', () => {
  it('reads a dict of classes: its entries are references, a literal key picks one class', () => {
    expect(constructions('blocks.Basic')).toContain('pkg/registry.py:17 <module> reference BLOCKS as basic → BLOCKS');
    expect(constructions('blocks.Basic')).toContain('pkg/registry.py:23 build_basic registry BLOCKS(32, 32, stride=2)');
    expect(constructions('blocks.Bottleneck')).not.toContain(
      'pkg/registry.py:23 build_basic registry BLOCKS(32, 32, stride=2)',
    );
  });

  it('a computed key may be any entry: `BLOCKS[name](64, 64)` builds Basic or Bottleneck', () => {
    expect(constructions('blocks.Basic')).toContain('pkg/registry.py:20 build registry BLOCKS(64, 64)');
    expect(constructions('blocks.Bottleneck')).toContain('pkg/registry.py:20 build registry BLOCKS(64, 64)');
  });

  it('matches config dicts to classes registered with `@MODELS.register_module()`, by name or `name=`', () => {
    expect(constructions('registry.Head')).toEqual([
      'pkg/configs.py:3 <module> registry dict(in_channels=256, num_classes=80) → model',
      'pkg/configs.py:5 <module> registry dict(in_channels=3)',
    ]);
    // `{'type': 'FancyHead', ...}`: a dict literal, and Head2 registered as `name='FancyHead'`.
    expect(constructions('registry.Head2')).toEqual([
      'pkg/configs.py:4 <module> registry dict(in_channels=128) → head2',
    ]);
  });
});

describe('builders', () => {
  it('finds a zero-argument builder through a private helper, with its literals substituted', () => {
    // net50 → _net(B, [3, 4, 6, 3], encoder=Encoder(16), **kwargs) → `model = Net(block, layers, **kwargs)`; return model
    expect(builders('net.Net')).toContain(
      'net50 (no arguments): (ref:pkg.blocks.Bottleneck, [3, 4, 6, 3], encoder=instance:pkg.net.Encoder, **param:kwargs) via _net',
    );
  });

  it('lists the helper itself, which needs arguments', () => {
    expect(builders('net.Net')).toContain('_net: (param:block, param:layers, **param:kwargs)');
  });

  it('finds direct builders, with or without arguments', () => {
    expect(builders('net.Net')).toContain('make_basic (no arguments): (block=ref:pkg.blocks.Basic, layers=[2, 2])');
    expect(builders('net.Net')).toContain('net_custom: (param:block, expr:[depth] * 4)');
  });

  it('finds builders that return a registry entry', () => {
    expect(builders('blocks.Basic')).toEqual(['build: (64, 64)', 'build_basic (no arguments): (32, 32, stride=2)']);
  });

  it('gives each builder its location and parameters', () => {
    const b = usage('net.Net').builders.find((x) => x.name === 'net50')!;
    expect(b).toMatchObject({ path: 'pkg/net.py', line: 36, scope: 'net50', zeroArg: true, through: ['_net'] });
    expect(b.params).toEqual([
      { name: 'pretrained', kind: 'keyword-only', hasDefault: true },
      { name: 'kwargs', kind: 'var-keyword', hasDefault: true },
    ]);
  });
});

describe('part builders', () => {
  const parts = (name: string) =>
    index.partBuilders(`fx:pkg.${name}`).map((b) => [b.name, b.blockId.replace('fx:pkg.', ''), b.depth]);

  it('walks up to zero-argument builders whose model may hold a block, nearest first', () => {
    // Bottleneck: named in net50 (`_net(B, ...)`: a reference counts) at level 1; built in Net.__init__, whose
    // builders are reached through `_net` (a helper: its callers), `net_custom` (needs an argument) and make_basic.
    expect(parts('blocks.Bottleneck')).toEqual([
      ['net50', 'net.Net', 1],
      ['make_basic', 'net.Net', 2],
    ]);
    // Encoder is built in net50 itself and passed to Net: level 1, and nowhere else.
    expect(parts('net.Encoder')).toEqual([['net50', 'net.Net', 1]]);
  });

  it('orders the builders of one level by their static configuration: a zoo that lists its giant first', async () => {
    // Only the first few part builders are offered to the runner: the tiny model must be among them.
    const zoo = await indexTree({
      'pkg/__init__.py': '',
      'pkg/zoo.py': [
        'import torch.nn as nn',
        'class Attn(nn.Module):',
        '    def __init__(self, dim): super().__init__(); self.q = nn.Linear(dim, dim)',
        '    def forward(self, x): return self.q(x)',
        'class Vit(nn.Module):',
        '    def __init__(self, embed_dim=768, depth=12):',
        '        super().__init__()',
        '        self.blocks = nn.ModuleList([Attn(embed_dim) for _ in range(depth)])',
        '    def forward(self, x): return self.blocks[0](x)',
        'def _create(variant, pretrained=False, **kwargs):',
        '    model = Vit(**kwargs)',
        '    return model',
        ...[
          ['giant', 1408, 40],
          ['base', 768, 12],
          ['tiny', 192, 12],
        ].flatMap(([size, dim, depth]) => [
          `def vit_${size}(pretrained=False, **kwargs):`,
          `    model_args = dict(embed_dim=${dim}, depth=${depth})`,
          `    return _create('vit_${size}', pretrained=pretrained, **dict(model_args, **kwargs))`,
        ]),
        '',
      ].join('\n'),
    });
    const found = buildUsageIndex(zoo.program, zoo.discovered.blocks).partBuilders('fx:pkg.zoo.Attn');
    expect(found.map((b) => b.name)).toEqual(['vit_tiny', 'vit_base', 'vit_giant']);
  });

  it("leaves out a block's own builders (build_basic makes a Basic: a plain builder recipe)", () => {
    expect(parts('blocks.Basic').map(([name]) => name)).not.toContain('build_basic');
    expect(parts('net.Net')).toEqual([]);
  });
});

describe('forward calls', () => {
  it('finds `self.stem(x)` where `self.stem = B(...)` in the same class', () => {
    expect(forwards('blocks.Bottleneck')).toEqual(['Net.forward self.stem(name:x) arity 1']);
  });

  it('follows an instance passed in through `**kwargs` to the attribute it is stored in', () => {
    // net50: encoder=Encoder(16) → _net(**kwargs) → Net(..., **kwargs) → `self.encoder = encoder` → self.encoder(...)
    expect(forwards('net.Encoder')).toEqual([
      'Net.forward self.encoder(name:y, torch.zeros[1, 8, 4, 4], mask=null) arity 2',
    ]);
    expect(usage('net.Encoder').forwardCalls[0].keywords).toEqual(['mask']);
  });

  it("follows a builder's result to a call of the instance, with the literal shape of its input", () => {
    // model = net50(); inp = torch.randn(2, 3, 32, 32); model(inp)
    expect(forwards('net.Net')).toEqual(['demo model(torch.randn[2, 3, 32, 32]) arity 1']);
  });

  it('gives nothing for a block nobody calls', () => {
    expect(usage('blocks.Wide')).toEqual({ constructions: [], builders: [], forwardCalls: [], configs: [] });
  });
});

describe('incremental', () => {
  it('a warm re-run parses nothing, and the facts read back from the index give the same usage', async () => {
    const root = first.snapshots[0].root;
    const again = await indexFolders([{ id: 'fx', root }], first.store);
    expect(again.index.stats.parsed).toBe(0);
    const warm = buildUsageIndex(again.program, again.discovered.blocks);
    for (const b of first.discovered.blocks) expect(warm.usageOf(b.id)).toEqual(index.usageOf(b.id));
  });
});

describe('records cross stage boundaries as plain JSON', () => {
  it('survives a JSON round trip unchanged', () => {
    for (const name of ['blocks.Bottleneck', 'blocks.Basic', 'net.Net', 'net.Encoder', 'registry.Head']) {
      const u = usage(name);
      expect(JSON.parse(JSON.stringify(u))).toEqual(u);
    }
  });
});
