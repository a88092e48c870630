// Indexes an inline file tree through the real index stage (tree-sitter, SQLite) and returns the program and blocks.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { quietContext } from '../../pipeline/contract/context.ts';
import { discoverBlocks } from '../../pipeline/discover/discover.ts';
import { indexSources } from '../../pipeline/index/index.ts';
import { Store } from '../../pipeline/index/store.ts';
import { Program } from '../../pipeline/resolve/program.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';
import { tempDir, writeTree, type Tree } from './tree.ts';

function listPy(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) out.push(...listPy(root, abs));
    else if (name.endsWith('.py')) out.push(relative(root, abs).split('\\').join('/'));
  }
  return out;
}

/** A `path` source snapshot for a folder, as the sources stage would produce it. */
export function folderSnapshot(id: string, root: string, priority: 1 | 2 = 1): SourceSnapshot {
  return {
    id,
    kind: 'path',
    priority,
    status: 'fetched',
    root,
    importRoot: root,
    files: listPy(root).map((path) => ({ path, size: statSync(join(root, path)).size })),
    skipped: [],
    license: { spdx: 'MIT', method: 'test fixture' },
    diagnostics: [],
  } as SourceSnapshot;
}

export async function indexFolders(
  folders: { id: string; root: string; priority?: 1 | 2 }[],
  store = new Store(join(tempDir('nnb-db-'), 'index.sqlite')),
) {
  const snapshots = folders.map((f) => folderSnapshot(f.id, f.root, f.priority ?? 1));
  const index = await indexSources(snapshots, store, quietContext(), { threads: 1 });
  const program = new Program(index.modules, snapshots);
  const discovered = discoverBlocks(program);
  return { store, snapshots, index, program, discovered };
}

export async function indexTree(tree: Tree, id = 'fx') {
  return indexFolders([{ id, root: writeTree(tree) }]);
}
