// `usedByOf` (pipeline/catalog/used-by.ts): the usage index's sites as published — neutral facts only, capped, in a
// stable order — and the block schema stating the same vocabulary and caps as the contract.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USED_BY_LIMITS, USED_BY_VIA } from '../../pipeline/contract/vocabulary.ts';
import { usedByOf } from '../../pipeline/catalog/used-by.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import type { BlockUsage, ConstructionSite, UsageArg } from '../../pipeline/usage/types.ts';

const snapshot = {
  id: 'tv',
  repository: 'https://github.com/pytorch/vision',
  commit: 'a'.repeat(40),
} as SourceSnapshot;
const sources = new Map([['tv', snapshot]]);

const site = (line: number, extra: Partial<ConstructionSite> = {}): ConstructionSite => ({
  blockId: 'tv:tv.models.Block',
  sourceId: 'tv',
  module: 'tv.models.net',
  path: 'tv/models/net.py',
  line,
  scope: 'Net.__init__',
  inBlock: 'tv:tv.models.net.Net',
  via: 'call',
  callee: 'Block',
  args: [],
  ...extra,
});
const usage = (constructions: ConstructionSite[], builders: BlockUsage['builders'] = []): BlockUsage => ({
  constructions,
  builders,
  forwardCalls: [],
  configs: [],
});

describe('usedByOf', () => {
  it('names the user and links the line at the pinned revision', () => {
    const [u] = usedByOf(usage([site(12)]), sources);
    expect(u).toEqual({
      kind: 'block',
      name: 'tv.models.net.Net.__init__',
      blockId: 'tv:tv.models.net.Net',
      sourceId: 'tv',
      path: 'tv/models/net.py',
      line: 12,
      permalink: `https://github.com/pytorch/vision/blob/${'a'.repeat(40)}/tv/models/net.py#L12`,
      via: 'call',
      args: [],
    });
  });

  it('tells blocks, functions and module code apart', () => {
    const used = usedByOf(
      usage([site(1), site(2, { scope: 'helper', inBlock: undefined }), site(3, { scope: '', inBlock: undefined })]),
      sources,
    );
    expect(used.map((u) => `${u.kind} ${u.name}`)).toEqual([
      'block tv.models.net.Net.__init__',
      'function tv.models.net.helper',
      'module tv.models.net',
    ]);
  });

  it('publishes literals and class names only, keeping positions', () => {
    const args: UsageArg[] = [
      { value: { kind: 'param', name: 'dim' } },
      { value: { kind: 'literal', value: [3, 4, 6, 3] } },
      { value: { kind: 'ref', name: 'tv.models.resnet.Bottleneck' } },
      { value: { kind: 'expr', text: 'upstream_text(x) * 2' } },
      { name: 'norm', value: { kind: 'partial', name: 'torch.nn.BatchNorm2d', args: [] } },
      { name: 'tag', value: { kind: 'literal', value: '<b>' } },
      { name: 'long', value: { kind: 'literal', value: 'x'.repeat(201) } },
      { star: 2, value: { kind: 'param', name: 'kwargs' } },
    ];
    expect(usedByOf(usage([site(5, { args })]), sources)[0].args).toEqual([
      { position: 1, value: [3, 4, 6, 3] },
      { position: 2, ref: 'tv.models.resnet.Bottleneck' },
      { name: 'tag', value: '<b>' },
    ]);
  });

  it('lists builders with whether they need arguments', () => {
    const builder = {
      blockId: 'tv:tv.models.Block',
      sourceId: 'tv',
      module: 'tv.models.net',
      path: 'tv/models/net.py',
      line: 40,
      scope: 'block50',
      name: 'block50',
      params: [],
      zeroArg: true,
      args: [{ value: { kind: 'literal', value: 50 } } as UsageArg],
      through: ['_block'],
    };
    expect(usedByOf(usage([], [builder]), sources)).toEqual([
      expect.objectContaining({ kind: 'function', name: 'tv.models.net.block50', via: 'builder', zeroArg: true }),
    ]);
  });

  it('sorts by source, path and line, keeps one entry per site and way, and caps the list', () => {
    const many = Array.from({ length: 80 }, (_, i) => site(80 - i));
    const used = usedByOf(usage([...many, site(3)]), sources);
    expect(used).toHaveLength(USED_BY_LIMITS.entries);
    expect(used.map((u) => u.line)).toEqual(Array.from({ length: USED_BY_LIMITS.entries }, (_, i) => i + 1));
  });

  it('leaves out sites of unknown sources and names that are not dotted Python names', () => {
    expect(usedByOf(usage([site(1, { sourceId: 'gone' }), site(2, { scope: 'a b' })]), sources)).toEqual([]);
  });
});

describe('block schema', () => {
  const schema = JSON.parse(readFileSync('schemas/catalog/block.schema.json', 'utf8'));
  const usedBy = schema.properties.usedBy;

  it('states the contract: the ways, the caps', () => {
    expect(usedBy.items.properties.via.enum).toEqual([...USED_BY_VIA]);
    expect(usedBy.maxItems).toBe(USED_BY_LIMITS.entries);
    expect(usedBy.items.properties.args.maxItems).toBe(USED_BY_LIMITS.args);
  });
});
