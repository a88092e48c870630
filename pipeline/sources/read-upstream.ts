// Reading a small file from an upstream tree (a license for publication, a checkout's HEAD or index): never through
// a symlink, only a regular file, at most a fixed number of bytes. A `LICENSE` → `/proc/self/environ` link would
// publish our environment; → `/proc/self/pagemap` or a fifo would eat memory or hang. See docs/sources.md
// ("Hostile sources").
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';

/** What the sources stage reads of any one upstream file: the rest is ignored, never loaded. */
export const MAX_UPSTREAM_TEXT_BYTES = 256 * 1024;

type Refused = { ok: false; reason: 'symlink' | 'not-regular' | 'unreadable'; detail: string };

export type UpstreamText = { ok: true; text: string; truncated: boolean } | Refused;

export type UpstreamBytes = { ok: true; bytes: Buffer; truncated: boolean } | Refused;

export function readUpstreamText(path: string, maxBytes = MAX_UPSTREAM_TEXT_BYTES): UpstreamText {
  const read = readUpstreamBytes(path, maxBytes);
  return read.ok ? { ok: true, text: read.bytes.toString('utf8'), truncated: read.truncated } : read;
}

/** The first `maxBytes` of a regular file; memory grows with what is read (a large cap costs nothing up front). */
export function readUpstreamBytes(path: string, maxBytes: number): UpstreamBytes {
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
    // One byte more than maxBytes tells a file of exactly maxBytes from a longer one.
    const chunks: Buffer[] = [];
    let got = 0;
    while (got <= maxBytes) {
      const chunk = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - got));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      got += n;
    }
    const all = Buffer.concat(chunks);
    return { ok: true, bytes: all.subarray(0, Math.min(got, maxBytes)), truncated: got > maxBytes };
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
