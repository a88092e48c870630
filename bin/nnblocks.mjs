#!/usr/bin/env node
// The `nnblocks` executable: loads the TypeScript CLI through tsx (Node 20 cannot strip types itself).
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../pipeline/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
