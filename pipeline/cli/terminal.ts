// The stage context a command runs with: a logger and progress drawn on this terminal (quiet in CI and --json),
// and a fresh diagnostics sink. Kept apart from commands/shared.ts so that `nnblocks sources` loads no later stage.
import { diagnosticSink, type StageContext } from '../contract/context.ts';
import { makeLogger, type CliIO } from './io.ts';
import { progressFactory } from './progress.ts';

export function terminalContext(io: CliIO): StageContext {
  return { log: makeLogger(io), progress: progressFactory(io), diagnostics: diagnosticSink() };
}
