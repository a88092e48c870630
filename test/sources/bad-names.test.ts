// File names no Python module can have (a newline, `-`, a leading digit, a dot, not NFKC...) are recorded in the
// source's skipped[] with the reason, never silently dropped; everything else is listed, indexed and discovered.
// docs/index.md, "Which files are indexed".
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { discoverBlocks } from '../../pipeline/discover/discover.ts';
import { indexSources } from '../../pipeline/index/index.ts';
import { Store } from '../../pipeline/index/store.ts';
import { Program } from '../../pipeline/resolve/program.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

const BLOCK = (name: string) => py`
  import torch.nn as nn
  class ${name}(nn.Module):
      def forward(self, x):
          return x
`;

async function build(root: string) {
  const c = resolveConfig(
    { name: 't', cacheDir: tempDir('nnb-cache-'), sources: [{ id: 'fx', kind: 'path', path: root }] },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
  const { snapshots } = await fetchSources(c, quietContext());
  const store = new Store(join(tempDir('nnb-db-'), 'index.sqlite'));
  const index = await indexSources(snapshots, store, quietContext(), { threads: 1 });
  const blocks = discoverBlocks(new Program(index.modules, snapshots)).blocks;
  store.close();
  return { snapshot: snapshots[0], index, blocks };
}

describe('file names that cannot be Python modules', () => {
  it('a newline in a file name is recorded in skipped[] with its reason; the rest proceeds', async () => {
    const root = writeTree({
      'pkg/__init__.py': '',
      'pkg/good.py': BLOCK('Good'),
      'pkg/a\nb.py': BLOCK('Newline'),
    });
    const { snapshot, index, blocks } = await build(root);
    expect(snapshot.skipped).toEqual([
      { path: 'pkg/a\nb.py', reason: 'bad-name', detail: 'the file name contains a control character (U+000A)' },
    ]);
    expect(snapshot.files.map((f) => f.path)).toEqual(['pkg/__init__.py', 'pkg/good.py']);
    expect(index.modules.map((m) => m.module)).toEqual(['pkg', 'pkg.good']);
    expect(blocks.map((b) => b.id)).toEqual(['fx:pkg.good.Good']);
  });

  it('every other kind of impossible module name is recorded too, with what is wrong with it', async () => {
    const root = writeTree({
      'pkg/__init__.py': '',
      'pkg/my-mod.py': BLOCK('Dash'),
      'pkg/2d.py': BLOCK('Digit'),
      'pkg/x.y.py': BLOCK('Dotted'),
      'pkg/ﬁx.py': BLOCK('Ligature'),
      'pkg/tab\there.py': BLOCK('Tab'),
      'pkg/model.py\n': BLOCK('Trailing'),
      'pkg/esc\u001b[2J.py': BLOCK('Escape'),
    });
    mkdirSync(join(root, 'pkg', 'evil\ndir'));
    writeFileSync(join(root, 'pkg', 'evil\ndir', 'm.py'), BLOCK('InBadFolder'));
    const { snapshot, blocks } = await build(root);
    const reasons = Object.fromEntries(snapshot.skipped.map((s) => [s.path, `${s.reason}: ${s.detail}`]));
    expect(reasons).toEqual({
      'pkg/2d.py': 'bad-name: the file name starts with a digit',
      'pkg/esc\u001b[2J.py': 'bad-name: the file name contains a control character (U+001B)',
      'pkg/evil\ndir': 'bad-name: the folder name contains a control character (U+000A)',
      'pkg/model.py\n': `bad-name: the file name has "\\n" after '.py'`,
      'pkg/my-mod.py': "bad-name: the file name is not a Python identifier ('-')",
      'pkg/tab\there.py': 'bad-name: the file name contains a control character (U+0009)',
      'pkg/x.y.py': "bad-name: the file name contains '.', which Python reads as a package separator",
      'pkg/ﬁx.py': "bad-name: the file name is not in NFKC form: Python would look for 'fix'",
    });
    expect(snapshot.files.map((f) => f.path)).toEqual(['pkg/__init__.py']);
    expect(blocks).toEqual([]);
  });

  it('a folder below the import root that is not an identifier: indexed, with a no-module-name diagnostic', async () => {
    const root = writeTree({ 'pkg/__init__.py': '', 'pkg/my-layers/conv.py': BLOCK('Conv'), 'pkg/ok.py': BLOCK('Ok') });
    const { index, blocks } = await build(root);
    expect(index.diagnostics.filter((d) => d.code === 'no-module-name')).toEqual([
      expect.objectContaining({
        path: 'pkg/my-layers/conv.py',
        severity: 'info',
        message: expect.stringContaining("the folder 'my-layers' is not a Python identifier ('-')"),
      }),
    ]);
    expect(blocks.map((b) => b.id)).toEqual(['fx:pkg.ok.Ok']);
  });
});

describe('config files (source `configs`, docs/config.md "Config files")', () => {
  it('lists a config file whatever its name, outside the discovery scope, marked config', async () => {
    // `resnet50_8xb32-coslr_in1k.py` is no module name, but it is read, not imported; a class in a config file
    // is no block even when `include` (default `**/*.py`) covers it.
    const root = writeTree({
      'pkg/__init__.py': '',
      'pkg/good.py': BLOCK('Good'),
      'configs/resnet/resnet50_8xb32-coslr_in1k.py': "model = dict(type='ResNet', depth=50)\n",
      'configs/_base_/models/net.py': BLOCK('NotABlock'),
      'other/my-script.py': 'x = 1\n',
    });
    const { snapshot, index, blocks } = await build(root);
    expect(snapshot.files.filter((f) => f.config)).toEqual([
      { path: 'configs/_base_/models/net.py', size: expect.any(Number), discover: false, config: true },
      { path: 'configs/resnet/resnet50_8xb32-coslr_in1k.py', size: expect.any(Number), discover: false, config: true },
    ]);
    expect(snapshot.skipped.map((s) => s.path)).toEqual(['other/my-script.py']);
    expect(index.modules.filter((m) => m.config).map((m) => [m.path, m.module])).toEqual([
      ['configs/_base_/models/net.py', 'configs._base_.models.net'],
      ['configs/resnet/resnet50_8xb32-coslr_in1k.py', null],
    ]);
    expect(blocks.map((b) => b.name)).toEqual(['Good']);
  });
});
