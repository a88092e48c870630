// What validation refuses to a block: the packages of its own source, of the sources it draws definitions from, and
// the corpus packages its module imports itself — never a package of an unrelated source. detr's `datasets/` folder
// hid Hugging Face's `datasets` from the transformers that mmdet's BertModel imports; here an unrelated source's
// `markupsafe/` folder would hide the installed markupsafe from the jinja2 a block imports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPartial } from '../../pipeline/run/build.ts';
import type { PartialBuild } from '../../pipeline/run/partial.ts';
import { openRun, prepare, type RunContext } from '../../pipeline/run/prepare.ts';
import { validateItems } from '../../pipeline/run/validate-step.ts';
import { runExtraction } from '../../pipeline/run/extract-step.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

describe('packages refused to a block', () => {
  let ctx: RunContext;
  let partial: PartialBuild;
  const spec = (id: string) => partial.specs.find((s) => s.id === id)!;

  beforeAll(async () => {
    const anet = gitRepo({
      'anet/__init__.py': '',
      'anet/blocks.py': py`
        import jinja2
        import torch.nn as nn
        from bnet.ops import twice

        class Templated(nn.Module):
            def forward(self, x):
                return x * int(jinja2.Template('{{ n }}').render(n=3))

        class Doubled(nn.Module):
            def forward(self, x):
                return twice(x)
      `,
    });
    const iso = gitRepo({
      'iso/__init__.py': '',
      'iso/blocks.py': py`
        import torch.nn as nn
        from inet.ops import half

        class Halved(nn.Module):
            def forward(self, x):
                return half(x)
      `,
    });
    const bnet = writeTree({ 'bnet/__init__.py': '', 'bnet/ops.py': 'def twice(x):\n    return x + x\n' });
    // Unrelated to anet's blocks: a research repository with a top-level package named like a library's dependency.
    const mnet = writeTree({ 'markupsafe/__init__.py': 'raise RuntimeError("not the installed markupsafe")\n' });
    // Kept an import by its own config: still refused to the block that imports it.
    const inet = writeTree({ 'inet/__init__.py': '', 'inet/ops.py': 'def half(x):\n    return x / 2\n' });
    const config = writeConfig([
      { id: 'anet', kind: 'git', url: `file://${anet.dir}`, ref: 'main' },
      { id: 'iso', kind: 'git', url: `file://${iso.dir}`, ref: 'main', resolveAcross: false },
      { id: 'bnet', kind: 'path', path: bnet },
      { id: 'mnet', kind: 'path', path: mnet },
      { id: 'inet', kind: 'path', path: inet },
    ]);
    ctx = openRun(config);
    ({ partial } = await buildPartial(ctx, { outDir: tempDir('nnb-cat-') }));
  }, 120_000);
  afterAll(() => ctx?.store.close());

  it("refuses the block's own packages and those its module imports, not an unrelated source's", async () => {
    const p = await prepare(ctx);
    const extracted = runExtraction(ctx, p, p.discovered.blocks, { outDir: tempDir('nnb-ext-'), write: false });
    const items = new Map(validateItems(ctx, p, extracted).map((i) => [i.id, i.blockedPackages]));
    expect(items.get('anet:anet.blocks.Templated')).toEqual(['anet']); // not mnet's markupsafe
    expect(items.get('anet:anet.blocks.Doubled')).toEqual(['anet', 'bnet']); // twice is inlined from bnet
    expect(items.get('iso:iso.blocks.Halved')).toEqual(['inet', 'iso']); // `from inet.ops import half` stays
  });

  it('lets an installed library import its own dependency though an unrelated source has a package of that name', () => {
    // Was `missing-module` markupsafe: "No module named 'markupsafe' (blocked: ...)", raised inside jinja2.
    expect(spec('anet:anet.blocks.Templated').validation).toMatchObject({ status: 'passed' });
    expect(spec('anet:anet.blocks.Doubled').validation).toMatchObject({ status: 'passed' });
  });

  it("refuses a corpus package the module imports itself, our fault or the config's", () => {
    expect(spec('iso:iso.blocks.Halved').validation).toMatchObject({
      status: 'failed',
      failureClass: 'missing-module',
      failureDetail: 'inet.ops',
    });
  });
});
