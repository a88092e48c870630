// Helpers shared by the pipeline commands: the common options and opening a run with I/O wired up.
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { openRun, type RunContext } from '../../run/prepare.ts';
import type { CliIO } from '../io.ts';
import type { Diagnostic } from '../../diagnostics.ts';
import { printable } from '../printable.ts';
import { terminalContext } from '../terminal.ts';

export const DEFAULT_CONFIG = 'content/corpus.json';

export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'corpus config (JSON)', DEFAULT_CONFIG)
    .option('--json', 'print one JSON document on stdout for machines');
}

export function open(io: CliIO, configPath: string): RunContext {
  return openRun(configPath, terminalContext(io));
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2) + '\n');
}

/** Diagnostics summary for humans: counts by code, then the first few errors in full. */
export function printDiagnostics(io: CliIO, diagnostics: Diagnostic[], limit = 10): void {
  if (diagnostics.length === 0) return;
  const counts = new Map<string, number>();
  for (const d of diagnostics) counts.set(`${d.severity} ${d.code}`, (counts.get(`${d.severity} ${d.code}`) ?? 0) + 1);
  io.err(`diagnostics: ${printable([...counts].map(([k, n]) => `${n} ${k}`).join(', '))}\n`);
  // Messages quote upstream (a syntax error's snippet, a path): every part printable.
  for (const d of diagnostics.filter((x) => x.severity === 'error').slice(0, limit)) {
    const where = `${printable(d.source ?? '')}${d.path ? ` ${printable(d.path)}${d.span ? `:${d.span.startLine}` : ''}` : ''}`;
    io.err(`  ${where}: ${printable(d.message)}${d.hint ? ` (${printable(d.hint)})` : ''}\n`);
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
