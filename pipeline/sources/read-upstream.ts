// Reading a small text file from an upstream tree for publication (a license): never through a symlink, only a
// regular file, at most a fixed number of bytes. A `LICENSE` → `/proc/self/environ` link would publish our
// environment; → `/proc/self/pagemap` or a fifo would eat memory or hang. See docs/sources.md ("Hostile sources").
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';

/** What the sources stage reads of any one upstream file: the rest is ignored, never loaded. */
export const MAX_UPSTREAM_TEXT_BYTES = 256 * 1024;

export type UpstreamText =
  | { ok: true; text: string; truncated: boolean }
  | { ok: false; reason: 'symlink' | 'not-regular' | 'unreadable'; detail: string };

export function readUpstreamText(path: string, maxBytes = MAX_UPSTREAM_TEXT_BYTES): UpstreamText {
  let fd: number;
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return { ok: false, reason: 'symlink', detail: `a symlink to ${linkTarget(path)}` };
    if (!st.isFile()) return { ok: false, reason: 'not-regular', detail: 'a folder, fifo, socket or device' };
    // O_NOFOLLOW: a symlink swapped in after the lstat fails here; O_NONBLOCK: a fifo swapped in never blocks open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    return { ok: false, reason: 'unreadable', detail: (err as Error).message };
  }
  try {
    if (!fstatSync(fd).isFile()) return { ok: false, reason: 'not-regular', detail: 'not a regular file when opened' };
    const buf = Buffer.alloc(maxBytes + 1); // one byte more tells a file of exactly maxBytes from a longer one
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
      if (got === buf.length) break;
    }
    const truncated = got > maxBytes;
    return { ok: true, text: buf.subarray(0, Math.min(got, maxBytes)).toString('utf8'), truncated };
  } catch (err) {
    return { ok: false, reason: 'unreadable', detail: (err as Error).message };
  } finally {
    closeSync(fd);
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path).slice(0, 200);
  } catch {
    return '?';
  }
}
