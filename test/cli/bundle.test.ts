// The prebuilt CLI (bin/bundle.mjs, bin/nnblocks.mjs), in a copy of the package's files: the bin builds the bundle
// when it is missing or its sources changed and never runs stale code; paths the sources resolve beside themselves
// hold from the bundle; `--help` loads the entry chunk and commander, nothing else; the tsx fallback prints the same.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** What the bin needs to build and run: its sources and the files they read beside themselves. */
const PACKAGE = ['bin', 'pipeline', 'schemas', 'content/corpus.schema.json', 'tsconfig.json', 'package.json'];

let copy: string;

function nnblocks(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string[] } = {}) {
  const res = spawnSync(process.execPath, [...(opts.node ?? []), join(copy, 'bin', 'nnblocks.mjs'), ...args], {
    cwd: opts.cwd ?? tempDir(),
    env: { ...process.env, CI: '1', ...opts.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

const stamp = () =>
  JSON.parse(readFileSync(join(copy, 'build', 'cli', 'current.json'), 'utf8')) as {
    key: string;
    builtAt: string;
    inputs: [path: string, size: number, mtimeMs: number, sha256: string][];
  };

beforeAll(() => {
  copy = tempDir('nnb-bundle-');
  for (const p of PACKAGE)
    cpSync(join(ROOT, p), join(copy, p), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});

describe('the prebuilt CLI', () => {
  it('is built on the first run and reused by the next', () => {
    const first = nnblocks(['--help']);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('Usage: nnblocks [options] [command]');
    const built = stamp();
    expect(nnblocks(['--help']).code).toBe(0);
    expect(stamp()).toEqual(built);
  });

  it('a touched source (same bytes) keeps the bundle; a changed one is rebuilt before it runs', () => {
    const file = join(copy, 'pipeline', 'cli', 'commands', 'index.ts');
    const before = stamp();
    // A checkout or an unpacked tarball gives files new mtimes: the hash says they are the same.
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(nnblocks(['--help']).code).toBe(0);
    expect(stamp()).toMatchObject({ key: before.key, builtAt: before.builtAt });
    // ... and the stamp took the new mtime, so the next start need not hash the file again.
    const entry = stamp().inputs.find(([p]) => p === 'pipeline/cli/commands/index.ts')!;
    expect(entry[2]).toBe(statSync(file).mtimeMs);

    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('print the uniqueness table', 'print the table of unique blocks'));
    const changed = nnblocks(['--help']);
    expect(changed.code, changed.err).toBe(0);
    expect(changed.out.replace(/\s+/g, ' ')).toContain('print the table of unique blocks');
    expect(stamp().key).not.toBe(before.key);
  });

  it('a source that does not compile runs from the sources, whose error names the file; the stamp is kept', () => {
    const file = join(copy, 'pipeline', 'cli', 'printable.ts');
    const text = readFileSync(file, 'utf8');
    const before = stamp();
    writeFileSync(file, `${text}\nexport const = ;\n`);
    try {
      const broken = nnblocks(['--help']);
      expect(broken.code).not.toBe(0);
      expect(broken.err).toContain('printable.ts');
      expect(stamp()).toEqual(before);
    } finally {
      writeFileSync(file, text);
    }
    expect(nnblocks(['--help']).code).toBe(0);
  });

  it('NNBLOCKS_FROM_SOURCE=1 runs the sources through tsx, with the same help', () => {
    const bundled = nnblocks(['build', '--help']);
    const source = nnblocks(['build', '--help'], { env: { NNBLOCKS_FROM_SOURCE: '1' } });
    expect(source.code, source.err).toBe(0);
    expect(source.out).toBe(bundled.out);
  });

  it('from the bundle, files beside the sources resolve: config schema, SQLite schema, tree-sitter, torch-nn.json', () => {
    const dir = writeTree({
      'corpus.json': JSON.stringify({ name: 'gate', sources: [{ id: 'tiny', kind: 'path', path: 'src' }] }),
      'src/tiny/gate.py': py`
        import torch.nn as nn
        class Gate(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
            def forward(self, x):
                return self.fc(x).sigmoid() * x
      `,
    });
    const r = nnblocks(['blocks', '--config', join(dir, 'corpus.json'), '--json']);
    expect(r.code, r.err).toBe(0);
    const { blocks } = JSON.parse(r.out) as { blocks: { id: string }[] };
    expect(blocks.map((b) => b.id)).toEqual(['tiny:tiny.gate.Gate']);
  });

  it('`--help` loads the bin, the entry chunk and commander: no command, no stage, no native addon', () => {
    const dir = tempDir();
    const log = join(dir, 'loaded.txt');
    // A resolve hook (node:module register) writes every module the run imports.
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\n` +
        `export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    /** The packages and the sources (bundled ones by the `// pipeline/...` line esbuild writes) a run imports. */
    const loaded = (args: string[]) => {
      writeFileSync(log, '');
      const r = nnblocks(args, { node: ['--import', pathToFileURL(join(dir, 'register.mjs')).href] });
      expect(r.code, r.err).toBe(0);
      const urls = readFileSync(log, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'));
      const packages = new Set(urls.map((u) => /\/node_modules\/([^/]+)\//.exec(u)?.[1]).filter(Boolean));
      const sources = new Set<string>();
      for (const u of urls.filter((x) => !x.includes('/node_modules/'))) {
        const file = fileURLToPath(u);
        if (!file.includes('/build/cli/')) sources.add(relative(copy, file));
        else for (const m of readFileSync(file, 'utf8').matchAll(/^\/\/ (pipeline\/\S+\.ts)$/gm)) sources.add(m[1]);
      }
      return { packages, sources };
    };
    expect(nnblocks(['--help']).code, 'a bundle is built').toBe(0);
    const help = loaded(['--help']);
    expect(help.packages).toEqual(new Set(['commander']));
    expect(help.sources).toContain('pipeline/cli/main.ts');
    // The CLI's own frame and leaves (io, printable, diagnostics, small utilities): no command module, no stage.
    const light =
      /^(bin\/\w+\.mjs|pipeline\/cli\/(main|io|env|printable)\.ts|pipeline\/cli\/commands\/index\.ts|pipeline\/contract\/(diagnostics|context)\.ts|pipeline\/util\/[\w-]+\.ts)$/;
    expect([...help.sources].filter((s) => !light.test(s))).toEqual([]);
    // The hook sees what a command loads: `blocks --help` brings its module, the stages and SQLite.
    const blocks = loaded(['blocks', '--help']);
    expect(blocks.sources).toContain('pipeline/cli/commands/blocks.ts');
    expect(blocks.sources).toContain('pipeline/run/prepare.ts');
    expect(blocks.packages).toContain('better-sqlite3');
  });
});
