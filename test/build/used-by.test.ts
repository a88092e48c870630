// `usedBy` end to end: `nnblocks build` on a small git corpus writes each block's users — blocks, builders, module
// code — schema-valid, with pinned permalinks, literal arguments and class names only (never another argument's
// text), and the same in sharded builds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';
import { catalogFiles } from './catalog-files.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });
/** Upstream text inside a non-literal argument: it must not be published. */
const SECRET = 'distinctive-upstream-text-in-an-argument';

describe('usedBy in built block specs', () => {
  let out: string;
  const spec = (slug: string): BlockSpec => JSON.parse(readFileSync(join(out, 'blocks', `${slug}.json`), 'utf8'));

  beforeAll(async () => {
    const repo = gitRepo({
      'pkg/__init__.py': '',
      'pkg/blocks.py': py`
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self, dim, tag='x', stride=1):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
            def forward(self, x):
                return self.fc(x)
      `,
      'pkg/models.py': py`
        import torch.nn as nn
        from .blocks import Block
        class Net(nn.Module):
            def __init__(self, dim=16):
                super().__init__()
                self.a = Block(dim, tag='<b>bold</b>', stride=2)
                self.b = Block(len('${SECRET}'))
            def forward(self, x):
                return self.b(self.a(x))
        def net():
            return Net(32)
        default = Block(8)
      `,
    });
    const config = writeConfig([{ id: 'fx', kind: 'path', path: repo.dir }]);
    out = tempDir('nnb-cat-');
    expect(await runCli(['build', '--no-validate', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 120_000);

  it('is schema-valid, usedBy included', () => {
    expect(checkCatalog(out).errors).toEqual([]);
    expect(spec('fx.pkg.blocks.block').usedBy).toHaveLength(3);
  });

  it("lists a block's users: another block's method, module code, with literal arguments only", () => {
    const used = spec('fx.pkg.blocks.block').usedBy!;
    expect(used.map((u) => `${u.kind} ${u.name}:${u.line} ${u.via}`)).toEqual([
      'block pkg.models.Net.__init__:6 call',
      'block pkg.models.Net.__init__:7 call',
      'module pkg.models:12 call',
    ]);
    expect(used[0]).toMatchObject({
      blockId: 'fx:pkg.models.Net',
      sourceId: 'fx',
      path: 'pkg/models.py',
      // `dim` is a parameter: not published (its position stays counted).
      args: [
        { name: 'tag', value: '<b>bold</b>' },
        { name: 'stride', value: 2 },
      ],
    });
    // `len('...')` is an expression: not published, not even as text.
    expect(used[1].args).toEqual([]);
    expect(used[2].args).toEqual([{ position: 0, value: 8 }]);
  });

  it('lists builders with whether they need arguments, next to the call they make', () => {
    const used = spec('fx.pkg.models.net').usedBy!;
    expect(used.map((u) => `${u.kind} ${u.name}:${u.line} ${u.via}`)).toEqual([
      'function pkg.models.net:10 builder',
      'function pkg.models.net:11 call',
    ]);
    expect(used[0]).toMatchObject({ zeroArg: true, args: [{ position: 0, value: 32 }] });
  });

  it('links each site to its line, pinned like the provenance permalink', () => {
    const pinned = spec('fx.pkg.models.net').provenance.permalink.split('/pkg/')[0];
    for (const u of spec('fx.pkg.blocks.block').usedBy!) expect(u.permalink).toBe(`${pinned}/pkg/models.py#L${u.line}`);
  });

  it('never publishes the text of a non-literal argument', () => {
    expect(spec('fx.pkg.blocks.block').usedBy!.find((u) => u.line === 7)).toBeDefined(); // the site is listed ...
    // ... but not what it passes.
    for (const [file, text] of catalogFiles(out)) expect(text.includes(SECRET), file).toBe(false);
  });
});
