// A fingerprint of the code that computes something a cache keeps: the source files of the named folders (their
// names and text) plus any extra facts (a native grammar's version). Any edit to that code re-keys the cache, with
// no version number to forget. Run from the bundle, each module's `import.meta.url` still names its source file
// (bin/bundle.mjs), so the folders are read as in a checkout.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const memo = new Map<string, string>();

/** SHA-256 over the `.ts`, `.mjs`, `.js` and `.json` files directly in `dirs` (sorted) and `extra`, memoized. */
export function codeVersion(dirs: string[], extra: string[] = []): string {
  const memoKey = JSON.stringify([dirs, extra]);
  const known = memo.get(memoKey);
  if (known) return known;
  const hash = createHash('sha256');
  for (const [i, dir] of dirs.entries()) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)
      .filter((x) => /\.(ts|mjs|js|json)$/.test(x))
      .sort()) {
      hash
        .update(`${i}/${f}\0`)
        .update(readFileSync(join(dir, f)))
        .update('\0');
    }
  }
  for (const x of extra) hash.update(`extra\0${x}\0`);
  const version = hash.digest('hex');
  memo.set(memoKey, version);
  return version;
}
