// The host side of what a sandbox sees: one staging folder per validation run with a read-only copy of the runner
// and one inbox per worker, into which the block being run, and only it, is placed. Blocks never see the cache,
// the project, other sources or other blocks' modules: only the inbox is bound, and it holds one block at a time.
// Everything is world-readable on purpose: when nnblocks runs as root the sandbox runs as uid 65534.
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { seccompFds } from '../sandbox/bwrap.ts';
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
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return; // a link to an installed library: its target's modes are its own
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
export function placeBlock(
  inbox: string,
  seq: number,
  item: ValidateItem,
  nativeLibraries: readonly string[] = [],
): { root: string; release: () => void } {
  const root = join(inbox, String(seq));
  mkdirSync(root);
  const rel = moduleFile(item);
  if (rel) {
    mkdirSync(join(root, dirname(rel)), { recursive: true });
    cpSync(join(item.importRoot, rel), join(root, rel));
    // Inlined loaders find a compiled library beside their module (torchvision's `_get_extension_path('_C')`):
    // the installed one, by link, where the block's module now is (docs/validate.md, "Compiled ops").
    for (const lib of nativeLibraries) symlinkSync(lib, join(root, dirname(rel), basename(lib)));
  }
  openUp(root);
  return { root, release: () => rmSync(root, { recursive: true, force: true }) };
}
