// A folder as a hint or a summary line shows it for the user to type: relative to the working folder when inside
// it, quoted for a POSIX shell when it needs quoting.
import { relative } from 'node:path';

export function shellWord(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  const word = rel && !rel.startsWith('..') ? rel : path;
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
