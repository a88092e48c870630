// Registries that import their package's modules by name on first use (OpenMMLab's
// `Registry('model', locations=['pkg.models'])`): the emitted module ends by letting those names lead to itself
// where the package can't be imported, so a block that builds a submodule through the registry passes in the
// sandbox (its own package refused there) and runs from the extracted module alone, while a name of another
// package is left alone (docs/assemble.md, "Registries that locate their package").
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { testPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  'regpkg/__init__.py': '',
  // A registry as mmengine's behaves: the first lookup imports every location by name, without a guard.
  'regpkg/registry.py': py`
    import importlib

    class Registry:
        def __init__(self, name, locations=()):
            self.name, self._locations, self._imported, self._modules = name, list(locations), False, {}
        def register_module(self):
            def put(cls):
                self._modules[cls.__name__] = cls
                return cls
            return put
        def build(self, cfg):
            if not self._imported:
                for loc in self._locations:
                    importlib.import_module(loc)
                self._imported = True
            cfg = dict(cfg)
            return self._modules[cfg.pop('type')](**cfg)

    MODELS = Registry('model', locations=['regpkg.models'])
    OTHER = Registry('other', locations=['elsewhere.models'])
  `,
  'regpkg/models/__init__.py': 'from .heads import Head, Neck\n',
  'regpkg/models/heads.py': py`
    import torch.nn as nn
    from ..registry import MODELS

    @MODELS.register_module()
    class Neck(nn.Module):
        def __init__(self, channels=4):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 1)
        def forward(self, x):
            return self.conv(x)

    @MODELS.register_module()
    class Head(nn.Module):
        def __init__(self, channels=4, neck=dict(type='Neck', channels=4)):
            super().__init__()
            self.neck = MODELS.build(neck)
            self.out = nn.Conv2d(channels, 2, 1)
        def forward(self, x):
            return self.out(self.neck(x))
  `,
};

describe('registries that import their package by name', () => {
  let out: string;
  const spec = (name: string): BlockSpec =>
    JSON.parse(
      readFileSync(join(out, 'blocks', `fx.regpkg.models.heads.${name.toLowerCase()}.json`), 'utf8'),
    ) as BlockSpec;

  beforeAll(async () => {
    const config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    out = tempDir('nnb-reglocs-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  }, 240_000);

  it('passes a block that builds a submodule through a registry locating its own package', () => {
    const head = spec('Head');
    expect(head.validation?.status, head.validation?.failureDetail ?? '').toBe('passed');
  });

  it('the extracted module runs alone: its own package aliased, another package never', () => {
    const dir = tempDir('nnb-reglocs-x-');
    const config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    return runCli(['extract', 'fx:regpkg.models.heads.Head', '--config', config, '--out', dir], quiet).then((rc) => {
      expect(rc).toBe(0);
      const file = readdirSync(join(dir, 'blocks')).find((f) => f.endsWith('.py'))!;
      const code = readFileSync(join(dir, 'blocks', file), 'utf8');
      expect(code).toContain('_nnb_alias_locations(["regpkg.models"])');
      expect(code).not.toContain('"elsewhere.models"]');
      const outText = execFileSync(
        testPython(),
        [
          '-c',
          `import sys, torch; sys.path.insert(0, ${JSON.stringify(join(dir, 'blocks'))}); m = __import__(${JSON.stringify(file.replace(/\.py$/, ''))}); print(tuple(m.Head()(torch.zeros(1, 4, 3, 3)).shape))`,
        ],
        { encoding: 'utf8' },
      );
      expect(outText.trim()).toBe('(1, 2, 3, 3)');
    });
  });
});
