// CLI entry: builds the commander program from one module per command; takes argv and I/O so tests can drive it.
// Only the module of the command being run is imported; the others are listed by name and summary (commands/index.ts).
import { Command, CommanderError } from 'commander';
import { NnblocksError } from '../diagnostics.ts';
import { guardedIO, processIO, type CliIO } from './io.ts';
import { printableLines } from './printable.ts';
import { commandTerm, commands, registerSummary, selectedCommand } from './commands/index.ts';
import type { CliEnv } from './env.ts';

export async function runCli(argv: string[], openIO: (json: boolean) => CliIO = processIO): Promise<number> {
  // Every write goes through the backstop: no line the CLI prints starts with `::` (printable.ts says why).
  const makeIO = (json: boolean) => guardedIO(openIO(json));
  let exitCode = 0;
  const env: CliEnv = { io: makeIO, setExitCode: (c) => (exitCode = c) };
  const program = new Command('nnblocks')
    .description('Turn PyTorch repositories into a searchable, citable catalog of validated neural-network blocks.')
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
    if (err instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return err.exitCode;
    }
    const io = makeIO(false);
    if (err instanceof NnblocksError) {
      // A config error lists its problems a line each; a message may quote upstream (a path, a name).
      io.err(`nnblocks ${err.stage}: ${printableLines(err.message)}\n`);
      if (err.hint) io.err(`  hint: ${printableLines(err.hint)}\n`);
      return 2;
    }
    io.err(`nnblocks: internal error: ${printableLines(String((err as Error).stack ?? err))}\n`);
    return 70;
  }
  return exitCode;
}
