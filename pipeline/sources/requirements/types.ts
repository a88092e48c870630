// Records of the declared-requirements reader (pipeline/sources/requirements.ts): what one source says a user must
// install to import and run its modules, read as data from its metadata and requirements files.
import type { Diagnostic, Span } from '../../contract/diagnostics.ts';

/** One distribution a source declares, after markers were evaluated; one record per (normalised) name. */
export interface DeclaredRequirement {
  /** PEP 503-normalised distribution name: `pyyaml`, `opencv-python`. */
  name: string;
  /** The first declaration as written, without pip options or comments: `numpy>=1.20`, `regex; python_version<"3"`. */
  spec: string;
  /** The file it came from, posix, relative to the source root: `requirements/runtime.txt`, `setup.py`. */
  from: string;
  /** 1-based line of the declaration in `from`, when known (pyproject.toml values carry none). */
  line?: number;
  /** Extras asked for by any declaration, normalised and sorted. */
  extras?: string[];
  /**
   * Every declaration's version clauses joined (pip installs a version meeting all of them): `>=1.20,<2`. Clauses
   * equal as PEP 440 versions are kept once (`>=3.3` and `>=3.3.0`). Absent when no declaration constrains it.
   */
  specifier?: string;
  /** A marker we could not evaluate (`platform_release >= "5"`): the requirement is kept and its marker recorded. */
  marker?: string;
  /** Later declarations of the same name (another file, or twice in one), as written. */
  also?: { spec: string; from: string; line?: number }[];
}

export interface DeclaredRequirementsOptions {
  /**
   * Requirements files to read (posix, relative to the root) instead of the conventional ones (`requirements.txt`,
   * `requirements/runtime.txt`, `requirements/requirements.txt`); the package metadata is read either way.
   */
  files?: string[];
  /** The Python version markers are evaluated for: `3.11` (default) or `3.11.4`. */
  python?: string;
  /** Files larger than this are refused, not read (default 1 MiB). */
  maxFileBytes?: number;
}

export interface DeclaredRequirements {
  requirements: DeclaredRequirement[];
  /** pip can install the checkout from its top: a setup.py, or a pyproject.toml with [project] or [build-system]. */
  installable: boolean;
  diagnostics: Diagnostic[];
}

/** Where a declaration or a file reference sits: a file relative to the root, and the span in it when known. */
export interface Origin {
  file: string;
  span?: Span;
}

/**
 * What the per-format readers (pyproject, setup.cfg, setup.py, requirements files) hand their findings to: the one
 * reader that owns the root, the files already read, the markers' environment and the diagnostics.
 */
export interface RequirementSink {
  /** A PEP 508 string a metadata field declares. */
  declare(spec: string, at: Origin): void;
  /** A requirements file a metadata field names (relative to the root): read whatever its name says. */
  namedFile(path: string, at: Origin): void;
  /** A metadata file's text (pyproject.toml, setup.cfg, setup.py), or undefined when absent or refused. */
  metadataText(path: string): string | undefined;
  report(d: Omit<Diagnostic, 'stage'>): void;
}
