// The list of CLI commands; each module registers one command on the program.
import type { RegisterCommand } from '../env.ts';
import { registerIndex } from './index-cmd.ts';
import { registerBlocks } from './blocks.ts';
import { registerExtract } from './extract.ts';
import { registerSources } from './sources.ts';
import { registerDoctor } from './doctor.ts';
import { registerEnvironment } from './environment.ts';
import { registerValidate } from './validate.ts';
import { registerBuild } from './build.ts';
import { registerMerge } from './merge.ts';
import { registerDedup } from './dedup.ts';
import { registerChanges } from './changes.ts';

export const commands: RegisterCommand[] = [
  registerSources,
  registerDoctor,
  registerEnvironment,
  registerIndex,
  registerBlocks,
  registerExtract,
  registerValidate,
  registerDedup,
  registerBuild,
  registerMerge,
  registerChanges,
];
