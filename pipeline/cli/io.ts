// Terminal I/O for the CLI: where output goes, whether we are on a TTY or in CI, and a Logger (pipeline/context.ts)
// that writes there.
import type { Logger } from '../contract/context.ts';
import { neutralise, printable } from './printable.ts';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Interactive terminal on stderr: progress redraws in place. */
  isTTY: boolean;
  /** In CI (`CI` set): progress stays quiet, plain lines only. */
  ci: boolean;
  /** `--json`: human output goes to stderr only when needed; the machine result is the only stdout. */
  json: boolean;
}

export function processIO(json = false): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: Boolean(process.stderr.isTTY),
    ci: Boolean(process.env.CI),
    json,
  };
}

/**
 * Logger writing to stderr; quiet in JSON mode except warnings. A stage's message may quote upstream (a requirement
 * spec, a path): each is one printable line.
 */
export function makeLogger(io: CliIO, verbose = false): Logger {
  return {
    info: (m) => {
      if (!io.json) io.err(`${printable(m)}\n`);
    },
    warn: (m) => io.err(`warning: ${printable(m)}\n`),
    debug: (m) => {
      if (verbose) io.err(`debug: ${printable(m)}\n`);
    },
  };
}

/**
 * `io` whose writes never start a line with `::`: a backstop for text a caller forgot to pass through `printable`.
 * Our own output never starts a line with `::`, and no line of a JSON document can, so nothing of ours changes.
 */
export function guardedIO(io: CliIO): CliIO {
  return { ...io, out: (t) => io.out(neutralise(t)), err: (t) => io.err(neutralise(t)) };
}
