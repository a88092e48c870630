// Maps a file path under a source's import root to its dotted module name, the way Python's import system would.
import { posix } from 'node:path';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ModuleName {
  /** Dotted module name, e.g. 'torchvision.models.resnet'; a package's `__init__.py` names the package. */
  module: string;
  isPackage: boolean;
}

/**
 * `relToImportRoot` is the file's posix path relative to the import root. Returns null for files Python can't
 * import by name: outside the import root, not `.py`, or with a path part that isn't an identifier (`my-mod.py`).
 * Folders without `__init__.py` still count (PEP 420 namespace packages).
 */
export function moduleNameFor(relToImportRoot: string): ModuleName | null {
  if (relToImportRoot.startsWith('../') || !relToImportRoot.endsWith('.py')) return null;
  const parts = relToImportRoot.slice(0, -3).split('/');
  const isPackage = parts[parts.length - 1] === '__init__';
  if (isPackage) parts.pop();
  if (parts.length === 0 || !parts.every((p) => IDENT.test(p))) return null;
  return { module: parts.join('.'), isPackage };
}

/** Path of a file relative to the import root, given its path relative to the source root and both roots. */
export function relativeToImportRoot(sourceRoot: string, importRoot: string, pathInSource: string): string {
  return posix.relative(toPosix(importRoot), posix.join(toPosix(sourceRoot), pathInSource));
}

function toPosix(p: string): string {
  return p.split('\\').join('/');
}
