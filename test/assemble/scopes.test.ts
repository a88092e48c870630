// The two scopes of a source: include/exclude decide where blocks are discovered, resolution sees every Python file
// below the import root. A git source whose includes name one folder still resolves what its package imports from
// the others, and the emitted module imports with the package blocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExtraction } from '../../pipeline/run/extract-step.ts';
import type { Prepared, RunContext } from '../../pipeline/run/prepare.ts';
import { corpusPackages } from '../../pipeline/validate/blocked-packages.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const REPO = {
  LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy...\n',
  'pkg/__init__.py': '',
  'pkg/models/__init__.py': '',
  // The discovery scope: its package reaches into pkg.utils, which the includes leave out.
  'pkg/models/net.py': py`
    import torch.nn as nn
    from pkg.utils.helpers import act
    from ..utils import base

    class Net(base.Base):
        def __init__(self, dim=4):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return act(self.fc(x))
  `,
  'pkg/utils/__init__.py': '',
  'pkg/utils/helpers.py': py`
    import torch
    SLOPE = 0.1
    def act(x):
        return torch.nn.functional.leaky_relu(x, SLOPE)

    class Helper(torch.nn.Module):  # a Module outside the discovery scope: never a block
        def forward(self, x):
            return act(x)
  `,
  'pkg/utils/base.py': py`
    import torch.nn as nn
    class Base(nn.Module):
        pass
  `,
};

describe('two scopes: discovery by include, resolution by package', () => {
  let ctx: RunContext;
  let p: Prepared;

  beforeAll(async () => {
    const repo = gitRepo(REPO);
    const config = writeConfig([
      { id: 'fx', kind: 'git', url: `file://${repo.dir}`, ref: 'main', include: ['pkg/models/**/*.py'] },
    ]);
    ({ ctx, p } = await prepareRun(config));
  });
  afterAll(() => ctx?.store.close());

  it('indexes the whole package and marks which modules are in the discovery scope', () => {
    const scope = Object.fromEntries(p.index.modules.map((m) => [m.path, m.discover]));
    expect(scope).toEqual({
      'pkg/__init__.py': false,
      'pkg/models/__init__.py': true,
      'pkg/models/net.py': true,
      'pkg/utils/__init__.py': false,
      'pkg/utils/base.py': false,
      'pkg/utils/helpers.py': false,
    });
    expect(p.index.stats.perSource[0]).toMatchObject({ files: 6, discover: 2 });
  });

  it('discovers blocks only in the discovery scope, through bases defined outside it', () => {
    // Net reaches Module through pkg.utils.base.Base (resolution scope); Helper is not a block: not discovered there.
    expect(p.discovered.blocks.map((b) => b.id)).toEqual(['fx:pkg.models.net.Net']);
    expect(p.discovered.blocks[0].baseChain).toEqual(['pkg.utils.base.Base', 'torch.nn.Module']);
  });

  it('inlines definitions from outside the includes; the module imports and builds with the package blocked', () => {
    const [out] = runExtraction(ctx, p, p.discovered.blocks, { outDir: tempDir('nnb-out-') });
    expect(out.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const defs = out.definitions.map((d) => `${d.path}:${d.name}`);
    expect(defs).toEqual(
      expect.arrayContaining(['pkg/utils/helpers.py:act', 'pkg/utils/helpers.py:SLOPE', 'pkg/utils/base.py:Base']),
    );
    expect(out.code).not.toMatch(/^\s*(from|import) pkg\b/m);
    const blocked = corpusPackages(p.index.modules);
    expect(blocked).toEqual(['pkg']);
    const results = importInFreshPython([out.entry], blocked, { build: true });
    expect(results.get(out.entry.module)).toBe('ok:20');
  });
});
