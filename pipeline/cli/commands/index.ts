// The list of CLI commands; each module registers one command on the program.
import type { Command } from 'commander';
import type { CliEnv } from '../main.ts';

export type RegisterCommand = (program: Command, env: CliEnv) => void;

export const commands: RegisterCommand[] = [];
