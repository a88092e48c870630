// Catalog validators kept as generated code between processes: the same verdicts as compiling, a new file when a
// schema changes, and a torn file compiled again rather than trusted.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compiledValidators } from '../../pipeline/catalog/schema-code.ts';
import { tempDir } from '../helpers/tree.ts';

const SCHEMAS = new URL('../../schemas/catalog/', import.meta.url).pathname;
const OPTIONS = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true };
const NAMES = ['sources', 'clusters'] as const;

function copySchemas(): string {
  const dir = tempDir('nnb-schemas-');
  cpSync(SCHEMAS, dir, { recursive: true });
  return dir;
}

describe('compiled catalog validators', () => {
  it('writes the code once and gives the same verdicts from it', () => {
    const schemas = copySchemas();
    const code = tempDir('nnb-schema-code-');
    const fresh = compiledValidators(schemas, NAMES, OPTIONS, code);
    expect(readdirSync(code)).toHaveLength(1);
    const kept = compiledValidators(schemas, NAMES, OPTIONS, code);
    for (const value of [{ formatVersion: 2, sources: [] }, { sources: 'no' }, {}]) {
      expect(kept.get('sources')!(value)).toBe(fresh.get('sources')!(value));
    }
    expect(kept.get('sources')!({ sources: 'no' })).toBe(false);
  });

  it('compiles again when a schema changed: a new file, never the old code', () => {
    const schemas = copySchemas();
    const code = tempDir('nnb-schema-code-');
    compiledValidators(schemas, NAMES, OPTIONS, code);
    const file = join(schemas, 'clusters.schema.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"type": "object"', '"type": "object", "minProperties": 0'));
    compiledValidators(schemas, NAMES, OPTIONS, code);
    expect(readdirSync(code)).toHaveLength(2);
  });

  it('compiles again over a torn file', () => {
    const schemas = copySchemas();
    const code = tempDir('nnb-schema-code-');
    compiledValidators(schemas, NAMES, OPTIONS, code);
    const [name] = readdirSync(code);
    writeFileSync(join(code, name), 'module.exports = {');
    const again = compiledValidators(schemas, NAMES, OPTIONS, code);
    expect(again.get('sources')!({ sources: 'no' })).toBe(false);
    expect(readFileSync(join(code, name), 'utf8').length).toBeGreaterThan(100);
  });
});
