// Which git metadata of a shown source tree gets masked, on fixture trees: each case a tree, the masks expected
// (relative to the tree, `dir` or `file`) and why. A real sandbox reading them is tried in walls.test.ts.
import { symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitMaskArgs } from '../../pipeline/sandbox/git-masks.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

const EMPTY = { file: '/staging/empty', dir: '/staging/empty.d' };

/** The masks for `tree` as `relative path -> dir|file`, with `visible` the bound folders (the tree by default). */
function masks(tree: string, visible = [tree]): Record<string, string> {
  const args = gitMaskArgs([tree], visible, EMPTY);
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 3)
    out[relative(tree, args[i + 2])] = args[i + 1] === EMPTY.dir ? 'dir' : 'file';
  return out;
}

describe('git masks', () => {
  it("masks a checkout's .git folder as a whole (its config, modules and worktrees with it)", () => {
    const tree = writeTree({
      'pkg/mod.py': '',
      '.git/config': '[http]\n\textraheader = AUTHORIZATION: basic x\n',
      '.git/modules/sub/config': '',
      // A submodule's gitfile points into the masked .git: the gitfile is masked, its target is covered already.
      'sub/.git': 'gitdir: ../.git/modules/sub\n',
    });
    expect(masks(tree)).toEqual({ '.git': 'dir', 'sub/.git': 'file' });
  });

  it('masks nested repositories anywhere in the tree', () => {
    const tree = writeTree({ 'vendored/a/.git/config': '', 'vendored/b/c/.git/config': '', 'pkg/.gitignore': '' });
    expect(masks(tree)).toEqual({ 'vendored/a/.git': 'dir', 'vendored/b/c/.git': 'dir' });
  });

  it("masks a gitfile's target and its worktree's common dir when the sandbox shows them", () => {
    const tree = tempDir();
    writeTree(
      {
        // `git worktree add`: the worktree's gitdir names the main repository's git dir in `commondir`.
        '.store/main/config': '',
        '.store/main/worktrees/wt/commondir': '../..\n',
        'wt/.git': `gitdir: ${join(tree, '.store/main/worktrees/wt')}\n`,
      },
      tree,
    );
    expect(masks(tree)).toEqual({
      '.store/main': 'dir',
      'wt/.git': 'file',
    });
  });

  it('leaves a target outside every bound folder alone: the sandbox does not show it', () => {
    const elsewhere = writeTree({ config: '' });
    const tree = writeTree({ '.git': `gitdir: ${elsewhere}\n`, 'pkg/mod.py': '' });
    expect(masks(tree)).toEqual({ '.git': 'file' });
  });

  it("masks the target of a .git symlink, not the link, and doesn't walk through linked folders", () => {
    const tree = writeTree({ 'real-git/config': '', 'elsewhere/.git/config': '' });
    symlinkSync('real-git', join(tree, '.git'));
    symlinkSync('elsewhere', join(tree, 'alias'));
    expect(masks(tree)).toEqual({ 'real-git': 'dir', 'elsewhere/.git': 'dir' });
  });

  it('finds nothing to mask in a tree without git metadata', () => {
    expect(gitMaskArgs([writeTree({ 'pkg/mod.py': '' })], ['/'], EMPTY)).toEqual([]);
  });
});
