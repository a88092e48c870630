// Records the index stage hands to discovery, resolution and the rest: one per importable Python file.
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { ModuleFacts } from '../parse/facts.ts';

export interface IndexedModule {
  sourceId: string;
  /** Posix path relative to the source root. */
  path: string;
  absPath: string;
  /** Dotted module name under the source's import root; null when Python can't import the file by name. */
  module: string | null;
  isPackage: boolean;
  /**
   * In the source's discovery scope (include/exclude): blocks are discovered only here. False: indexed so that
   * resolution sees the whole package (docs/config.md, "Two scopes"), never a block of its own.
   */
  discover: boolean;
  /** A config file (source `configs`): usage mining reads its `dict(type=...)` configurations (docs/usage.md). */
  config?: true;
  blob: string;
  sha256: string;
  size: number;
  facts: ModuleFacts;
}

export interface SourceIndexStats {
  id: string;
  /** Files indexed: the resolution scope. */
  files: number;
  /** Of those, files in the discovery scope. */
  discover: number;
  bytes: number;
  parsed: number;
  reused: number;
  diagnostics: number;
}

export interface IndexResult {
  modules: IndexedModule[];
  stats: {
    files: number;
    bytes: number;
    parsed: number;
    reused: number;
    ms: number;
    /** Bytes of all indexed files over the wall time of the step. */
    mbPerSec: number;
    /** Parser threads used (0 when nothing needed parsing, 1 inline, else worker threads). */
    threads: number;
    perSource: SourceIndexStats[];
  };
  diagnostics: Diagnostic[];
}
