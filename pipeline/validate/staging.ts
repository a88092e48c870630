// The host side of what a sandbox sees: one staging folder per validation run with a read-only copy of the runner
// and one inbox per worker, into which the block being run, and only it, is placed. Blocks never see the cache,
// the project, other sources or other blocks' modules: only the inbox is bound, and it holds one block at a time.
// Everything is world-readable on purpose: when nnblocks runs as root the sandbox runs as uid 65534.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { seccompFds } from './sandbox.ts';
import type { ValidateItem } from './types.ts';

export interface Staging {
  dir: string;
  /** The runner's copy (runner.py and nnblocks_runner/). */
  runnerDir: string;
  /** A fresh empty inbox for one worker. */
  inbox(): string;
  /** fds a new sandbox reads at start (the seccomp program). */
  extraFds(): number[];
  remove(): void;
}

/** Makes everything under `path` readable (and folders traversable) by every uid, whatever the umask was. */
function openUp(path: string): void {
  const st = statSync(path);
  chmodSync(path, st.isDirectory() ? 0o755 : 0o644);
  if (st.isDirectory()) for (const name of readdirSync(path)) openUp(join(path, name));
}

export function createStaging(runnerSource: string): Staging {
  const dir = mkdtempSync(join(tmpdir(), 'nnblocks-sandbox-'));
  const runnerDir = join(dir, 'runner');
  cpSync(runnerSource, runnerDir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  openUp(dir);
  let inboxes = 0;
  return {
    dir,
    runnerDir,
    inbox: () => {
      const inbox = join(dir, `inbox-${++inboxes}`);
      mkdirSync(inbox);
      chmodSync(inbox, 0o755);
      return inbox;
    },
    extraFds: () => seccompFds(dir),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The file a block's module is, under its import root: `pkg/mod.py` or `pkg/mod/__init__.py`. */
function moduleFile(item: ValidateItem): string | null {
  const rel = item.module.split('.').join('/');
  for (const cand of [`${rel}.py`, `${rel}/__init__.py`]) if (existsSync(join(item.importRoot, cand))) return cand;
  return null;
}

/**
 * Puts `item`'s module alone into a new folder `inbox/<seq>` (parent packages as plain folders, which Python
 * imports as namespace packages) and returns that folder; `release` removes it. A module that isn't there gives
 * an empty folder: the runner reports it as not found.
 */
export function placeBlock(inbox: string, seq: number, item: ValidateItem): { root: string; release: () => void } {
  const root = join(inbox, String(seq));
  mkdirSync(root);
  const rel = moduleFile(item);
  if (rel) {
    mkdirSync(join(root, dirname(rel)), { recursive: true });
    cpSync(join(item.importRoot, rel), join(root, rel));
  }
  openUp(root);
  return { root, release: () => rmSync(root, { recursive: true, force: true }) };
}
