// A whole `nnblocks build` over an installed distribution whose metadata is hostile: top_level.txt entries that
// overlap (`ovl`, `ovl/sub`, a repeat) crashed the index with exit 70, and a `;` in the Project-URL taken as the
// repository failed the catalog's schema check (exit 1, no site). Both are now warnings; the build goes on.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import type { Diagnostic } from '../../pipeline/contract/diagnostics.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { writeConfig } from '../helpers/run.ts';
import { py, tempDir } from '../helpers/tree.ts';
import { distInfo, venvWith } from '../helpers/venv.ts';
import { catalogFiles } from './catalog-files.ts';

let catalog: string;
let exit: number;
let diagnostics: Diagnostic[];

beforeAll(async () => {
  const block = py`
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self, dim=4):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return self.fc(x)
  `;
  const { python } = venvWith(() => ({
    // Overlapping entries: every file of ovl/sub listed twice, a UNIQUE constraint in the index.
    ...distInfo('overlapping', 'ovl\novl/sub\novl.sub\novl\n', ['ovl/__init__.py']),
    'ovl/__init__.py': '',
    'ovl/sub/__init__.py': '',
    'ovl/sub/blocks.py': block,
    // A repository URL with `;`: the SWHID's `origin=` qualifier would end there.
    ...distInfo(
      'badurl',
      'urlpkg\n',
      ['urlpkg/__init__.py'],
      ['Project-URL: Source, https://github.com/owner/repo;origin=https://evil.example;path=/x'],
    ),
    'urlpkg/__init__.py': '',
    'urlpkg/blocks.py': block,
  }));
  const config = writeConfig(
    [
      { id: 'ovl', kind: 'python', distribution: 'overlapping' },
      { id: 'url', kind: 'python', distribution: 'badurl' },
    ],
    { python },
  );
  catalog = tempDir('nnb-meta-cat-');
  let out = '';
  const io = () => ({ out: (t: string) => void (out += t), err: () => {}, isTTY: false, ci: true, json: true });
  exit = await runCli(['build', '--config', config, '--out', catalog, '--json', '--no-validate'], io);
  diagnostics = out ? (JSON.parse(out) as { diagnostics: Diagnostic[] }).diagnostics : []; // none on a crash
}, 240_000);

describe('a build over a distribution with hostile metadata', () => {
  it('exits 0 with a schema-valid catalog holding the block once', () => {
    expect(exit).toBe(0);
    expect(checkCatalog(catalog).errors).toEqual([]);
    expect([...catalogFiles(catalog).keys()].filter((f) => f.startsWith('blocks/'))).toEqual([
      'blocks/ovl.ovl.sub.blocks.block.json',
      'blocks/url.urlpkg.blocks.block.json',
    ]);
  });

  it('records the overlap and the refused URL as warnings; the URL reaches no catalog file', () => {
    expect(diagnostics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'top-level-overlap', severity: 'warning', source: 'ovl' }),
        expect.objectContaining({ code: 'repository-url-refused', severity: 'warning', source: 'url' }),
      ]),
    );
    for (const [name, text] of catalogFiles(catalog)) expect(text.includes('evil.example'), name).toBe(false);
  });
});
