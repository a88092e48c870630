// The stage context: what every stage receives besides its input — a logger, a progress factory and the run's
// diagnostics sink. It sits below every stage (and the CLI) so that stages never import from `cli/`: the CLI
// makes a context that draws on a terminal, tests and library callers use `quietContext()`.
// See docs/architecture.md ("The stage contract").
import type { Diagnostic } from './diagnostics.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** A logger that drops everything: for tests and library use. */
export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };

export interface Progress {
  /** Advance by `n` items (default 1). */
  tick(n?: number): void;
  /** Set the absolute count. */
  set(done: number): void;
  /** Finish the phase; prints a summary line (not in JSON mode). */
  done(summary?: string): void;
}

/** Starts a long phase: `label` names it (`parse`, `validate`), `total` is the item count for rate and ETA. */
export type ProgressFactory = (label: string, total: number) => Progress;

export const noProgress: ProgressFactory = () => ({ tick() {}, set() {}, done() {} });

/**
 * Where a run's diagnostics gather, in the order stages report them. Stages return their own diagnostics in
 * their typed results (data a test can assert on); the orchestrator adds each result's list here, and the CLI
 * prints and counts the whole.
 */
export interface DiagnosticSink {
  add(...diagnostics: Diagnostic[]): void;
  readonly all: readonly Diagnostic[];
}

export function diagnosticSink(): DiagnosticSink {
  const list: Diagnostic[] = [];
  return {
    add: (...d) => {
      for (const x of d) list.push(x);
    },
    get all() {
      return list;
    },
  };
}

export interface StageContext {
  log: Logger;
  progress: ProgressFactory;
  diagnostics: DiagnosticSink;
}

/** A context that prints nothing: tests, benchmarks and library callers. */
export function quietContext(): StageContext {
  return { log: silentLogger, progress: noProgress, diagnostics: diagnosticSink() };
}
