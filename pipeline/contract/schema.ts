// How the contract states a record: once, as a TypeBox schema, from which the TypeScript type (`Static<>`), the
// published JSON Schema file (`npm run schemas` writes schemas/) and the load-time check (Ajv, compiled once and
// kept: validators.ts) all follow. Nothing here is kept equal to anything else by hand.
//
// Why TypeBox rather than zod or valibot: a TypeBox schema *is* a JSON Schema object, so the files under schemas/
// are the schemas themselves, written out, and the Ajv pipeline the build already runs (standalone code kept
// between processes, `strict` mode, `if`/`then`, `dependencies`, `$ref` across files with published `$id`s)
// validates them unchanged. zod and valibot hold their own schema objects: their JSON Schema is a translation,
// which drops or reshapes what the catalog relies on (`not`/`enum` for reserved words, Unicode property patterns,
// `oneOf`, cross-file `$ref`s), and their validators would be a second engine beside Ajv.
//
// The helpers below write the JSON Schema keywords the published files have always used (`enum`, `const`,
// `oneOf`, `$ref` into `definitions`) where TypeBox's own builders would write another spelling of the same rule
// (`anyOf` of `const`s, inline copies), so a schema file reads as it did when it was written by hand.
import { Type, type Static, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

export { Type, type Static, type TSchema };

/** Extra JSON Schema keywords a schema may carry (`if`/`then`/`else`, `not`, `dependencies`, `uniqueItems`). */
type Options = SchemaOptions & Record<string, unknown>;

/** `{"enum": [...]}`: one of these values. */
export const Enum = <const T extends readonly (string | number)[]>(values: T, options: Options = {}) =>
  Type.Unsafe<T[number]>({ ...options, enum: [...values] });

/** `{"const": v}`: exactly this value. */
export const Const = <const T extends string | number | boolean>(value: T, options: Options = {}) =>
  Type.Unsafe<T>({ ...options, const: value });

/** `{"oneOf": [...]}`: exactly one of these (TypeBox's Union writes `anyOf`). */
export const OneOf = <const T extends TSchema[]>(schemas: [...T], options: Options = {}) =>
  Type.Unsafe<Static<T[number]>>({ ...options, oneOf: schemas });

/** `{"type": [t, "null"], ...}`: a string or integer schema that also takes null. */
export const OrNull = <T extends TSchema & { type: string }>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });

/** A schema whose TypeScript type is stated beside it: recursive shapes, which `Static<>` can't follow by `$ref`. */
export const Typed = <T>(schema: Options) => Type.Unsafe<T>(schema);

/** `$ref`s to the definitions `defs` of one schema file: `at.name()` for each, typed as the definition. */
export type Refs<D extends Record<string, TSchema>> = {
  [K in keyof D]: (options?: Options) => TUnsafe<Static<D[K]>>;
};

/** `$ref`s to `defs` under `prefix`: `#/definitions/` inside the file, `common.schema.json#/definitions/` outside. */
export function refs<D extends Record<string, TSchema>>(prefix: string, defs: D): Refs<D> {
  const out = {} as Record<string, (options?: Options) => TSchema>;
  for (const name of Object.keys(defs)) {
    out[name] = (options = {}) => Type.Unsafe({ ...options, $ref: `${prefix}${name}` });
  }
  return out as Refs<D>;
}

/** Where published schemas live: each file's `$id` is this plus its path under schemas/. */
export const SCHEMA_BASE = 'https://nnblocks.dev/schemas/';

/** A whole schema file: draft-07, its published `$id`, a title and what it describes. */
export function schemaFile<T extends TSchema>(
  path: string,
  head: { title: string; description?: string },
  schema: T,
  definitions?: Record<string, TSchema>,
): T {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${SCHEMA_BASE}${path}`,
    ...head,
    ...schema,
    ...(definitions ? { definitions } : {}),
  };
}
