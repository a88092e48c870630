// Reading a source's metadata and requirements files without leaving its root: a path that climbs out (`-r
// ../../etc/passwd`, `/etc/passwd`), a symlink resolving outside, a fifo or device, a file over the size cap or a
// binary one is refused with a reason, never read. A symlink that stays inside the root is followed (a
// `requirements.txt` → `requirements/base.txt` link is common and harmless).
import { realpathSync, statSync } from 'node:fs';
import { posix, sep } from 'node:path';
import { NnblocksError } from '../../contract/diagnostics.ts';
import { readUpstreamText } from '../read-upstream.ts';

export type RootedText = { ok: true; text: string; real: string } | { ok: false; missing: boolean; reason: string };

/** A file name relative to the root, or why the reference cannot be one. */
export type RootedPath = { ok: true; rel: string } | { ok: false; reason: string };

export class RootedFiles {
  private readonly realRoot: string;

  constructor(
    root: string,
    private readonly maxBytes: number,
  ) {
    try {
      this.realRoot = realpathSync(root);
      if (!statSync(this.realRoot).isDirectory()) throw new Error('not a folder');
    } catch (err) {
      // The caller's mistake, not upstream's: a failed source has no checkout to read.
      throw new NnblocksError(
        `cannot read declared requirements: ${root} is not a folder (${(err as Error).message})`,
        'sources',
        "pass the root of a fetched source (a source whose status is 'failed' has none)",
      );
    }
  }

  /**
   * `path` as written in a file in folder `fromDir` (posix, relative to the root), made relative to the root.
   * Only the text is looked at here; where symlinks lead is checked when the file is read.
   */
  locate(fromDir: string, path: string): RootedPath {
    if (!path || path.includes('\0')) return { ok: false, reason: 'an empty or malformed path' };
    if (posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return { ok: false, reason: 'an absolute path' };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return { ok: false, reason: 'a URL (nothing is downloaded)' };
    const rel = posix.normalize(posix.join(fromDir || '.', path));
    if (rel === '..' || rel.startsWith('../')) return { ok: false, reason: 'a path outside the source' };
    if (rel === '.') return { ok: false, reason: 'the source folder itself' };
    return { ok: true, rel };
  }

  /** The text of a file relative to the root, or why it was not read. */
  read(rel: string): RootedText {
    let real: string;
    try {
      real = realpathSync(this.realRoot + sep + rel);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      return { ok: false, missing, reason: missing ? 'no such file' : (err as Error).message };
    }
    if (real !== this.realRoot && !real.startsWith(this.realRoot + sep))
      return { ok: false, missing: false, reason: `a symlink to ${real.slice(0, 200)}, outside the source` };
    let size: number;
    try {
      const st = statSync(real);
      if (!st.isFile()) return { ok: false, missing: false, reason: 'not a regular file' };
      size = st.size;
    } catch (err) {
      return { ok: false, missing: false, reason: (err as Error).message };
    }
    // Refused before reading anything: a 50 MB "requirements file" is no requirements file.
    if (size > this.maxBytes)
      return { ok: false, missing: false, reason: `${size} bytes, over the ${this.maxBytes}-byte cap` };
    // The real path has no symlink left; readUpstreamText opens it O_NOFOLLOW and reads at most maxBytes.
    const got = readUpstreamText(real, this.maxBytes);
    if (!got.ok) return { ok: false, missing: false, reason: got.detail };
    if (got.truncated) return { ok: false, missing: false, reason: `over the ${this.maxBytes}-byte cap` };
    if (got.text.includes('\0')) return { ok: false, missing: false, reason: 'a binary file (it holds NUL bytes)' };
    // A byte-order mark (Windows editors write one) is no part of the first requirement's name, as for pip.
    return { ok: true, text: got.text.replace(/^\uFEFF/, ''), real };
  }
}
