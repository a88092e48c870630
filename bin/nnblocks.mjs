#!/usr/bin/env node
// The `nnblocks` executable: runs the prebuilt bundle (bin/bundle.mjs) when it matches the sources, rebuilding it
// first when they changed; from the TypeScript sources through tsx when it cannot be built (no esbuild, a read-only
// install) or when NNBLOCKS_FROM_SOURCE=1. Either way the code that runs is the code on disk.
import { buildBundle, freshBundle } from './bundle.mjs';

async function entry() {
  if (process.env.NNBLOCKS_FROM_SOURCE === '1') return null;
  const fresh = freshBundle();
  if (fresh) return fresh;
  try {
    await buildBundle();
    return freshBundle();
  } catch (err) {
    // A source that does not compile gets its error from tsx below, with the file and line.
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'EACCES' && err?.code !== 'EROFS' && !err?.errors)
      process.stderr.write(
        `nnblocks: running from the sources (the bundle could not be built: ${err?.message ?? err})\n`,
      );
    return null;
  }
}

const bundle = await entry();
let main;
if (bundle) {
  // An internal error's stack then names the TypeScript files and lines, not the bundle's.
  process.setSourceMapsEnabled(true);
  main = await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  main = await import('../pipeline/cli/main.ts');
}
process.exitCode = await main.runCli(process.argv.slice(2));
