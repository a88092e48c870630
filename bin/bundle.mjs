// The prebuilt CLI: pipeline/cli/main.ts bundled by esbuild into build/cli/<key>/ (one chunk per command, loaded
// when that command runs), and the stamp that says which sources it was built from. `bin/nnblocks.mjs` runs the
// bundle only when the stamp matches the sources on disk (never stale code), and rebuilds it when it does not.
// Plain JavaScript with no dependency at load time: esbuild is imported only to build.
//
//   node bin/bundle.mjs           build if the sources changed (setup, prepack); silent when they did not
//   node bin/bundle.mjs --force   build even if the stamp matches
//   node bin/bundle.mjs --clean   then remove every other bundle (prepack: the package carries the current one only)
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'build', 'cli');
const STAMP = join(OUT, 'current.json');
const ENTRY = 'pipeline/cli/main.ts';
/** Files that shape the output besides the bundled sources: this builder and the compiler options esbuild reads. */
const BUILD_INPUTS = ['bin/bundle.mjs', 'tsconfig.json'];
/** Bump to invalidate every stamp when the stamp's format or the build's meaning changes. */
const FORMAT = 1;
/** An old bundle is kept at least this long after it was last made current. */
const KEEP_OLD_MS = 60 * 60 * 1000;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * The bundle's entry (a file URL) when its stamp matches the sources, else null. Cheap enough for every start: one
 * stat per input (~180), and a read and hash only for a file whose mtime moved (a checkout, an unpacked tarball);
 * when hashes vouched for moved files, the stamp takes their new mtimes (if it can be written) so the next start
 * stats only.
 */
export function freshBundle(root = ROOT) {
  const stampFile = join(root, 'build', 'cli', 'current.json');
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return null;
  }
  if (stamp?.format !== FORMAT || !Array.isArray(stamp.inputs)) return null;
  let moved = false;
  for (const input of stamp.inputs) {
    const [path, size, mtimeMs, hash] = input;
    const abs = join(root, path);
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st || st.size !== size) return null;
    if (st.mtimeMs === mtimeMs) continue;
    if (sha256(readFileSync(abs)) !== hash) return null;
    input[2] = st.mtimeMs;
    moved = true;
  }
  const main = join(root, 'build', 'cli', stamp.key, 'main.js');
  if (!existsSync(main)) return null;
  if (moved) {
    try {
      const tmp = `${stampFile}.${process.pid}`;
      writeFileSync(tmp, JSON.stringify(stamp) + '\n');
      renameSync(tmp, stampFile);
    } catch {
      // A read-only install hashes on every start: correct, a few milliseconds slower.
    }
  }
  return pathToFileURL(main).href;
}

/**
 * `import.meta.url` of every bundled source is rewritten to that source's own URL, computed from the chunk's URL at
 * run time, so paths a module resolves beside itself (the Python runner, schema.sql, data/*.json, worker files,
 * ../../schemas) are the same from the bundle as from the sources, wherever the package is installed. Every file
 * esbuild reads passes through here, so the stamp hashes exactly the bytes that were bundled.
 */
function sourcesPlugin(outDir, inputs) {
  return {
    name: 'nnblocks-sources',
    setup(build) {
      build.onLoad({ filter: /.*/ }, (args) => {
        const bytes = readFileSync(args.path);
        const st = statSync(args.path);
        const rel = relative(ROOT, args.path).split(sep).join('/');
        inputs.set(rel, [rel, st.size, st.mtimeMs, sha256(bytes)]);
        let text = bytes.toString('utf8');
        const fromChunk = relative(outDir, args.path).split(sep).join('/');
        text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`);
        const loader = { '.ts': 'ts', '.mts': 'ts', '.json': 'json' }[extname(args.path)] ?? 'js';
        return { contents: text, loader };
      });
    },
  };
}

/** Builds the bundle into build/cli/<key>/ (written whole, then renamed) and makes it current. */
export async function buildBundle() {
  const t0 = performance.now();
  const esbuild = await import('esbuild');
  mkdirSync(OUT, { recursive: true });
  // Same depth as the final folder, so the relative URLs the plugin writes hold after the rename.
  const tmp = join(OUT, `tmp-${process.pid}-${Date.now()}`);
  const inputs = new Map();
  try {
    await esbuild.build({
      entryPoints: { main: join(ROOT, ENTRY) },
      // The paths in the output's comments and source maps are the package's, whoever's folder the build ran in.
      absWorkingDir: ROOT,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // node_modules load at run time from wherever the package's dependencies are installed: native addons
      // (better-sqlite3, tree-sitter) and astro resolve as they do from the sources.
      packages: 'external',
      outdir: tmp,
      chunkNames: '[name]-[hash]',
      sourcemap: 'linked',
      sourcesContent: false,
      legalComments: 'none',
      logLevel: 'silent',
      plugins: [sourcesPlugin(tmp, inputs)],
    });
    for (const rel of BUILD_INPUTS) {
      const abs = join(ROOT, rel);
      const st = statSync(abs);
      inputs.set(rel, [rel, st.size, st.mtimeMs, sha256(readFileSync(abs))]);
    }
    const list = [...inputs.values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const key = sha256(JSON.stringify([FORMAT, esbuild.version, list.map(([p, , , h]) => [p, h])])).slice(0, 16);
    const dir = join(OUT, key);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another process built the same sources first: its folder holds the same bytes.
      if (!existsSync(join(dir, 'main.js'))) throw err;
    }
    // Its mtime says when it was last made current (prune).
    utimesSync(dir, new Date(), new Date());
    const stamp = { format: FORMAT, key, esbuild: esbuild.version, builtAt: new Date().toISOString(), inputs: list };
    const tmpStamp = `${STAMP}.${process.pid}`;
    writeFileSync(tmpStamp, JSON.stringify(stamp) + '\n');
    renameSync(tmpStamp, STAMP);
    prune();
    return { key, inputs: list.length, ms: Math.round(performance.now() - t0) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Removes old bundles: all but the three most recently made current, and of those only the ones made current over
 * an hour ago (a process that read the previous stamp a moment ago may still be importing from its folder).
 */
function prune() {
  const dirs = readdirSync(OUT, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ abs: join(OUT, d.name), mtimeMs: statSync(join(OUT, d.name)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const d of dirs.slice(3))
    if (Date.now() - d.mtimeMs > KEEP_OLD_MS) rmSync(d.abs, { recursive: true, force: true });
}

if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) {
  if (process.argv.includes('--force') || !freshBundle()) {
    const r = await buildBundle();
    process.stderr.write(`bundle: built build/cli/${r.key} from ${r.inputs} files in ${r.ms} ms\n`);
  }
  if (process.argv.includes('--clean')) {
    const { key } = JSON.parse(readFileSync(STAMP, 'utf8'));
    for (const name of readdirSync(OUT))
      if (name !== key && name !== 'current.json') rmSync(join(OUT, name), { recursive: true, force: true });
  }
}
