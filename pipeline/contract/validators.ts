// The catalog's load-time check: the contract's schemas compiled by Ajv, for the build (check-catalog.ts, the change
// feed) and the site (src/lib/catalog.ts), so every reader of a catalog file holds it to the same schema it was
// written against. Compiling takes about 0.3 s, a third of a warm build's whole run through the CLI: the build keeps
// the code Ajv generates ("standalone" output) under `build/schemas/` (git-ignored, beside the CLI bundle) and loads
// it in milliseconds after. That file is named by a hash of every schema and of Ajv's version and options, so an
// edited schema never meets stale code; where it can't be written (a read-only install), each process compiles.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import { CATALOG_SCHEMAS, COMMON_SCHEMA, type CatalogSchemaName } from './files.ts';
import type { TSchema } from './schema.ts';

// strictRequired off: `if/then` and `anyOf` name properties declared in the parent schema, which strict mode flags.
const OPTIONS: Options = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true };

/** A schema as plain JSON: what the published file holds, without TypeBox's symbol-keyed markers. */
const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as { $id: string };

/**
 * Validators for `schemas` (each with an `$id`, all able to refer to `common`). With `codeDir`, loaded from the code
 * kept there when compiled before, else compiled and written there; without, compiled in this process.
 */
export function compiledValidators<N extends string>(
  common: TSchema,
  schemas: Record<N, TSchema>,
  options: Options,
  codeDir?: string,
): Map<N, ValidateFunction> {
  const names = Object.keys(schemas) as N[];
  const json = [common, ...names.map((n) => schemas[n])].map(plain);
  const require = createRequire(import.meta.url);
  const file = codeDir ? join(codeDir, `catalog-${hashOf(require, options, names, json)}.cjs`) : undefined;
  if (file && existsSync(file)) {
    try {
      const mod = require(file) as Record<string, ValidateFunction>;
      if (names.every((n) => typeof mod[n] === 'function')) return new Map(names.map((n) => [n, mod[n]]));
    } catch {
      // a torn or foreign file: compiled again below, and replaced
    }
  }
  const ajv = new Ajv({ ...options, code: { source: file !== undefined } });
  ajv.addSchema(json[0]);
  const out = new Map<N, ValidateFunction>();
  names.forEach((n, i) => out.set(n, ajv.compile(json[i + 1])));
  if (file) keep(file, standalone.default(ajv, Object.fromEntries(names.map((n, i) => [n, json[i + 1].$id]))));
  return out;
}

function hashOf(require: NodeJS.Require, options: Options, names: string[], json: object[]): string {
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;
  return createHash('sha256')
    .update(JSON.stringify([ajvVersion, options, names, json]))
    .digest('hex')
    .slice(0, 24);
}

/** Writes `code` whole or not at all: a concurrent reader never sees half of it; read-only keeps what it compiled. */
function keep(file: string, code: string): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  } catch {
    // read-only: this process keeps what it compiled
  }
}

let validators: Map<CatalogSchemaName, ValidateFunction> | undefined;

/**
 * The catalog's validators, compiled once per process. `codeDir`: where the build keeps Ajv's generated code between
 * processes (the first call decides); the site compiles in memory, once per site build.
 */
export function catalogValidators(codeDir?: string): Map<CatalogSchemaName, ValidateFunction> {
  validators ??= compiledValidators(COMMON_SCHEMA, CATALOG_SCHEMAS, OPTIONS, codeDir);
  return validators;
}

/**
 * Checks one parsed value against one catalog schema; returns messages prefixed with `label`, empty when it holds.
 * `codeDir` as for catalogValidators.
 */
export function checkAgainstSchema(name: CatalogSchemaName, value: unknown, label: string, codeDir?: string): string[] {
  const validate = catalogValidators(codeDir).get(name)!;
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${label}: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
