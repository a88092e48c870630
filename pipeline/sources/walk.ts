// Lists a source's Python files safely: every Python file below the roots (the resolution scope), each marked
// whether include/exclude put it in the discovery scope; a size cap, and no trust in the tree itself — a symlink
// is never followed out of the source root, non-regular files and names no Python module can have are skipped,
// and each skip is recorded. See docs/index.md ("Which files are indexed").
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { folderMayMatch, makePathFilter } from '../util/glob.ts';
import { controlChar, moduleNameProblem } from '../util/identifier.ts';
import type { SkippedFile, SourceFileEntry } from './types.ts';

export interface WalkOptions {
  /** The discovery scope: files outside it are listed too, marked `discover: false`. */
  include: string[];
  exclude: string[];
  maxFileBytes: number;
  /** The configured import root (relative): the folders leading to it are walked whatever their names. */
  importRoot?: string;
  /** Entries below the root to walk (a python distribution's top-level packages); default: the whole root. */
  tops?: string[];
  /** Config files (source `configs`): listed `config: true`, outside the discovery scope, whatever their names. */
  configs?: string[];
  /** Folders setup.py installs under a package name (`package_dir`): walked, and the way to them, whatever their names. */
  packageDirs?: string[];
}

export interface WalkResult {
  files: SourceFileEntry[];
  skipped: SkippedFile[];
}

function isFolder(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

export function walkSource(root: string, opts: WalkOptions): WalkResult {
  const keep = makePathFilter(opts.include, opts.exclude);
  const configs = opts.configs ?? [];
  const isConfig = makePathFilter(configs, []);
  const realRoot = realpathSync(root);
  const files: SourceFileEntry[] = [];
  const skipped: SkippedFile[] = [];
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  // `model.py\n` is meant to look like a Python file: trailing control characters don't hide it from the check.
  const isPy = (rel: string) => rel.replace(/[\p{Cc}\s]+$/u, '').endsWith('.py');
  const toImportRoot = opts.importRoot ? opts.importRoot.split('/') : [];
  const mapped = opts.packageDirs ?? [];
  /**
   * Whether a folder is walked: the discovery scope's folders, and for the resolution scope the folders whose
   * name a package can have. Below `.venv`, `site-packages` or `docs-old` no file has a module name, so no import
   * can reach it: a path source at a project root does not index its virtualenv.
   */
  const walked = (rel: string) => {
    if (folderMayMatch(opts.include, rel) || (configs.length && folderMayMatch(configs, rel))) return true;
    const parts = rel.split('/');
    if (parts.every((p, i) => p === toImportRoot[i])) return true; // on the way to the configured import root
    // On the way to, or inside, a folder setup.py maps to a package (`projects/Panoptic-DeepLab/panoptic_deeplab`).
    if (mapped.some((m) => m === rel || m.startsWith(`${rel}/`) || rel.startsWith(`${m}/`))) return true;
    return moduleNameProblem(parts[parts.length - 1]) === null;
  };

  const addFile = (rel: string, size: number) => {
    // A file Python can't import by its own name (`a\nb.py`, `my-mod.py`, `2d.py`, `x.y.py`) is recorded, never
    // indexed: no module name means no block, and a control character in a path breaks every log that prints it.
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    // A config file is read, not imported: `resnet50_8xb32-coslr_in1k.py` is one (a control character still is not).
    if (isConfig(rel) && base.endsWith('.py') && !controlChar(rel) && size <= opts.maxFileBytes)
      return void files.push({ path: rel, size, discover: false, config: true });
    const problem = base.endsWith('.py')
      ? moduleNameProblem(base.slice(0, -3))
      : `has ${JSON.stringify(base.slice(base.lastIndexOf('.py') + 3))} after '.py'`;
    if (problem) skipped.push({ path: rel, reason: 'bad-name', detail: `the file name ${problem}` });
    else if (size > opts.maxFileBytes)
      skipped.push({ path: rel, reason: 'too-large', detail: `${size} bytes > maxFileBytes ${opts.maxFileBytes}` });
    else files.push(keep(rel) ? { path: rel, size } : { path: rel, size, discover: false });
  };

  const visit = (rel: string) => {
    const abs = join(root, rel);
    let st;
    try {
      // The root itself may be a symlink (a `path` source pointing at a linked folder): that one is followed.
      st = rel === '' ? statSync(abs) : lstatSync(abs);
    } catch {
      return; // a top-level entry that does not exist (e.g. a module listed in top_level.txt but not installed)
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(abs);
      } catch {
        if (isPy(rel)) skipped.push({ path: rel, reason: 'not-regular', detail: 'dangling symlink' });
        return;
      }
      // Escapes are recorded whatever the globs say: they are how a hostile tree would reach outside.
      if (!inside(target)) return void skipped.push({ path: rel, reason: 'symlink-escape', detail: target });
      const tst = statSync(target);
      if (tst.isDirectory()) {
        // Inside-root folder links would list files twice or loop; the real folder is walked anyway.
        if (walked(rel)) skipped.push({ path: rel, reason: 'symlink-dir', detail: target });
      } else if (tst.isFile()) {
        if (isPy(rel)) addFile(rel, tst.size);
      } else if (isPy(rel)) skipped.push({ path: rel, reason: 'not-regular', detail: 'symlink to a special file' });
      return;
    }
    if (st.isDirectory()) {
      if (rel !== '' && !walked(rel)) return;
      let names: string[];
      try {
        names = readdirSync(abs).sort();
      } catch (err) {
        return void skipped.push({ path: rel, reason: 'unreadable', detail: (err as Error).message });
      }
      for (const name of names) {
        if (name === '.git' || name === '__pycache__') continue;
        const child = rel ? `${rel}/${name}` : name;
        const ctrl = controlChar(name);
        // A folder named with a control character is recorded once and not entered (see addFile for files).
        if (ctrl && isFolder(join(root, child)) && folderMayMatch(opts.include, child)) {
          skipped.push({
            path: child,
            reason: 'bad-name',
            detail: `the folder name contains a control character (${ctrl})`,
          });
          continue;
        }
        visit(child);
      }
      return;
    }
    if (!isPy(rel)) return;
    if (st.isFile()) addFile(rel, st.size);
    else skipped.push({ path: rel, reason: 'not-regular', detail: 'fifo, socket or device' });
  };

  for (const top of opts.tops ?? ['']) visit(top);
  // Each path once, whatever `tops` says: overlapping entries (`pkg`, `pkg/sub`) would list files twice, and every
  // later stage keys files by path (python-dist.ts reports the overlap; this keeps any caller safe).
  const once = <T extends { path: string }>(list: T[]) => {
    const seen = new Set<string>();
    return list.filter((x) => !seen.has(x.path) && Boolean(seen.add(x.path)));
  };
  const sorted = once(files).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: sorted, skipped: once(skipped) };
}

/**
 * The sys.path entry, relative to the root: the configured one, else `src` for a src layout (a package under
 * `src/` and none at the top level), else the root itself.
 */
export function detectImportRoot(files: SourceFileEntry[], configured?: string): string {
  if (configured !== undefined) return configured;
  const topPackages = new Set(
    files.filter((f) => /^[^/]+\/__init__\.py$/.test(f.path)).map((f) => f.path.split('/')[0]),
  );
  // A sparse include (`src/transformers/models/bert`) may list no `__init__.py` at all: every file under src/ counts too.
  const srcLayout =
    files.length > 0 &&
    (files.some((f) => /^src\/[^/]+\/__init__\.py$/.test(f.path)) || files.every((f) => f.path.startsWith('src/')));
  return srcLayout && [...topPackages].every((p) => p === 'src') ? 'src' : '';
}
