// Output folders named on the command line (`build --out`, `--site`, `merge --out`, `changes --out`), checked before
// any work: a file, a file on the way, or a place this user cannot write is a usage error (exit 2) naming the option
// and the fix, not a stack trace after the whole pipeline ran. A missing folder is created, as the write would.
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { NnblocksError } from '../contract/diagnostics.ts';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'a read-only file system',
  ENOTDIR: 'a file on the way',
  ENOENT: 'no such folder can be made there',
  ENOSPC: 'no space left',
};

/**
 * Makes `dir` (and its parents) when missing and proves a file can be written in it; returns it absolute. Throws an
 * NnblocksError for `command` naming `option` otherwise.
 */
export function writableDir(dir: string, option: string, command: string): string {
  const abs = resolve(dir);
  const fail = (why: string): never => {
    throw new NnblocksError(
      `${option} ${abs}: ${why}`,
      command,
      `pass a folder this user can write for ${option} (it is created when missing)`,
    );
  };
  let kind: 'dir' | 'other' | 'none' = 'none';
  try {
    kind = statSync(abs).isDirectory() ? 'dir' : 'other';
  } catch {
    // missing (or unreadable): making it below says which
  }
  if (kind === 'other') fail('is a file, not a folder');
  const probe = join(abs, `.nnblocks-write-test-${process.pid}`);
  try {
    if (kind === 'none') makeDirs(abs);
    closeSync(openSync(probe, 'wx'));
    rmSync(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    fail(`cannot be written (${REASONS[code] ?? (code || (err as Error).message)})`);
  }
  return abs;
}

/**
 * `mkdir -p` one folder at a time: Node's recursive mkdirSync never returns for a path below /proc (it retries the
 * ENOENT the kernel gives there).
 */
function makeDirs(dir: string): void {
  const parent = dirname(dir);
  if (parent !== dir && !existsSync(parent)) makeDirs(parent);
  mkdirSync(dir);
}

/** True when `inner` is `outer` or lies below it. */
export function within(inner: string, outer: string): boolean {
  const rel = relative(resolve(outer), resolve(inner));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}
