// Every module emitted for the resolver cases imports in a fresh isolated Python with the fixture package blocked,
// and runs the case's `run` code where it has one.
import { describe, expect, it } from 'vitest';
import { extractBlocks, writeManifest } from '../../pipeline/assemble/extract.ts';
import { indexTree } from '../helpers/corpus.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tree.ts';
import { cases } from '../resolve/cases.ts';

describe('emitted modules import without their repository', () => {
  it('imports every resolver case block in one fresh python -I', async () => {
    const outDir = tempDir('nnb-out-');
    const entries = [];
    for (const [i, c] of cases.entries()) {
      // A distinct source id per case gives each emitted module a distinct name in the one interpreter.
      const { program, discovered } = await indexTree(c.files, `case${i}`);
      const [module, cls] = c.block.split(':');
      const block = discovered.blocks.find((b) => b.module === module && b.qualname === cls)!;
      const [out] = extractBlocks(program, [block], { outDir, labels: new Map() });
      entries.push({ ...out.entry, module: out.entry.module, case: c.name, run: c.run, expected: c.importError });
    }
    const results = importInFreshPython(entries, ['pkg']);
    // A case whose module needs one the index lacks must fail naming it (not with a relative-import error).
    const failures = entries
      .filter((e) => results.get(e.module) !== (e.expected ?? 'ok'))
      .map((e) => `${e.case}: ${results.get(e.module)}`);
    expect(failures).toEqual([]);
  });

  it('writes a manifest whose entries load with importlib', async () => {
    const c = cases[0];
    const { program, discovered } = await indexTree(c.files);
    const outDir = tempDir('nnb-out-');
    const out = extractBlocks(program, discovered.blocks, { outDir, labels: new Map() });
    const manifest = writeManifest(
      outDir,
      out.map((o) => o.entry),
    );
    expect(manifest.endsWith('manifest.json')).toBe(true);
    const results = importInFreshPython(
      out.map((o) => o.entry),
      ['pkg'],
      { build: true },
    );
    for (const o of out) expect(results.get(o.entry.module)).toMatch(/^ok/);
  });
});
