// The stamp file that marks a finished environment (base or layer): written last, so a folder without a readable
// stamp of the current format is unfinished or made by an older nnblocks, and is made again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The stamp `file` in `dir` when it has `format`; null when absent, unreadable or older. */
export function readStamp<T extends { format: number }>(dir: string, file: string, format: number): T | null {
  try {
    const s = JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
    return s.format === format ? s : null;
  } catch {
    return null;
  }
}
