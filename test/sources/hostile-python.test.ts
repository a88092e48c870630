// python sources whose installed metadata is hostile: locating a distribution's packages must never import them
// (a dotted top_level.txt entry made `find_spec` run the parent package's __init__.py on the host).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietContext } from '../../pipeline/contract/context.ts';
import { resolveConfig } from '../../pipeline/config/load.ts';
import { fetchSources } from '../../pipeline/sources/fetch.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';
import { distInfo, venvWith } from '../helpers/venv.ts';

const ctx = quietContext();

function config(python: string, distribution: string, include = ['**/*.py']) {
  return resolveConfig(
    {
      name: 't',
      python,
      cacheDir: tempDir('nnb-cache-'),
      sources: [{ id: 'h', kind: 'python', distribution, include }],
    },
    join(tempDir('nnb-proj-'), 'corpus.json'),
  );
}

describe('hostile installed distributions', () => {
  it('a dotted top_level.txt entry is located on disk: the parent package is never imported', async () => {
    const marker = join(tempDir('nnb-mark-'), 'imported');
    const { python } = venvWith(() => ({
      ...distInfo('hostile', 'evilpkg.sub\n', [
        'evilpkg/__init__.py',
        'evilpkg/sub/__init__.py',
        'evilpkg/sub/blocks.py',
      ]),
      // Runs if anything imports evilpkg — find_spec("evilpkg.sub") does.
      'evilpkg/__init__.py': `open(${JSON.stringify(marker)}, "w").write("ran on the host")\n`,
      'evilpkg/sub/__init__.py': `open(${JSON.stringify(marker)}, "w").write("ran on the host")\n`,
      'evilpkg/sub/blocks.py': py`
        import torch.nn as nn
        class Block(nn.Module):
            def forward(self, x):
                return x
      `,
    }));
    const { snapshots, diagnostics } = await fetchSources(config(python, 'hostile'), ctx);
    expect(existsSync(marker)).toBe(false);
    expect(diagnostics).toEqual([]);
    expect(snapshots[0]).toMatchObject({ status: 'fetched', distribution: 'hostile', version: '1.0' });
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['evilpkg/sub/__init__.py', 'evilpkg/sub/blocks.py']);
  });

  it('a top_level.txt entry that is a path out of site-packages is refused with a diagnostic', async () => {
    const outside = writeTree({ 'stolen/__init__.py': 'SECRET = 1\n' });
    const { python, siteDir } = venvWith(() => ({
      ...distInfo('wanders', 'okpkg\n../../../../../..' + outside + '/stolen\n', ['okpkg/__init__.py']),
      'okpkg/__init__.py': 'A = 1\n',
    }));
    expect(existsSync(join(siteDir, 'okpkg'))).toBe(true);
    const { snapshots, diagnostics } = await fetchSources(config(python, 'wanders'), ctx);
    expect(snapshots[0].status).toBe('fetched');
    expect(snapshots[0].files.map((f) => f.path)).toEqual(['okpkg/__init__.py']);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'top-level-refused', severity: 'warning' })]);
  });

  it('overlapping or repeated top_level.txt entries list each file once, with a diagnostic', async () => {
    const { python } = venvWith(() => ({
      ...distInfo('overlap', 'ovl\novl/sub\novl.sub\novl\nsolo\n', ['ovl/__init__.py', 'ovl/sub/__init__.py']),
      'ovl/__init__.py': '',
      'ovl/sub/__init__.py': '',
      'ovl/sub/m.py': 'A = 1\n',
      'solo.py': 'B = 1\n',
    }));
    const { snapshots, diagnostics } = await fetchSources(config(python, 'overlap'), ctx);
    expect(snapshots[0].status).toBe('fetched');
    expect(snapshots[0].files.map((f) => f.path)).toEqual([
      'ovl/__init__.py',
      'ovl/sub/__init__.py',
      'ovl/sub/m.py',
      'solo.py',
    ]);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'top-level-overlap', severity: 'warning' })]);
    expect(diagnostics[0].message).toContain('ovl/sub');
  });

  it('a Project-URL that is no plain forge URL is never the repository (a `;` broke the catalog schema)', async () => {
    const { python } = venvWith(() => ({
      ...distInfo(
        'urls',
        'urlpkg\n',
        ['urlpkg/__init__.py'],
        [
          'Project-URL: Source, https://github.com/owner/repo;origin=https://evil.example',
          'Project-URL: Code, https://github.com/owner/repo\u001b]8;;x',
          'Home-page: https://github.com/owner/real',
        ],
      ),
      'urlpkg/__init__.py': '',
    }));
    const { snapshots, diagnostics } = await fetchSources(config(python, 'urls'), ctx);
    expect(snapshots[0]).toMatchObject({ status: 'fetched', repository: 'https://github.com/owner/real' });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'repository-url-refused', severity: 'warning' })]);
  });
});
