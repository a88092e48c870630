// Canonical configurations from model zoos' builder idioms, end to end (docs/validate.md, "Canonical
// configurations"): the real build (walk, index, usage mining, extraction, sandboxed runner) on inline packages
// shaped like timm (`@register_model` functions → `_create_net` → `build_model_with_cfg(model_cls, ...)`) and like an
// OpenMMLab repository (a registry and a `configs/` folder of Python config files). The counts are the parameters of
// the configurations the fixtures spell out, computed by hand in each case.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { writeConfig } from '../helpers/run.ts';
import { gitRepo, tempDir } from '../helpers/tree.ts';
import { MM_TREE, TIMM_TREE } from '../usage/idioms-fixture.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });
const blocks = new Map<string, BlockSpec>();
const canonical = (name: string) =>
  (blocks.get(name)?.validation?.canonical ?? []).map((c) => [c.builder, c.params, c.config ?? null]);

beforeAll(async () => {
  const config = writeConfig([
    { id: 'timmish', kind: 'path', path: gitRepo(TIMM_TREE).dir },
    { id: 'mmish', kind: 'path', path: gitRepo(MM_TREE).dir },
  ]);
  const out = tempDir('nnb-canon-idioms-');
  expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
  for (const f of readdirSync(join(out, 'blocks'))) {
    const spec = JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec;
    blocks.set(spec.name, spec);
  }
}, 300_000);

describe("timm's registered model functions", () => {
  it('counts each builder that reaches the class through build_model_with_cfg, smallest first', () => {
    // net_small: 2 x Linear(8, 8) + Linear(8, 5) = 144 + 45, its 5 classes from `default_cfgs`, which the decorator
    // reads off the module (decorator-reads.ts); net_wide: 4 x Linear(32, 32) + Linear(32, 10).
    expect(canonical('Net')).toEqual([
      ['net_small', 189, null],
      ['net_wide', 4554, null],
    ]);
  });

  it('counts a subclass passed through a local (`model_cls = Other`)', () => {
    // other_small: width 16 → 2 x Linear(16, 16) + Linear(16, 10).
    expect(canonical('Other')).toEqual([['other_small', 714, null]]);
  });
});

describe('OpenMMLab config files', () => {
  it('counts each configuration of a registered class, labelled with its file, a dash-named one too', () => {
    // tiny18: 2 x (Linear(8, 8) + BatchNorm1d(8)); tiny-wide: 3 x (Linear(16, 16) + LayerNorm(16)), its
    // `init_cfg` (weights to download) left out, its `norm_cfg=norm` read from the module-level dict; tiny-unknown's
    // `depth=depth` is no literal: left out rather than built at a guess. tiny_pure names the class itself
    // (`type=TinyBackbone`, imported): 1 x (Linear(4, 4) + BatchNorm1d(4)). `_base_` files first, then the smallest.
    expect(canonical('TinyBackbone')).toEqual([
      ['tiny18', 176, 'configs/_base_/models/tiny18.py'],
      ['tiny_pure', 28, 'configs/tiny/tiny_pure.py'],
      ['tiny_wide_8xb32_in1k', 912, 'configs/tiny/tiny-wide_8xb32-in1k.py'],
    ]);
  });

  it('counts a model whose config names classes its module never imports: their registrations come with it', () => {
    // tiny18: TinyBackbone(depth=2, width=8) 176 + Flat (nn.Identity) 0 + LinearHead(10) over 8 features 90; the
    // registrations live in modules classifier.py never imports, 'Flat' a call no block of the source stands for
    // (resolve/registry-keys.ts).
    expect(canonical('Classifier')[0]).toEqual(['tiny18', 266, 'configs/_base_/models/tiny18.py']);
  });

  it('makes no block of a config file', () => {
    expect([...blocks.values()].filter((b) => b.module.startsWith('configs'))).toEqual([]);
  });
});
