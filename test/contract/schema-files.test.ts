// The published JSON Schemas under schemas/ are generated from pipeline/contract/ (`npm run schemas`): each committed
// file is exactly what the generator writes, no file there lacks a definition, and every `$id` stays where it was
// published.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchemas, SCHEMAS_DIR } from '../../scripts/schemas.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs) : [relative(SCHEMAS_DIR, abs)];
  });
}

describe('schemas/', () => {
  it('holds exactly the generated files, byte for byte (run `npm run schemas` after changing a definition)', async () => {
    const rendered = await renderSchemas();
    expect(filesUnder(SCHEMAS_DIR).sort()).toEqual([...rendered.keys()].sort());
    for (const [path, text] of rendered) expect(readFileSync(join(SCHEMAS_DIR, path), 'utf8'), path).toBe(text);
  });

  it('keeps every published $id: the address of the file it is in', async () => {
    for (const [path, text] of await renderSchemas()) {
      expect((JSON.parse(text) as { $id: string }).$id).toBe(`https://nnblocks.dev/schemas/${path}`);
    }
  });
});
