import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { relative, dirname } from 'node:path';
const root = '/work/wt-pkg22'; const out = '/tmp/pkgb/out';
const plugin = { name: 'url', setup(b) { b.onLoad({ filter: /\.ts$/ }, (args) => {
  let src = readFileSync(args.path, 'utf8');
  if (src.includes('import.meta.url')) src = src.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative(out, args.path))}, import.meta.url).href`);
  return { contents: src, loader: 'ts' };
}); } };
const r = await esbuild.build({ entryPoints: [root + '/pipeline/cli/main.ts'], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outdir: out, splitting: true, metafile: true, plugins: [plugin], logLevel: 'warning' });
