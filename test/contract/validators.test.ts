// Catalog validators kept as generated code between processes: the same verdicts as compiling, a new file when a
// schema changes, and a torn file compiled again rather than trusted.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_SCHEMAS, COMMON_SCHEMA } from '../../pipeline/contract/files.ts';
import { compiledValidators } from '../../pipeline/contract/validators.ts';
import { tempDir } from '../helpers/tree.ts';

const OPTIONS = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true };
const SCHEMAS = { sources: CATALOG_SCHEMAS.sources, clusters: CATALOG_SCHEMAS.clusters };

describe('compiled catalog validators', () => {
  it('writes the code once and gives the same verdicts from it', () => {
    const code = tempDir('nnb-schema-code-');
    const fresh = compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS, code);
    expect(readdirSync(code)).toHaveLength(1);
    const kept = compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS, code);
    for (const value of [{ formatVersion: 2, sources: [] }, { sources: 'no' }, {}]) {
      expect(kept.get('sources')!(value)).toBe(fresh.get('sources')!(value));
    }
    expect(kept.get('sources')!({ sources: 'no' })).toBe(false);
  });

  it('compiles again when a schema changed: a new file, never the old code', () => {
    const code = tempDir('nnb-schema-code-');
    compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS, code);
    const clusters = { ...SCHEMAS.clusters, minProperties: 0 };
    compiledValidators(COMMON_SCHEMA, { ...SCHEMAS, clusters }, OPTIONS, code);
    expect(readdirSync(code)).toHaveLength(2);
  });

  it('compiles again over a torn file', () => {
    const code = tempDir('nnb-schema-code-');
    compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS, code);
    const [name] = readdirSync(code);
    writeFileSync(join(code, name), 'module.exports = {');
    const again = compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS, code);
    expect(again.get('sources')!({ sources: 'no' })).toBe(false);
    expect(readFileSync(join(code, name), 'utf8').length).toBeGreaterThan(100);
  });

  it('compiles in memory when given no folder to keep code in', () => {
    const v = compiledValidators(COMMON_SCHEMA, SCHEMAS, OPTIONS);
    expect(v.get('clusters')!({ formatVersion: 2, clusters: [] })).toBe(true);
  });
});
