// What a command module receives: the I/O factory and a way to set the exit code. Its own file so that
// main.ts (which lists the commands) and the commands (which use this type) do not import each other.
import type { Command } from 'commander';
import type { CliIO } from './io.ts';

export interface CliEnv {
  /** Makes the I/O for one command run; `json` comes from that command's --json flag. */
  io(json: boolean): CliIO;
  /** Set by a command to report failure without throwing. */
  setExitCode(code: number): void;
}

/** Each command module exports one of these; it declares the command's options and action on `program`. */
export type RegisterCommand = (program: Command, env: CliEnv) => void;
