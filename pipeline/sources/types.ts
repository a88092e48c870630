// Records of the sources stage: one snapshot per configured source, JSON-serializable, read by every later stage.
import type { DeclaredRequirement } from './requirements/types.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { Priority, SourceKind } from '../config/types.ts';

/**
 * fetched: first copy made in this cache; updated: the ref moved (or the config changed what is checked out);
 * unchanged: the copy already matched; stale: upstream unreachable, an earlier copy is reused;
 * failed: no usable copy (files is empty), or the ref does not exist upstream (an earlier copy is never used then).
 */
export type SourceStatus = 'fetched' | 'updated' | 'unchanged' | 'stale' | 'failed';

/** `bad-name`: no Python module can have this name (`a\nb.py`, `my-mod.py`); see docs/index.md. */
export type SkipReason = 'too-large' | 'symlink-escape' | 'symlink-dir' | 'not-regular' | 'unreadable' | 'bad-name';

export interface SourceFileEntry {
  /** Posix path relative to `root`. */
  path: string;
  size: number;
  /**
   * `false`: in the resolution scope only — outside include/exclude, indexed so that blocks can use its code, but
   * no block is discovered in it. Absent: in the discovery scope (docs/config.md, "Two scopes").
   */
  discover?: false;
  /** A config file (source `configs`): read for configurations of registered classes, never a block's code. */
  config?: true;
}

/** A setup.py `package_dir` entry: the package `package` is installed from `folder` (posix, relative to the root). */
export interface PackageDir {
  package: string;
  folder: string;
}

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  /** e.g. the size, or where the symlink points. */
  detail?: string;
}

export interface LicenseInfo {
  /** SPDX id, or null when nothing identifies the license. */
  spdx: string | null;
  /** How it was decided, e.g. `LICENSE file (BSD-3-Clause text)`, `package metadata License: BSD (mapped)`. */
  method: string;
  /** The license file, relative to `root` or absolute when outside it. */
  file?: string;
}

export interface SourceSnapshot {
  id: string;
  kind: SourceKind;
  priority: Priority;
  domain?: string;
  status: SourceStatus;
  /** Absolute folder the file paths are relative to. */
  root: string;
  /** Absolute sys.path entry for this source's modules. */
  importRoot: string;
  /**
   * Python files of the resolution scope (every one below the import root, plus the discovery scope), after the
   * size cap, symlink, non-regular and name checks; those outside include/exclude are marked `discover: false`.
   * Sorted by path.
   */
  files: SourceFileEntry[];
  skipped: SkippedFile[];
  /** git: clone URL and configured ref. */
  url?: string;
  ref?: string;
  /** git and git-checkout path sources: the checked-out commit. */
  commit?: string;
  /** The commit's committer date, ISO 8601 with offset (`git show -s --format=%cI`): a citation's year and date. */
  commitDate?: string;
  /** path sources in a git checkout: uncommitted changes under the folder. */
  dirty?: boolean;
  /**
   * Folders and files below `root` (relative, posix) holding git data rather than the source: a checkout's `.git`
   * (folder or file) and, when a `.git` file points inside the root, the git dir it names. Never shown to upstream
   * code: a `.git` holds the origin URL, credentials included, and config that names programs. Absent when none.
   */
  hidden?: string[];
  /** python: distribution name and installed version. */
  distribution?: string;
  version?: string;
  /** Upstream repository URL (https, no `.git`). */
  repository?: string;
  /** python: the upstream tag matching the installed version. */
  tag?: string;
  /** python: the upstream release's date as the config states it (`2022-12`); installed files record none. */
  releaseDate?: string;
  license: LicenseInfo;
  symbols?: string[];
  /**
   * git and path: the requirements the source declares for running its code (requirements files, setup.py /
   * setup.cfg install_requires, pyproject dependencies), read as data; the validation environment installs them.
   */
  requirements?: DeclaredRequirement[];
  /**
   * git and path: whether pip can install the checkout from its top (a setup.py, or a pyproject.toml with
   * [project] or [build-system]); the block page offers `pip install git+...` only then.
   */
  installable?: boolean;
  /**
   * git and path: the packages setup.py installs from folders of other names (`package_dir`, read statically):
   * the files below each folder are indexed under the package's name (docs/index.md). Absent when none.
   */
  packageDirs?: PackageDir[];
  diagnostics: Diagnostic[];
}

export interface SourcesResult {
  snapshots: SourceSnapshot[];
  /** Every snapshot's diagnostics plus stage-level ones. */
  diagnostics: Diagnostic[];
}
