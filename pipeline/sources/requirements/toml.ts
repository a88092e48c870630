// pyproject.toml as data, through smol-toml (a small, maintained TOML 1.0 parser): one function, a plain object
// out, and a message with its line instead of an exception for a document that is not TOML.
import { parse, TomlError } from 'smol-toml';

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export type TomlResult = { ok: true; value: TomlTable } | { ok: false; error: string; line: number };

/** Parses a TOML document; a message and a 1-based line when it is not one. */
export function parseToml(text: string): TomlResult {
  try {
    return { ok: true, value: parse(text) as unknown as TomlTable };
  } catch (err) {
    if (err instanceof TomlError) return { ok: false, error: err.message.split('\n')[0], line: err.line };
    throw err;
  }
}
