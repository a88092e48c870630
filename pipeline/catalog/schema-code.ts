// Compiled catalog validators, kept between processes. Ajv compiles the catalog schemas in about 0.3 s, a third of
// a warm build's whole run through the CLI; the code it generates (Ajv's "standalone" output) is written once per
// set of schema texts under `build/schemas/` (git-ignored, beside the CLI bundle) and loaded in milliseconds after.
// The file is named by a hash of every schema and of Ajv's version and options, so an edited schema never meets
// stale code; where it can't be written (a read-only install), each process compiles, as before.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';

const require = createRequire(import.meta.url);

/**
 * Validators for the schemas `names` of `schemaDir` (each `<name>.schema.json`, with `$id`), all of them able to
 * refer to `common.schema.json`. Loaded from `codeDir` when compiled before, else compiled and written there.
 */
export function compiledValidators<N extends string>(
  schemaDir: string,
  names: readonly N[],
  options: Options,
  codeDir: string,
): Map<N, ValidateFunction> {
  const texts = ['common', ...names].map((n) => readFileSync(join(schemaDir, `${n}.schema.json`), 'utf8'));
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;
  const hash = createHash('sha256')
    .update(JSON.stringify([ajvVersion, options, names, texts]))
    .digest('hex');
  const file = join(codeDir, `catalog-${hash.slice(0, 24)}.cjs`);
  if (existsSync(file)) {
    try {
      const mod = require(file) as Record<string, ValidateFunction>;
      if (names.every((n) => typeof mod[n] === 'function')) return new Map(names.map((n) => [n, mod[n]]));
    } catch {
      // a torn or foreign file: compiled again below, and replaced
    }
  }
  const ajv = new Ajv({ ...options, code: { source: true } });
  const schemas = texts.map((t) => JSON.parse(t) as { $id: string });
  ajv.addSchema(schemas[0]);
  const out = new Map<N, ValidateFunction>();
  names.forEach((n, i) => out.set(n, ajv.compile(schemas[i + 1])));
  try {
    const code = standalone.default(ajv, Object.fromEntries(names.map((n, i) => [n, schemas[i + 1].$id])));
    mkdirSync(codeDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file); // whole or absent: a concurrent reader never sees half of it
  } catch {
    // read-only: this process keeps what it compiled
  }
  return out;
}
