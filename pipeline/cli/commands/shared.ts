// Helpers shared by the pipeline commands: the common options and opening a run with I/O wired up.
import { userInfo } from 'node:os';
import { Option, type Command } from 'commander';
import { DEVICES } from '../../run/device.ts';
import { openRun, type RunContext } from '../../run/prepare.ts';
import type { CliIO } from '../io.ts';
import type { BlockFailure } from '../../run/merge.ts';
import type { Diagnostic } from '../../contract/diagnostics.ts';
import { printable } from '../printable.ts';
import { terminalContext } from '../terminal.ts';

export const DEFAULT_CONFIG = 'content/corpus.json';

export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'corpus config (JSON)', DEFAULT_CONFIG)
    .option('--json', 'print one JSON document on stdout for machines');
}

/**
 * `--device`, checked here: a value the runner does not know is a usage error naming the ones it does. No default,
 * so that the config's `validate.device` applies when the flag is not given (run/device.ts).
 */
export function deviceOption(): Option {
  return new Option('--device <device>', "where blocks run (default: the config's validate.device, else auto)").choices(
    DEVICES,
  );
}

export function open(io: CliIO, configPath: string): RunContext {
  return openRun(configPath, terminalContext(io));
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2) + '\n');
}

/**
 * Diagnostics summary for humans: counts by code, then the first `limit` errors and the first `limit` warnings in
 * full (severity, code, where, message, hint), each list in the order the stages recorded them.
 */
export function printDiagnostics(io: CliIO, diagnostics: Diagnostic[], limit = 10): void {
  if (diagnostics.length === 0) return;
  const counts = new Map<string, number>();
  for (const d of diagnostics) counts.set(`${d.severity} ${d.code}`, (counts.get(`${d.severity} ${d.code}`) ?? 0) + 1);
  io.err(`diagnostics: ${printable([...counts].map(([k, n]) => `${n} ${k}`).join(', '))}\n`);
  // Messages quote upstream (a syntax error's snippet, a path): every part printable.
  for (const severity of ['error', 'warning'] as const) {
    const all = diagnostics.filter((x) => x.severity === severity);
    for (const d of all.slice(0, limit)) {
      const where = `${d.source ? ` [${printable(d.source)}]` : ''}${d.path ? ` ${printable(d.path)}${d.span ? `:${d.span.startLine}` : ''}` : ''}`;
      io.err(
        `  ${severity} ${printable(d.code)}${where}: ${printable(d.message)}${d.hint ? ` (${printable(d.hint)})` : ''}\n`,
      );
    }
    if (all.length > limit) io.err(`  ... and ${all.length - limit} more ${severity}s (see --json)\n`);
  }
}

/**
 * The blocks that did not pass, each with its one-line reason: the first `limit` (failed, then not run
 * automatically, then blocked; by failure class, then id), then how many more. The reasons are upstream's text:
 * printable.
 */
export function printFailures(io: CliIO, failures: BlockFailure[], limit = 20): void {
  if (failures.length === 0) return;
  const count = (status: BlockFailure['status']) => failures.filter((f) => f.status === status).length;
  io.out(
    `did not pass: ${count('failed')} failed, ${count('not-run')} not run automatically, ${count('blocked')} blocked\n`,
  );
  const shown = failures.slice(0, limit);
  const label = (f: BlockFailure) =>
    f.status === 'blocked' ? 'blocked' : `${f.status === 'not-run' ? 'not run: ' : ''}${f.failureClass ?? 'failed'}`;
  const width = Math.max(...shown.map((f) => label(f).length));
  for (const f of shown) io.out(`  ${label(f).padEnd(width)}  ${printable(f.id)}: ${printable(f.reason)}\n`);
  if (failures.length > limit) io.out(`  ... and ${failures.length - limit} more (see --json)\n`);
}

/**
 * Said last and loudly when the run did not do what was asked, so a log's last lines tell why it exits 1: sources
 * that failed, and validation that could not run at all (no Python with torch, no sandbox).
 */
export function printFailed(io: CliIO, diagnostics: Diagnostic[], failedSources: string[] = []): void {
  const unavailable = diagnostics.find((d) => d.code === 'validation-unavailable');
  if (failedSources.length)
    io.err(
      `error: ${failedSources.length === 1 ? 'source' : 'sources'} ${printable(failedSources.join(', '))} failed: ` +
        'their blocks are not in this run (the diagnostics above say why)\n',
    );
  if (unavailable) {
    io.err(`error: ${printable(unavailable.message)}\n`);
    if (unavailable.hint) io.err(`  fix: ${printable(unavailable.hint)}\n`);
  }
}

/**
 * Said on every run that executes upstream code without the sandbox (`--no-sandbox`), on stderr: never part of the
 * `--json` document on stdout, never silenced.
 */
export function warnNoSandbox(io: CliIO): void {
  let who = `uid ${process.getuid?.() ?? '?'}`;
  try {
    who = `${userInfo().username}, ${who}`;
  } catch {
    // no passwd entry for this uid: the uid alone says who
  }
  io.err(
    `warning: --no-sandbox: upstream code runs unconfined as the current user (${who}): no bubblewrap, no seccomp; ` +
      'it can read, change and send anything that user can\n',
  );
}
