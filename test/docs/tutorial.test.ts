// docs/tutorial.md does what it says: its fenced blocks are read with their `<!-- tutorial-test: ... -->` markers
// (the page's opening comment explains them) and played in order in a temp folder standing for the reader's
// `research/`: the config written as printed, a fixture repository at the path it names (two nn.Module blocks, one
// using the other, committed to git), every command run through `sh -c` with `nnblocks` and `python` on PATH being
// this checkout's bin/nnblocks.mjs and the validation environment's Python, the preview served and fetched. Then
// the files the page promises are checked. Blocks copied from docs/ci.md must equal their originals.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultEnvironmentConfig } from '../../pipeline/config/load.ts';
import { findManagedBase } from '../../pipeline/environment/base.ts';
import { environmentHome } from '../../pipeline/environment/home.ts';
import { bwrapAvailable } from '../../pipeline/sandbox/bwrap.ts';
import { testPython } from '../helpers/python.ts';
import { skipBecause } from '../helpers/skip.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = 'docs/tutorial.md';
const BIN = join(ROOT, 'bin', 'nnblocks.mjs');

/** A fenced block of a page: its info string (`sh`, `json`...), its text, and the marker before it, if any. */
interface Fenced {
  lang: string;
  body: string;
  line: number;
  marker: { action: string; arg: string } | null;
}

const MARKER = /^<!--\s*tutorial-test:\s*(\S+)\s*(.*?)\s*-->$/;

/** The fenced blocks of `text`, each with the `tutorial-test` marker on the last non-blank line before it. */
function fencedBlocks(text: string): Fenced[] {
  const lines = text.split('\n');
  const out: Fenced[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(\S*)/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith(open[1])) end++;
    let before = i - 1;
    while (before >= 0 && !lines[before].trim()) before--;
    const m = before >= 0 ? MARKER.exec(lines[before].trim()) : null;
    out.push({
      lang: open[2],
      body: lines.slice(i + 1, end).join('\n'),
      line: i + 1,
      marker: m ? { action: m[1], arg: m[2] } : null,
    });
    i = end;
  }
  return out;
}

/** The section of `text` under the heading whose GitHub anchor is `anchor`, up to the next heading of its level. */
function section(text: string, anchor: string): string {
  const slug = (h: string) =>
    h
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-');
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && slug(l.replace(/^#+ /, '')) === anchor);
  if (start < 0) throw new Error(`no heading with anchor #${anchor}`);
  const level = /^#+/.exec(lines[start])![0].length;
  const rest = lines.slice(start + 1);
  const next = rest.findIndex((l) => new RegExp(`^#{1,${level}} `).test(l));
  return rest.slice(0, next < 0 ? undefined : next).join('\n');
}

/** Command lines of a `run` block: `\`-continued lines joined, blank and comment lines dropped. */
function commands(body: string): string[] {
  return body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** The reader's repository: ConvBNAct in layers.py, ResidualBlock (two ConvBNAct and a skip) in blocks.py. */
const FIXTURE = {
  'mymodels/__init__.py': '',
  'mymodels/layers.py': py`
    import torch
    from torch import nn


    class ConvBNAct(nn.Module):
        def __init__(self, in_ch: int = 16, out_ch: int = 16):
            super().__init__()
            self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(out_ch)
            self.act = nn.SiLU()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.act(self.bn(self.conv(x)))
  `,
  'mymodels/blocks.py': py`
    import torch
    from torch import nn

    from .layers import ConvBNAct


    class ResidualBlock(nn.Module):
        def __init__(self, channels: int = 16):
            super().__init__()
            self.first = ConvBNAct(channels, channels)
            self.second = ConvBNAct(channels, channels)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.second(self.first(x))
  `,
};

/** A folder with `nnblocks` and `python` as the page's reader has them: this checkout's CLI, the tests' Python. */
function commandShims(): string {
  const bin = tempDir('nnb-tutorial-bin-');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const shims = {
    nnblocks: `exec ${quote(process.execPath)} ${quote(BIN)} "$@"`,
    python: `exec ${quote(testPython())} "$@"`,
  };
  for (const [name, line] of Object.entries(shims)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${line}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

/** Starts a `nnblocks preview` line on a free port, fetches its home page, stops it; the page and the exit code. */
async function preview(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ home: string; code: number | null }> {
  expect(line, 'a preview line takes extra options at its end: no comment after it').not.toContain('#');
  const child = spawn('sh', ['-c', `exec ${line} --port 0 --json`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  try {
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const started = await new Promise<{ url: string }>((done, fail) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        try {
          done(JSON.parse(out) as { url: string });
        } catch {
          // not the whole document yet
        }
      });
      void exited.then((code) => fail(new Error(`${line} exited ${code}: ${err}`)));
    });
    const res = await fetch(started.url);
    expect(res.status, started.url).toBe(200);
    const home = await res.text();
    child.kill('SIGTERM');
    return { home, code: await exited };
  } finally {
    child.kill('SIGKILL');
  }
}

const text = readFileSync(join(ROOT, DOC), 'utf8');
const blocks = fencedBlocks(text);
const ACTIONS = ['file', 'run', 'same-as', 'skip'];

// Validation needs the managed environment a config without `environment` gets and a working bubblewrap
// (npm test's setup installs both on Debian); the page's build exits 1 without them.
const bwrap = bwrapAvailable();
const noValidation = !findManagedBase(defaultEnvironmentConfig(), environmentHome())
  ? 'no validation environment (`nnblocks environment` makes it)'
  : !bwrap.ok
    ? `bubblewrap does not work here (${bwrap.error})`
    : null;

describe(DOC, () => {
  it('marks every fenced block: file, run, same-as or skip', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const b of blocks) {
      expect(b.marker, `${DOC}:${b.line}: a fenced block without a tutorial-test marker`).not.toBeNull();
      expect(ACTIONS, `${DOC}:${b.line}`).toContain(b.marker!.action);
      if (b.marker!.action !== 'run')
        expect(b.marker!.arg, `${DOC}:${b.line}: ${b.marker!.action} needs its argument`).toBeTruthy();
    }
  });

  it('copies blocks of other pages verbatim (same-as FILE#ANCHOR)', () => {
    const copies = blocks.filter((b) => b.marker?.action === 'same-as');
    expect(copies.map((b) => b.lang)).toEqual(['json', 'yaml']);
    for (const b of copies) {
      const [file, anchor] = b.marker!.arg.split('#');
      const original = fencedBlocks(section(readFileSync(join(ROOT, file), 'utf8'), anchor)).find(
        (o) => o.lang === b.lang,
      );
      expect(original, `${b.marker!.arg} has a ${b.lang} block`).toBeDefined();
      expect(b.body.trim(), `${DOC}:${b.line} differs from the ${b.lang} block of ${b.marker!.arg}`).toBe(
        original!.body.trim(),
      );
    }
  });

  it('runs: config, doctor, build with the site, preview, extract and the Python that uses the block', async (ctx) => {
    if (noValidation) skipBecause(ctx, `validation cannot run: ${noValidation}`);
    const work = tempDir('nnb-tutorial-');
    const env = { ...process.env, PATH: `${commandShims()}${delimiter}${process.env.PATH ?? ''}` };
    const ran: { line: string; result: Ran }[] = [];
    let home = '';
    for (const b of blocks) {
      const where = `${DOC}:${b.line}`;
      if (b.marker?.action === 'file') {
        const file = join(work, b.marker.arg);
        writeTree({ [b.marker.arg]: `${b.body}\n` }, work);
        // A corpus config: the fixture repository goes where its path source points.
        if (b.lang === 'json') {
          const paths = (JSON.parse(b.body) as { sources: { kind: string; path?: string }[] }).sources
            .filter((s) => s.kind === 'path')
            .map((s) => resolve(dirname(file), s.path!));
          expect(paths, `${where}: the config has one path source`).toHaveLength(1);
          gitRepo(FIXTURE, paths[0]);
        }
      } else if (b.marker?.action === 'run') {
        for (const line of commands(b.body)) {
          const program = line.split(/\s+/)[0];
          expect(['nnblocks', 'python'], `${where}: ${line}: a command the test does not know`).toContain(program);
          if (/^nnblocks\s+preview\b/.test(line)) {
            const served = await preview(line, work, env);
            expect(served.code, `${where}: ${line}`).toBe(0);
            home = served.home;
            ran.push({ line, result: { code: served.code, out: '', err: '' } });
            continue;
          }
          const result = await sh(line, work, env);
          expect(result.code, `${where}: ${line}\n${result.out}\n${result.err}`).toBe(0);
          ran.push({ line, result });
        }
      }
    }

    // Every step of the page ran.
    const programs = ran.map((r) => r.line.split(/\s+/).slice(0, 2).join(' '));
    for (const step of [
      'nnblocks doctor',
      'nnblocks build',
      'nnblocks preview',
      'nnblocks extract',
      'python use_block.py',
    ])
      expect(programs, step).toContain(step);

    // The build: both blocks passed, in catalog/ beside the config, the site in site/, and its hint names the
    // page's own preview command (`nnblocks`, not `npx nnblocks`, outside this checkout).
    const specs = readdirSync(join(work, 'catalog', 'blocks')).map(
      (f) =>
        JSON.parse(readFileSync(join(work, 'catalog', 'blocks', f), 'utf8')) as {
          name: string;
          validation?: { status: string };
        },
    );
    expect(specs.map((s) => [s.name, s.validation?.status]).sort()).toEqual([
      ['ConvBNAct', 'passed'],
      ['ResidualBlock', 'passed'],
    ]);
    expect(existsSync(join(work, 'site', 'index.html'))).toBe(true);
    const build = ran.find((r) => r.line.startsWith('nnblocks build'))!;
    const previewLine = ran.find((r) => r.line.startsWith('nnblocks preview'))!.line;
    expect(build.result.out).toContain(`(preview: ${previewLine})`);
    // The preview served that site: its home page names the corpus.
    expect(home).toContain('my-models');

    // The extracted module stands alone, with ConvBNAct inlined; the snippet built and ran it.
    const manifest = JSON.parse(readFileSync(join(work, 'blocks', 'manifest.json'), 'utf8')) as {
      blocks: { className: string; file: string }[];
    };
    expect(manifest.blocks.map((m) => m.className)).toEqual(['ResidualBlock']);
    const code = readFileSync(manifest.blocks[0].file, 'utf8');
    expect(code).toContain('class ConvBNAct(');
    expect(code).not.toMatch(/^\s*(from|import) mymodels\b/m);
    const python = ran.find((r) => r.line.startsWith('python'))!;
    expect(python.result.out).toContain('ResidualBlock: (2, 16, 32, 32)');
  }, 180_000);
});
