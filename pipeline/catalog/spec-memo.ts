// What the spec stage reads from upstream text, kept between runs: a class's structure reading (a parse of its
// module and a walk of its class) and the paper ids its text names (a parse for its docstring). Both are functions
// of text and of this stage's code alone; on a warm run of the paper's corpus they were 12 of its 17 seconds.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KeyValueStore } from '../dedup/cache.ts';
import { sha256 } from '../index/hash.ts';
import { codeVersion } from '../util/code-version.ts';
import { grammarVersions } from '../util/tree-sitter.ts';

/** This stage's code (pipeline/catalog/ and its structure readers) and the grammar that parses for it. */
function specVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return codeVersion([here, join(here, 'structure')], grammarVersions());
}

/** A memo of JSON values in a keyed store; without a store every value is computed. */
export class SpecMemo {
  private readonly version = specVersion();

  constructor(private readonly store?: KeyValueStore) {}

  /** The value of `compute` for `key` (a kind and the text or blob it is a function of). */
  get<T>(key: string[], compute: () => T): T {
    if (!this.store) return compute();
    const k = sha256(JSON.stringify([this.version, ...key]));
    const kept = this.store.get(k);
    if (kept !== undefined) return JSON.parse(kept) as T;
    const value = compute();
    this.store.put(k, JSON.stringify(value));
    return value;
  }
}
