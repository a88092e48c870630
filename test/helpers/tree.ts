// Test fixtures: file trees written inline in a test, into temp folders and (when asked) committed as git repos.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';

export type Tree = Record<string, string | Buffer>;

/**
 * A new temp folder, world-readable like a checkout in a usual place: when the tests run as root, the validate
 * sandbox runs as uid 65534 and must be able to read fixture trees it is shown (mkdtemp makes them 0700).
 */
export function tempDir(prefix = 'nnb-'): string {
  const dir = mkdtempSync(join(runTempRoot(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * The test run's own temp folder (test/global-setup.ts), removed when the run ends; the system's temp folder where
 * there is no run (a bench script that borrows these helpers cleans up after itself).
 */
function runTempRoot(): string {
  try {
    return inject('tempRoot') ?? tmpdir();
  } catch {
    return tmpdir();
  }
}

/** Writes `tree` (posix paths → contents; `dedent`ed strings recommended) under `dir` (a new temp dir by default). */
export function writeTree(tree: Tree, dir = tempDir()): string {
  for (const [path, content] of Object.entries(tree)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return dir;
}

/** Runs git in `dir` with a fixed identity (and the repo's own config, hooks and all: the test prepares it). */
export const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  }).trim();

/** Writes `tree` and commits it into a fresh git repo; returns the folder and the commit SHA. */
export function gitRepo(tree: Tree, dir = tempDir('nnb-repo-')): { dir: string; commit: string } {
  writeTree(tree, dir);
  const git = (...args: string[]) => gitIn(dir, ...args);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return { dir, commit: git('rev-parse', 'HEAD') };
}

/** Removes the common leading indentation of a template string, so fixtures can be indented with the test. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = strings.reduce((acc, s, i) => acc + s + (i < values.length ? String(values[i]) : ''), '');
  const lines = raw.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)![0].length));
  return (
    lines
      .map((l) => l.slice(indent))
      .join('\n')
      .replace(/\s+$/, '') + '\n'
  );
}
