// A lock file per source cache folder so two concurrent runs never fetch into the same checkout; a lock left by a
// dead process on this host (pid no longer running) is taken over.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

interface LockInfo {
  pid: number;
  host: string;
  at: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class LockTimeout extends Error {}

/** Runs `fn` holding `<dir>/.lock`; waits (polling) while another live process holds it. */
export async function withLock<T>(dir: string, fn: () => Promise<T>, timeoutMs = 15 * 60_000): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, '.lock');
  const me: LockInfo = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(path, JSON.stringify(me), { flag: 'wx' }); // O_EXCL: exactly one creator wins
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: LockInfo | null;
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    } catch {
      holder = null; // being written right now, or just removed: look again
    }
    if (holder && holder.host === me.host && holder.pid !== process.pid && !alive(holder.pid)) {
      // Re-read right before removing so we only delete the stale lock we judged, not a fresh one a third
      // process wrote in between (the remaining window is a few microseconds).
      try {
        if (readFileSync(path, 'utf8') === JSON.stringify(holder)) unlinkSync(path);
      } catch {
        /* someone else removed it first */
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new LockTimeout(
        `${path} is held by pid ${holder?.pid ?? '?'} on ${holder?.host ?? '?'} since ${holder?.at ?? '?'}`,
      );
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {
      /* already gone */
    }
  }
}
