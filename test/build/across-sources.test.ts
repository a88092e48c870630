// Cross-source resolution: a block of source A that uses a definition of source B gets B's code inlined with B's
// provenance, its record lists B's source and license (a copyleft license into a permissive block is flagged),
// `resolveAcross: false` keeps the import, a source providing `torch` is never inlined (not even into its own
// blocks), and validation refuses every corpus package — the block still passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPartial } from '../../pipeline/run/build.ts';
import type { PartialBuild } from '../../pipeline/run/partial.ts';
import type { RunContext } from '../../pipeline/run/prepare.ts';
import { corpusPackages } from '../../pipeline/validate/blocked-packages.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

const MIT = 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy...\n';
const APACHE = 'Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/\n';
const GPL = 'SPDX-License-Identifier: GPL-3.0-only\n';

/** A block of package `pkg` using `scale` from bnet (Apache-2.0) and, in Doubled, `twice` from gnet (GPL). */
const blocks = (pkg: string) => ({
  LICENSE: MIT,
  [`${pkg}/__init__.py`]: '',
  [`${pkg}/blocks.py`]: py`
    import torch.nn as nn
    from bnet import scale
    from gnet.ops import twice

    class Scaled(nn.Module):
        def forward(self, x):
            return scale(x)

    class Doubled(nn.Module):
        def forward(self, x):
            return twice(x)
  `,
});

describe('cross-source resolution', () => {
  let ctx: RunContext;
  let partial: PartialBuild;
  const spec = (id: string) => partial.specs.find((s) => s.id === id)!;
  /** The assembled module of a block: its first line names the block id. */
  const code = (id: string) => {
    const dir = join(ctx.config.cacheDir, 'extracted', 'blocks');
    const texts = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
    return texts.find((t) => t.startsWith(`# ${id}\n`))!;
  };

  beforeAll(async () => {
    const bnet = gitRepo({
      LICENSE: APACHE,
      'bnet/__init__.py': 'from .layers import scale\n',
      'bnet/layers.py': py`
        import torch
        FACTOR = 2.0
        def scale(x):
            return x * FACTOR
      `,
    });
    const gnet = writeTree({
      LICENSE: GPL,
      'gnet/__init__.py': '',
      'gnet/ops.py': 'def twice(x):\n    return x + x\n',
    });
    // A source that provides the runtime's own package: never inlined into another source's block, never blocked.
    const tnet = writeTree({
      'torch/__init__.py': 'from . import nn\n',
      'torch/nn/__init__.py': 'from .modules.module import Module\n',
      'torch/nn/modules/__init__.py': '',
      'torch/nn/modules/module.py': 'class Module:\n    def forward(self, *args):\n        raise NotImplementedError\n',
      'torch/nn/functional.py': 'def relu(x):\n    return x.clamp(min=0)\n',
      'torch/nn/modules/act.py': py`
        from .module import Module
        from .. import functional as F

        class ReLU(Module):
            def forward(self, x):
                return F.relu(x)
      `,
    });
    const config = writeConfig([
      { id: 'anet', kind: 'git', url: `file://${gitRepo(blocks('anet')).dir}`, ref: 'main' },
      { id: 'iso', kind: 'git', url: `file://${gitRepo(blocks('iso')).dir}`, ref: 'main', resolveAcross: false },
      { id: 'bnet', kind: 'git', url: `file://${bnet.dir}`, ref: 'main' },
      { id: 'gnet', kind: 'path', path: gnet },
      { id: 'tnet', kind: 'path', path: tnet, priority: 2 },
    ]);
    ctx = openRun(config);
    ({ partial } = await buildPartial(ctx, { outDir: tempDir('nnb-cat-') }));
  }, 120_000);
  afterAll(() => ctx?.store.close());

  it("inlines B's definition with B's provenance; the record lists B's source and license", () => {
    const text = code('anet:anet.blocks.Scaled');
    const bnet = partial.snapshots.find((s) => s.id === 'bnet')!;
    expect(text).toContain(`# nnblocks: bnet bnet/layers.py:3-4 @ file://`);
    expect(text).toContain(`commit ${bnet.commit}`);
    expect(text).toContain('Upstream licenses: MIT (anet), Apache-2.0 (bnet).');
    expect(text).not.toMatch(/^(from|import) bnet\b/m);
    expect(text).toMatch(/^import torch\.nn as nn$/m); // the runtime stays an import, though tnet provides torch
    const s = spec('anet:anet.blocks.Scaled');
    expect(s.dependencies.internal).toEqual([
      { qualname: 'FACTOR', module: 'bnet.layers', path: 'bnet/layers.py', lines: [2, 2], source: 'bnet' },
      { qualname: 'scale', module: 'bnet.layers', path: 'bnet/layers.py', lines: [3, 4], source: 'bnet' },
    ]);
    expect(s.dependencies.sources).toEqual([
      { id: 'anet', license: 'MIT' },
      { id: 'bnet', license: 'Apache-2.0' },
    ]);
    expect(s.validation).toMatchObject({ status: 'passed' });
  });

  it('flags GPL code pulled into an MIT block', () => {
    const s = spec('anet:anet.blocks.Doubled');
    expect(s.dependencies.sources).toEqual([
      { id: 'anet', license: 'MIT' },
      { id: 'gnet', license: 'GPL-3.0-only', flag: 'copyleft' },
    ]);
    expect(s.dependencies.internal.map((d) => d.source)).toEqual(['gnet']);
    expect(s.validation).toMatchObject({ status: 'passed' });
  });

  it('keeps the import of another source with resolveAcross: false (and validation refuses it)', () => {
    const text = code('iso:iso.blocks.Scaled');
    expect(text).toMatch(/^from bnet import scale$/m);
    expect(text).not.toContain('# nnblocks: bnet');
    const s = spec('iso:iso.blocks.Scaled');
    expect(s.dependencies.internal).toEqual([]);
    expect(s.dependencies.sources).toEqual([{ id: 'iso', license: 'MIT' }]);
    expect(s.validation).toMatchObject({ status: 'failed', failureClass: 'missing-module' });
  });

  it("keeps the runtime's own imports in a block of the source that provides it (the paper's torch/nn/modules)", () => {
    // Inlining `Module` and `relu` from tnet would pull in the runtime's closure (all of torch for the real one);
    // every validation has torch installed, so they stay imports.
    const text = code('tnet:torch.nn.modules.act.ReLU');
    expect(text).toMatch(/^from torch\.nn\.modules\.module import Module$/m);
    expect(text).not.toContain('def relu');
    expect(spec('tnet:torch.nn.modules.act.ReLU').dependencies.internal).toEqual([]);
  });

  it('refuses every corpus package but the runtime in validation', async () => {
    const p = await prepare(ctx);
    expect(corpusPackages(p.index.modules)).toEqual(['anet', 'bnet', 'gnet', 'iso']);
  });
});
