// Maps a file path under a source's import root to its dotted module name, the way Python's import system would.
import { posix } from 'node:path';
import type { PackageDir } from '../sources/types.ts';
import { moduleNameProblem } from '../util/identifier.ts';

export interface ModuleName {
  /** Dotted module name, e.g. 'torchvision.models.resnet'; a package's `__init__.py` names the package. */
  module: string;
  isPackage: boolean;
}

/**
 * `relToImportRoot` is the file's posix path relative to the import root. Returns null for files Python can't
 * import by name: outside the import root, not `.py`, or with a path part that isn't a PEP 3131 identifier in
 * NFKC form (`my-mod.py`, `2d/conv.py`; `ünï_cödé.py` is fine). Folders without `__init__.py` still count
 * (PEP 420 namespace packages). `why` says what is wrong with a file inside the import root that has no name.
 * See docs/index.md ("Which files are indexed").
 */
export function moduleNameFor(relToImportRoot: string): { name: ModuleName | null; why: string | null } {
  if (relToImportRoot.startsWith('../') || !relToImportRoot.endsWith('.py')) return { name: null, why: null };
  const parts = relToImportRoot.slice(0, -3).split('/');
  const isPackage = parts[parts.length - 1] === '__init__';
  if (isPackage) parts.pop();
  if (parts.length === 0) return { name: null, why: null };
  for (const [i, p] of parts.entries()) {
    const problem = moduleNameProblem(p);
    if (problem) {
      const what =
        i === parts.length - 1 && !isPackage ? 'the file name' : `the folder '${JSON.stringify(p).slice(1, -1)}'`;
      return { name: null, why: `${what} ${problem}` };
    }
  }
  return { name: { module: parts.join('.'), isPackage }, why: null };
}

/**
 * The module name of a file of a source (`pathInSource` posix, relative to the source root): below a folder setup.py
 * installs as a package (`package_dir`, the longest that holds it) the package's name and the rest of the path
 * (`projects/PointRend/point_rend/point_features.py` → `detectron2.projects.point_rend.point_features`), else its
 * name under the import root (moduleNameFor).
 */
export function moduleNameInSource(
  snap: { root: string; importRoot: string; packageDirs?: PackageDir[] },
  pathInSource: string,
): { name: ModuleName | null; why: string | null } {
  const dir = (snap.packageDirs ?? [])
    .filter((d) => pathInSource.startsWith(`${d.folder}/`))
    .sort((a, b) => b.folder.length - a.folder.length)[0];
  if (!dir) return moduleNameFor(relativeToImportRoot(snap.root, snap.importRoot, pathInSource));
  const rest = moduleNameFor(pathInSource.slice(dir.folder.length + 1));
  if (rest.why) return rest;
  // `<folder>/__init__.py` is the package itself (moduleNameFor gives no name to a bare `__init__.py`).
  const module = rest.name ? `${dir.package}.${rest.name.module}` : dir.package;
  return { name: { module, isPackage: rest.name?.isPackage ?? true }, why: null };
}

/** Path of a file relative to the import root, given its path relative to the source root and both roots. */
export function relativeToImportRoot(sourceRoot: string, importRoot: string, pathInSource: string): string {
  return posix.relative(toPosix(importRoot), posix.join(toPosix(sourceRoot), pathInSource));
}

function toPosix(p: string): string {
  return p.split('\\').join('/');
}
