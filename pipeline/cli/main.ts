// CLI entry: builds the commander program from one module per command; takes argv and I/O so tests can drive it.
// Only the module of the command being run is imported; the others are listed by name and summary (commands/index.ts).
import { Command, CommanderError } from 'commander';
import { NnblocksError } from '../contract/diagnostics.ts';
import { guardedIO, processIO, type CliIO } from './io.ts';
import { printableLines } from './printable.ts';
import { commandTerm, commands, registerSummary, selectedCommand } from './commands/index.ts';
import type { CliEnv } from './env.ts';
import { packageVersion } from '../util/package-version.ts';

export async function runCli(argv: string[], openIO: (json: boolean) => CliIO = processIO): Promise<number> {
  // Every write goes through the backstop: no line the CLI prints starts with `::` (printable.ts says why).
  const makeIO = (json: boolean) => guardedIO(openIO(json));
  let exitCode = 0;
  const env: CliEnv = { io: makeIO, setExitCode: (c) => (exitCode = c) };
  const program = new Command('nnblocks')
    .description('Turn PyTorch repositories into a searchable, citable catalog of validated neural-network blocks.')
    .version(packageVersion(), '-V, --version', 'print the nnblocks version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => makeIO(false).out(s), writeErr: (s) => makeIO(false).err(s) })
    .showHelpAfterError()
    .configureHelp({ subcommandTerm: commandTerm });
  const selected = selectedCommand(argv);
  for (const entry of commands) {
    if (entry === selected) (await entry.load())(program, env);
    else registerSummary(program, entry);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const io = makeIO(false);
    // With --json, every error is also one JSON document on stdout (the human text stays on stderr).
    const json = wantsJson(argv);
    if (err instanceof CommanderError) {
      // --help and --version exit through here with code 0; a usage error (commander printed it) is 2.
      if (err.exitCode === 0) return 0;
      if (json) printError(io, { stage: 'usage', message: err.message.replace(/^error: /, ''), exitCode: 2 });
      return 2;
    }
    if (err instanceof NnblocksError) {
      // A config error lists its problems a line each; a message may quote upstream (a path, a name).
      io.err(`nnblocks ${err.stage}: ${printableLines(err.message)}\n`);
      if (err.hint) io.err(`  hint: ${printableLines(err.hint)}\n`);
      if (json) printError(io, { stage: err.stage, message: err.message, hint: err.hint, exitCode: 2 });
      return 2;
    }
    io.err(`nnblocks: internal error: ${printableLines(String((err as Error).stack ?? err))}\n`);
    if (json) printError(io, { stage: 'internal', message: String((err as Error).message ?? err), exitCode: 70 });
    return 70;
  }
  return exitCode;
}

/** `--json` among the options (not after `--`, where it would be an argument). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

interface CliError {
  stage: string;
  message: string;
  hint?: string;
  exitCode: number;
}

/** The error as the one JSON document of a `--json` run: `{"error": {stage, message, hint?, exitCode}}`. */
function printError(io: CliIO, error: CliError): void {
  const { stage, message, hint, exitCode } = error;
  io.out(JSON.stringify({ error: { stage, message, ...(hint ? { hint } : {}), exitCode } }, null, 2) + '\n');
}
