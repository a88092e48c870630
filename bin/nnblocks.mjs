#!/usr/bin/env node
// The `nnblocks` executable: runs the prebuilt bundle (bin/bundle.mjs) when it matches the sources, rebuilding it
// first when they changed; from the TypeScript sources through tsx when it cannot be built (no esbuild, a read-only
// install) or when NNBLOCKS_FROM_SOURCE=1. Either way the code that runs is the code on disk.
import { setFlagsFromString } from 'node:v8';
import { buildBundle, freshBundle } from './bundle.mjs';

// A larger young generation before anything is allocated: a build makes millions of short-lived objects (facts read
// back from SQLite, specs, JSON), and with V8's default 16 MB semi-spaces garbage collection was 6.3 s of a 29 s warm
// paper-corpus build (--cpu-prof). With 64 MB that build took 25.0 and 24.7 s against 28.8 and 25.6 s without (the
// machine was noisy; 23.3 s as a command-line flag), peak RSS about the same (3.03 GB).
setFlagsFromString('--max-semi-space-size=64');

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
