// Failure causes as the NN-RAG paper groups them, end to end: a small package whose blocks fail the ways the paper
// counts (compiled ops, a name made at run time, the repository's registry and config files) and the ways it does
// not (a distribution not installed, a block the harness cannot build, a forward that raises), built by the real
// pipeline and validated in the sandbox; stats.json groups each by the first rule of contract/cause-groups.ts that
// fires on its published record, beside the paper's counts. Then real upstream code: yolov5's models, which read
// their yaml configuration, from its local mirror (pinned as the paper corpus pins it; skipped where absent).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { causeFacts } from '../../pipeline/catalog/figures.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { causeRule } from '../../pipeline/contract/cause-groups.ts';
import type { StatsFile } from '../../pipeline/contract/stats.ts';
import { writeConfig } from '../helpers/run.ts';
import { skipBecause } from '../helpers/skip.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

const TREE = {
  'pkg/__init__.py': '',
  'pkg/blocks.py': py`
    import torch
    import torch.nn as nn
    from ._C import deform_conv

    # Made at run time: no statement binds Act, so resolve can't, and the assembled module lacks it.
    globals()['Act'] = nn.ReLU

    MODELS = {}

    # Registered under a key that is not its class name: nothing tells resolve which class a config's type means.
    def register(name):
        def put(cls):
            MODELS[name] = cls
            return cls
        return put

    def build_layer(cfg):
        if cfg['type'] not in MODELS:
            raise KeyError(f"{cfg['type']} is not in the model registry")
        return MODELS[cfg['type']]()

    @register('conv')
    class Conv(nn.Module):
        def forward(self, x):
            return x

    class Fine(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return self.fc(x)

    class Deform(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return deform_conv(self.fc(x))

    class Dynamic(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.act = Act()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return self.act(self.fc(x))

    class Neck(nn.Module):
        def __init__(self, layer=dict(type='conv')):
            super().__init__()
            self.layer = build_layer(layer)
        def forward(self, x):
            return self.layer(x)

    class FromYaml(nn.Module):
        def __init__(self, cfg='tiny.yaml'):
            super().__init__()
            with open(cfg) as f:
                self.width = len(f.read())
            self.fc = nn.Linear(8, 8)
        def forward(self, x):
            return self.fc(x)

    class Raises(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            raise RuntimeError('this block always fails')
  `,
  // Read at import (its decorator): the import stays as it is and fails there. One only forward read would be
  // guarded, and the block blocked when forward uses it (docs/resolve.md, "Imports only function bodies read").
  'pkg/blocked.py': py`
    import torch.nn as nn
    import nnb_not_installed_anywhere

    @nnb_not_installed_anywhere.register
    class NeedsIt(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return nnb_not_installed_anywhere.f(self.fc(x))
  `,
};

describe('failure causes grouped as the paper groups them, in a build', () => {
  let out: string;
  const specs = () =>
    readdirSync(join(out, 'blocks')).map((f) => JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec);
  const spec = (name: string) => specs().find((s) => s.name === name)!;
  const stats = () => JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')) as StatsFile;

  beforeAll(async () => {
    const config = writeConfig([{ id: 'fx', kind: 'path', path: gitRepo(TREE).dir }]);
    out = tempDir('nnb-causes-');
    const err: string[] = [];
    const io = () => ({ ...quiet(), out: (t: string) => err.push(t), err: (t: string) => err.push(t) });
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], io), err.join('\n')).toBe(0);
  }, 240_000);

  it('puts each block that did not pass in the group its record calls for', () => {
    expect(checkCatalog(out).errors).toEqual([]);
    // What decides Dynamic: resolve found no statement binding Act, and the build failed on that very name.
    expect(spec('Dynamic').diagnostics.map((d) => [d.code, d.message])).toContainEqual([
      'unresolved-name',
      "cannot resolve 'Act': no binding of 'Act' in pkg.blocks",
    ]);
    expect(spec('Dynamic').validation!.reason!.message).toBe("name 'Act' is not defined");
    const ruleOf = (name: string) => {
      const facts = causeFacts(spec(name));
      return facts ? causeRule(facts).id : 'passed';
    };
    expect(
      Object.fromEntries(
        ['Fine', 'Deform', 'Dynamic', 'Neck', 'FromYaml', 'Raises', 'NeedsIt'].map((n) => [n, ruleOf(n)]),
      ),
    ).toEqual({
      Fine: 'passed',
      Deform: 'native-extension',
      Dynamic: 'dynamic-name',
      Neck: 'registry',
      FromYaml: 'config-file',
      Raises: 'after-import',
      NeedsIt: 'blocked',
    });
  });

  it('counts them in stats.json beside the paper, one row per group, shares of all blocks', () => {
    const s = stats();
    const rows = s.causeGroups!;
    const row = (g: string) => rows.find((r) => r.group === g)!;
    expect(rows.map((r) => r.group)).toEqual([
      'native-ops',
      'dependencies',
      'metaprogramming',
      'repository-utilities',
      'not-installed',
      'harness',
      'sandbox',
      'import-other',
      'after-import',
    ]);
    const notPassed = specs().filter((x) => x.validation && x.validation.status !== 'passed').length;
    expect(rows.reduce((a, r) => a + r.count, 0)).toBe(notPassed);
    // Only Deform's closure carries `from ._C import deform_conv`: the blocks beside it import fine.
    expect(row('native-ops')).toMatchObject({
      count: 1,
      importFailed: 1,
      byRule: [{ rule: 'native-extension', count: 1 }],
    });
    expect(row('native-ops').paper).toEqual({ count: 87, share: 0.0675 });
    expect(row('metaprogramming').byRule).toEqual([{ rule: 'dynamic-name', count: 1 }]);
    expect(row('repository-utilities').byRule).toEqual([
      { rule: 'config-file', count: 1 },
      { rule: 'registry', count: 1 },
    ]);
    expect(row('not-installed')).toMatchObject({ count: 1, importFailed: 1, paper: null });
    for (const r of rows) expect(r.share).toBe(Math.round((r.count / s.blocks) * 1e4) / 1e4);
    expect(s.paper).toEqual({ blocks: 1289, failures: 348, importOk: 941, others: { repositories: 12, blocks: 335 } });
  });
});

/** Where the bare mirrors are (the paper bench's), and yolov5's commit in content/corpus.paper.json. */
const MIRRORS = process.env.NNBLOCKS_MIRRORS ?? '/work/.mirror';
const YOLOV5 = { mirror: 'ultralytics+yolov5', ref: '5081342f04fb287fc2e5f2b5a4e06752b7937b1c' };

describe('failure causes on real upstream code', () => {
  it("groups yolov5's models, which read yolov5s.yaml when built, as the repository's configuration", async (ctx: TestContext) => {
    const repo = join(MIRRORS, YOLOV5.mirror, 'repo');
    if (!existsSync(repo)) skipBecause(ctx, `no mirror at ${repo}`);
    const config = writeConfig([
      {
        id: 'yolov5',
        kind: 'git',
        url: `file://${repo}`,
        repository: 'https://github.com/ultralytics/yolov5',
        ref: YOLOV5.ref,
        include: ['models/**/*.py', 'utils/**/*.py'],
        symbols: ['DetectionModel', 'SegmentationModel'],
      },
    ]);
    const out = tempDir('nnb-causes-yolov5-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    const stats = JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8')) as StatsFile;
    const blocks = readdirSync(join(out, 'blocks')).map(
      (f) => JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec,
    );
    // The harness found no other arguments; what stopped them is the config file the default names.
    for (const b of blocks) {
      expect(b.validation!.reason!.message, b.name).toMatch(/No such file or directory: 'yolov5s(-seg)?\.yaml'/);
      expect(causeRule(causeFacts(b)!).id, b.name).toBe('config-file');
    }
    expect(stats.causeGroups!.find((r) => r.group === 'repository-utilities')).toMatchObject({
      count: 2,
      importFailed: 0,
      byRule: [{ rule: 'config-file', count: 2 }],
      paper: { count: 139, share: 0.1078 },
    });
  }, 600_000);
});
