// Diagnostics as data: problems in upstream code or infrastructure that a stage records instead of throwing.

/** A byte range plus 1-based line range inside one file. Nothing tree-sitter-shaped crosses a stage boundary. */
export interface Span {
  startByte: number;
  endByte: number;
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
}

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  /** Stable machine code, kebab-case, e.g. `syntax-error`, `source-unreachable`, `unresolved-name`. */
  code: string;
  severity: Severity;
  /** Stage that recorded it: sources, parse, index, discover, resolve, assemble, validate, dedup, spec. */
  stage: string;
  message: string;
  /** What the user can do about it. */
  hint?: string;
  /** Source id, when the problem belongs to one source. */
  source?: string;
  /** Path relative to the source root. */
  path?: string;
  span?: Span;
}

/**
 * Thrown when a run cannot go on for a reason the user can fix: a bad config or option, a missing or unusable input
 * or output (no catalog to read, an unwritable `--out`), a tool that does not load. It carries the stage and a hint
 * that says what to do; the CLI prints both and exits 2. Problems in upstream code are never thrown (they are
 * diagnostics), and our own bugs throw anything but this, so the CLI reports them as internal errors (exit 70).
 */
export class NnblocksError extends Error {
  constructor(
    message: string,
    readonly stage: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'NnblocksError';
  }
}
