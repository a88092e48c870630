// `npm run schemas`: writes the published JSON Schemas under schemas/ from their one definition in
// pipeline/contract/ (SCHEMA_FILES). The files are generated, never edited: test/contract/schema-files.test.ts
// fails when a committed file differs from what this writes. `--check` only says which files differ.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';
import { SCHEMA_FILES } from '../pipeline/contract/files.ts';

export const SCHEMAS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');

/** Keywords first that say what a schema is, last the ones that hold other schemas; the rest as written. */
const FIRST = ['$schema', '$id', 'title', 'description', 'type', 'additionalProperties', 'required'];
const LAST = ['properties', 'items', 'definitions'];
/** Keywords whose value maps names (property names, definition names) to schemas: their order is kept. */
const SCHEMA_MAPS = new Set(['properties', 'definitions', 'dependencies', 'patternProperties']);

/** A schema with its keywords in a reading order (JSON Schema gives key order no meaning). */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const rank = (k: string) =>
    FIRST.includes(k) ? FIRST.indexOf(k) - FIRST.length : LAST.includes(k) ? 1 + LAST.indexOf(k) : 0;
  entries.sort(([a], [b]) => rank(a) - rank(b));
  return Object.fromEntries(
    entries.map(([k, v]) => [
      k,
      SCHEMA_MAPS.has(k) && typeof v === 'object' && v !== null && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, tidy(s)]))
        : tidy(v),
    ]),
  );
}

/** Every schema file's text, by its path under schemas/, as the repository's formatter writes JSON. */
export async function renderSchemas(): Promise<Map<string, string>> {
  const options = (await prettier.resolveConfig(join(SCHEMAS_DIR, 'x.json'))) ?? {};
  const out = new Map<string, string>();
  for (const [path, schema] of Object.entries(SCHEMA_FILES)) {
    out.set(path, await prettier.format(JSON.stringify(tidy(schema), null, 2), { ...options, parser: 'json' }));
  }
  return out;
}

async function main(check: boolean): Promise<number> {
  const stale: string[] = [];
  for (const [path, text] of await renderSchemas()) {
    const file = join(SCHEMAS_DIR, path);
    let old: string | undefined;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      old = undefined;
    }
    if (old === text) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }
  const verb = check ? 'differ from their definitions (run `npm run schemas`)' : 'written';
  console.log(stale.length ? `schemas/: ${stale.join(', ')} ${verb}` : 'schemas/: up to date');
  return check && stale.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.includes('--check'));
}
