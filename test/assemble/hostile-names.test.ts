// Upstream names that used to break extraction: a 300-character class name (ENAMETOOLONG at the file write) and
// PEP 3131 names (`ünï_cödé.py`, `class Ｂlock`). Each block is discovered, extracted to a file name within
// NAME_MAX, and imported in a real `python3 -I`. docs/index.md, "Long and non-ASCII names".
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractBlocks } from '../../pipeline/assemble/extract.ts';
import { indexTree } from '../helpers/corpus.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { py, tempDir } from '../helpers/tree.ts';

const NN = 'import torch\nimport torch.nn as nn\n';
const block = (name: string, body = 'return x') => py`
  class ${name}(nn.Module):
      def forward(self, x):
          ${body}
`;

describe('long and non-ASCII names end to end', () => {
  it('a 300-character class name extracts to a hashed file name within NAME_MAX and imports', async () => {
    const long = 'Block' + 'x'.repeat(295);
    const twin = 'Block' + 'x'.repeat(294) + 'y'; // same first 299 characters
    const { program, discovered } = await indexTree({
      'pkg/__init__.py': '',
      'pkg/long.py': NN + block(long) + block(twin),
    });
    expect(discovered.blocks.map((b) => b.name)).toEqual([long, twin]);
    const outDir = tempDir('nnb-out-');
    const out = extractBlocks(program, discovered.blocks, { outDir, labels: new Map() });
    expect(out.flatMap((o) => o.diagnostics)).toEqual([]);
    const files = out.map((o) => basename(o.entry.file));
    for (const f of files) expect(Buffer.byteLength(f)).toBeLessThanOrEqual(255);
    expect(new Set(files).size).toBe(2);
    expect(out[0].entry.module).toMatch(/^fx__pkg_long__Blockx+_[0-9a-f]{12}$/);
    // Deterministic, whatever else is extracted with it: the second block alone gets the same name.
    const alone = extractBlocks(program, [discovered.blocks[1]], { outDir, labels: new Map(), write: false });
    expect(alone[0].entry.module).toBe(out[1].entry.module);
    const results = importInFreshPython(
      out.map((o) => o.entry),
      ['pkg'],
      { build: true },
    );
    expect([...results.values()]).toEqual(['ok:0', 'ok:0']);
  });

  it('a non-ASCII module ünï_cödé.py: discovered, extracted to an ASCII file name, importable', async () => {
    const { program, discovered, index } = await indexTree({
      'pkg/__init__.py': '',
      'pkg/ünï_cödé.py':
        NN +
        py`
        def dóuble(x):
            return x * 2
      ` +
        block('Blöck', 'return dóuble(x)'),
      'pkg/user.py': NN + 'from .ünï_cödé import dóuble\n' + block('User', 'return dóuble(x)'),
    });
    expect(index.modules.map((m) => m.module)).toEqual(['pkg', 'pkg.user', 'pkg.ünï_cödé']);
    expect(discovered.blocks.map((b) => b.id).sort()).toEqual(['fx:pkg.user.User', 'fx:pkg.ünï_cödé.Blöck']);
    const out = extractBlocks(program, discovered.blocks, { outDir: tempDir('nnb-out-'), labels: new Map() });
    expect(out.flatMap((o) => o.diagnostics)).toEqual([]);
    for (const o of out) expect(o.entry.module).toMatch(/^[A-Za-z0-9_]+$/);
    expect(out.map((o) => o.entry.className).sort()).toEqual(['Blöck', 'User']);
    for (const o of out) expect(o.code).toContain('def dóuble(x):');
    const results = importInFreshPython(
      out.map((o) => ({ ...o.entry, run: 'assert Block()(torch.ones(1)).item() == 2' })),
      ['pkg'],
    );
    expect([...results.values()]).toEqual(['ok', 'ok']);
  });

  it('identifiers are NFKC-normalised as Python does: `class Ｂlock` is Block, `ﬁx` is fix', async () => {
    const { program, discovered } = await indexTree({
      'pkg/__init__.py': '',
      'pkg/m.py': NN + 'def ﬁx(x):\n    return x + 1\n' + block('Ｂlock', 'return fix(x)'),
    });
    expect(discovered.blocks.map((b) => b.name)).toEqual(['Block']);
    const [out] = extractBlocks(program, discovered.blocks, { outDir: tempDir('nnb-out-'), labels: new Map() });
    expect(out.entry.className).toBe('Block');
    expect(out.code).toContain('def ﬁx(x):');
    const results = importInFreshPython([{ ...out.entry, run: 'assert Block()(torch.ones(1)).item() == 2' }], ['pkg']);
    expect([...results.values()]).toEqual(['ok']);
  });

  it('a clash between two definitions named `hélpé` is renamed at the definition too', async () => {
    const { program, discovered } = await indexTree({
      'pkg/__init__.py': '',
      'pkg/ä.py': 'def hélpé(x):\n    return x + 1\n',
      'pkg/ö.py': 'def hélpé(x):\n    return x * 10\n',
      'pkg/m.py': NN + 'from .ä import hélpé\nfrom . import ö\n' + block('Blöck', 'return hélpé(x) + ö.hélpé(x)'),
    });
    const [out] = extractBlocks(program, discovered.blocks, { outDir: tempDir('nnb-out-'), labels: new Map() });
    expect(out.diagnostics.map((d) => d.code)).not.toContain('rename-failed');
    const results = importInFreshPython([{ ...out.entry, run: 'assert Block()(torch.ones(1)).item() == 12' }], ['pkg']);
    expect([...results.values()]).toEqual(['ok']);
  });
});
