// Architecture identity: which differences in a module tree change the hash and which do not, and why.
import { describe, expect, it } from 'vitest';
import { archHash, parseModuleTree } from '../../pipeline/dedup/arch.ts';
import type { ModuleTreeNode } from '../../pipeline/dedup/types.ts';

const T = 'torch.nn.modules.';
type Spec = [string, ModuleTreeNode];
const node = (type: string, params: number[][] = [], children: Spec[] = []): ModuleTreeNode => ({
  type,
  params: params.map((shape, i) => ({ name: `p${i}`, shape })),
  children: children.map(([name, c]) => ({ name, ...c })),
});
const lin = (i: number, o: number) => node(`${T}linear.Linear`, [[o, i], [o]]);
const relu = () => node(`${T}activation.ReLU`);
const hash = (t: ModuleTreeNode) => archHash(t);

describe('archHash', () => {
  const base = node(
    'a.Net',
    [],
    [
      ['fc1', lin(4, 8)],
      ['act', relu()],
      ['fc2', lin(8, 4)],
    ],
  );

  it('ignores the root class name and child names', () => {
    expect(
      hash(
        node(
          'b.Other',
          [],
          [
            ['x', lin(4, 8)],
            ['y', relu()],
            ['z', lin(8, 4)],
          ],
        ),
      ),
    ).toBe(hash(base));
  });

  it('treats torch containers as transparent', () => {
    const seq = node(
      `${T}container.Sequential`,
      [],
      [
        ['0', lin(4, 8)],
        ['1', relu()],
        ['2', lin(8, 4)],
      ],
    );
    expect(hash(node('a.Net', [], [['body', seq]]))).toBe(hash(base));
  });

  it('ignores registration order', () => {
    expect(
      hash(
        node(
          'a.Net',
          [],
          [
            ['fc2', lin(8, 4)],
            ['fc1', lin(4, 8)],
            ['act', relu()],
          ],
        ),
      ),
    ).toBe(hash(base));
  });

  it('changes with shapes, torch types and nesting under user classes', () => {
    expect(
      hash(
        node(
          'a.Net',
          [],
          [
            ['fc1', lin(4, 16)],
            ['act', relu()],
            ['fc2', lin(16, 4)],
          ],
        ),
      ),
    ).not.toBe(hash(base));
    expect(
      hash(
        node(
          'a.Net',
          [],
          [
            ['fc1', lin(4, 8)],
            ['act', node(`${T}activation.GELU`)],
            ['fc2', lin(8, 4)],
          ],
        ),
      ),
    ).not.toBe(hash(base));
    const wrapped = node(
      'a.Net',
      [],
      [
        [
          'inner',
          node(
            'a.Inner',
            [],
            [
              ['fc1', lin(4, 8)],
              ['act', relu()],
            ],
          ),
        ],
        ['fc2', lin(8, 4)],
      ],
    );
    expect(hash(wrapped)).not.toBe(hash(base));
  });

  it('names user classes by nothing: two helper classes with the same contents are the same', () => {
    const viaA = node('a.Net', [], [['blk', node('a.HelperA', [], [['fc', lin(4, 4)]])]]);
    const viaB = node('a.Net', [], [['blk', node('b.HelperB', [], [['fc', lin(4, 4)]])]]);
    expect(hash(viaA)).toBe(hash(viaB));
  });
});

describe('parseModuleTree', () => {
  it('says what is wrong with a malformed tree', () => {
    expect(parseModuleTree(null)).toBe('moduleTree is not an object');
    expect(parseModuleTree({ type: 'A', params: [], children: [{ type: 'B', params: [], children: [] }] })).toBe(
      'moduleTree.children[0].name is not a string',
    );
    expect(parseModuleTree({ type: 'A', params: [{ name: 'w', shape: [-1] }], children: [] })).toBe(
      'moduleTree.params[0].shape is not a list of sizes',
    );
  });
});
