// Diagnostics as data: problems in upstream code or infrastructure that a stage records instead of throwing.

import type { DiagnosticRecord } from './common.ts';

/**
 * A problem a stage recorded: stored with the results and shown on the site (`code`, `severity`, `stage`,
 * `message`, `hint`, `source`, `path`, `span`). The record is the catalog's `diagnostic` definition (common.ts).
 */
export type Diagnostic = DiagnosticRecord;

/**
 * A byte range plus 1-based inclusive line range inside one file. Nothing tree-sitter-shaped crosses a stage boundary.
 */
export type Span = NonNullable<Diagnostic['span']>;

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
