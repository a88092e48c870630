// How a hint names nnblocks itself: `npx nnblocks` inside this checkout, where npx runs the checkout's own CLI, and
// `nnblocks` anywhere else, where a bare `npx nnblocks` would ask the npm registry for a package of that name
// (README, "Running it"; docs/tutorial.md runs every command from a folder of its own).
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's root: two folders up from pipeline/util/ (the bundle rewrites import.meta.url to this file's). */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function selfCommand(cwd: string = process.cwd()): string {
  const rel = relative(PACKAGE_ROOT, cwd);
  return rel.startsWith('..') || isAbsolute(rel) ? 'nnblocks' : 'npx nnblocks';
}
