// Masks over the git metadata of the source trees a sandbox shows. For fidelity a block's own source tree (its
// original's import root) is bound read-only into the sandbox, and a `path` source's tree is a checkout: its `.git`
// holds what CI keeps there (`extraheader = AUTHORIZATION: basic ...` from actions/checkout, tokens in remote URLs).
// A source's `.git` is never shown: every `.git` under a shown tree is covered by an empty folder or file, and so is
// what a `.git` points to when that is visible too: a gitfile's `gitdir:` (submodules, worktrees, separate git
// dirs) with its worktree's `commondir`, and a `.git` symlink's target. Targets outside every bound folder are not
// in the sandbox anyway. See docs/validate.md ("Sandbox").
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

interface Mask {
  path: string;
  kind: 'file' | 'dir';
}

const under = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * bubblewrap arguments that bind `empty.dir` / `empty.file` over each piece of git metadata found under `trees`;
 * `visible` are all the folders the sandbox binds (a target elsewhere needs no mask). Place them after the binds.
 */
export function gitMaskArgs(trees: string[], visible: string[], empty: { file: string; dir: string }): string[] {
  const masks = new Map<string, Mask>();
  const shown = (p: string) => visible.some((v) => under(p, v));
  const add = (path: string) => {
    try {
      if (!shown(path)) return;
      const st = statSync(path);
      if (st.isDirectory() || st.isFile()) masks.set(path, { path, kind: st.isDirectory() ? 'dir' : 'file' });
    } catch {
      // a dangling target: nothing to show
    }
  };
  for (const tree of trees) walk(resolve(tree), add);
  // A mask inside a masked folder would need a mount point in an empty read-only folder: the outer one covers it.
  const sorted = [...masks.values()].sort((a, b) => a.path.length - b.path.length);
  const kept: Mask[] = [];
  for (const m of sorted) if (!kept.some((k) => k.kind === 'dir' && under(m.path, k.path))) kept.push(m);
  return kept.flatMap((m) => ['--ro-bind', m.kind === 'dir' ? empty.dir : empty.file, m.path]);
}

/** Visits every folder of `dir` (not through symlinks) and reports the git metadata it finds to `add`. */
function walk(dir: string, add: (path: string) => void): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.name === '.git') {
      try {
        found(path, add);
      } catch {
        // removed or unreadable meanwhile: then it is not shown either
      }
      continue; // nothing under a .git folder is source
    }
    if (e.isDirectory()) walk(path, add);
  }
}

/** A `.git` entry: the entry itself, and for a gitfile or a symlink what it points to. */
function found(path: string, add: (path: string) => void): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) {
    try {
      add(realpathSync(path));
    } catch {
      // dangling
    }
    return;
  }
  add(path);
  if (!st.isFile()) return;
  // `gitdir: <path>` (relative to the gitfile's folder); a worktree's git dir names the shared one in `commondir`.
  const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(path, 'utf8').slice(0, 4096))?.[1];
  if (!gitdir) return;
  const target = isAbsolute(gitdir) ? gitdir : resolve(dirname(path), gitdir);
  add(target);
  const common = join(target, 'commondir');
  if (existsSync(common)) {
    const rel = readFileSync(common, 'utf8').trim();
    if (rel) add(isAbsolute(rel) ? rel : resolve(target, rel));
  }
}
