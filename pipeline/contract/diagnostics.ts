// Diagnostics as data: problems in upstream code or infrastructure that a stage records instead of throwing.

import type { DiagnosticRecord } from './common.ts';

/**
 * A problem a stage recorded: stored with the results and shown on the site (`code`, `severity`, `stage`,
 * `message`, `hint`, `source`, `path`, `span`). The record is the catalog's `diagnostic` definition (common.ts).
 */
export type Diagnostic = DiagnosticRecord;

/** A byte range plus 1-based inclusive line range inside one file. Nothing tree-sitter-shaped crosses a stage boundary. */
export type Span = NonNullable<Diagnostic['span']>;

/** Thrown only for our own bugs or broken infrastructure; carries the stage and a hint that says what to do. */
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
