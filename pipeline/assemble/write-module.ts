// Writing an assembled module without reading it back. A warm run used to read and compare every module it had
// written before: 767 MB and 6 s of a 62 s warm run of the paper's corpus. Now what was written is noted (the
// text's sha256, the file's size and mtime), and a file whose size and mtime are still the noted ones is taken to
// hold the noted text, as git's index takes a file whose stat is unchanged.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';

/** Where the notes are kept (the assembly cache's store). */
export interface WrittenNotes {
  written(file: string): string | undefined;
  remember(file: string, note: string): void;
}

/**
 * Writes `text()` to `file` unless it holds the text of sha256 `sha` already; an unchanged module is left
 * untouched (its mtime too). `text` is called only when the file is written or compared.
 */
export function writeModule(file: string, sha: string, text: () => string, notes?: WrittenNotes): void {
  const now = notes ? noteOf(file, sha) : undefined;
  if (now !== undefined && notes!.written(file) === now) return;
  const code = text();
  if (!existsSync(file) || readFileSync(file, 'utf8') !== code) writeFileSync(file, code);
  notes?.remember(file, noteOf(file, sha)!);
}

/** sha256, size and mtime of a file as one string; undefined when there is no file. */
function noteOf(file: string, sha: string): string | undefined {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? `${sha} ${st.size} ${st.mtimeMs}` : undefined;
}
