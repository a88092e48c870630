// Astro integration: removes the content-layer stubs Astro 5 leaves in the output when outDir lies outside
// the project root (`content-assets.mjs`, `content-modules.mjs`: server-side chunks, meaningless to a static
// host). The benchmarks build into temporary directories, so they hit this.
import { rmSync } from 'node:fs';
import type { AstroIntegration } from 'astro';

const STRAY = ['content-assets.mjs', 'content-modules.mjs'];

export default function cleanOutput(): AstroIntegration {
  return {
    name: 'nnblocks-clean-output',
    hooks: {
      'astro:build:done': ({ dir }) => {
        for (const file of STRAY) rmSync(new URL(file, dir), { force: true });
      },
    },
  };
}
