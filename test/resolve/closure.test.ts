// The resolver suite: each case closes over one block of an inline package and checks what the closure holds.
import { describe, expect, it } from 'vitest';
import { extractBlocks } from '../../pipeline/assemble/extract.ts';
import { indexTree } from '../helpers/corpus.ts';
import { tempDir } from '../helpers/tree.ts';
import { cases } from './cases.ts';

/** 'module:name' for every name bound by an emitted statement. */
function definedNames(defs: { module: string; name: string }[]): Set<string> {
  const out = new Set<string>();
  for (const d of defs) for (const n of d.name.split(', ')) out.add(`${d.module}:${n}`);
  return out;
}

describe('resolver cases', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  for (const c of cases) {
    it(`${c.name} — ${c.why}`, async () => {
      const { program, discovered } = await indexTree(c.files);
      const [module, cls] = c.block.split(':');
      const block = discovered.blocks.find((b) => b.module === module && b.qualname === cls);
      expect(block, `block ${c.block} discovered`).toBeDefined();
      const [out] = extractBlocks(program, [block!], { outDir: tempDir(), labels: new Map(), write: false });
      const names = definedNames(out.definitions);
      for (const h of c.has ?? []) expect(names, `closure has ${h}\n${out.code}`).toContain(h);
      for (const h of c.hasNot ?? []) expect(names, `closure lacks ${h}\n${out.code}`).not.toContain(h);
      // Header imports are not definitions; check them through the code.
      for (const s of c.code ?? []) expect(out.code).toContain(s);
      for (const s of c.notCode ?? []) expect(out.code).not.toContain(s);
      const at = (c.order ?? []).map((s) => out.code.indexOf(s));
      expect(at, `in this order: ${JSON.stringify(c.order)}\n${out.code}`).toEqual([...at].sort((x, y) => x - y));
      expect(at.includes(-1), `all of ${JSON.stringify(c.order)}`).toBe(false);
      for (const d of c.diagnostics ?? []) expect(out.diagnostics.map((x) => x.code)).toContain(d);
      expect(out.diagnostics.filter((d) => d.code === 'assemble-failed')).toEqual([]);
    });
  }
});
