#!/usr/bin/env node
// Dependency-free setup, run before `npm run catalog`, `npm test` and `npm run bench`: installs what is missing
// (npm dependencies; as root on Debian, the system packages; with `--for test`, ruff) so both Quick start commands
// work on a fresh clone.
// It is plain JavaScript on purpose: it must run before any npm dependency (tsx, TypeScript) exists.
// Second runs are fast: each check is a file stamp or a `dpkg-query`, and nothing installed is installed again.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
/** `--for test` (npm test): the tools only the test suite needs are installed too. */
const forTest = process.argv.includes('--for') && process.argv[process.argv.indexOf('--for') + 1] === 'test';
const log = (msg) => {
  if (!quiet) process.stderr.write(`setup: ${msg}\n`);
};

/** Debian packages the pipeline and its tests use: Python with venv for the managed validation environment (torch
 * 2.x from pip), Debian's torch 1.13 for the compatibility path (content/corpus.debian.json), bwrap for the sandbox,
 * chromium for browser tests, shellcheck for the CI scripts' lint test. */
const APT_PACKAGES = [
  'python3',
  'python3-venv',
  'python3-torch',
  'python3-torchvision',
  'bubblewrap',
  'git',
  'chromium',
  'shellcheck',
];

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (res.error) throw res.error;
  return res.status ?? 1;
}

function missingAptPackages() {
  if (!existsSync('/usr/bin/dpkg-query')) return [];
  return APT_PACKAGES.filter((pkg) => {
    const res = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
    return !(res.status === 0 && res.stdout.includes('install ok installed'));
  });
}

function ensureAptPackages() {
  if (!existsSync('/usr/bin/dpkg-query')) {
    log(
      `not a Debian system: install the equivalents of ${APT_PACKAGES.join(', ')} yourself (see \`npx nnblocks doctor\`)`,
    );
    return;
  }
  const missing = missingAptPackages();
  if (missing.length === 0) return;
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    process.stderr.write(
      `setup: missing Debian packages: ${missing.join(', ')}\n` +
        `setup: run this as root, then run the command again:\n\n    sudo sh -c '${cmd}'\n\n`,
    );
    process.exit(1);
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['update', '-q'], { env }) !== 0) fail('apt-get update failed');
  if (run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env }) !== 0) {
    fail(`apt-get install failed; try by hand: ${cmd}`);
  }
}

function lockHash() {
  const lock = join(root, 'package-lock.json');
  const pkg = readFileSync(join(root, 'package.json'));
  const h = createHash('sha256').update(pkg);
  if (existsSync(lock)) h.update(readFileSync(lock));
  return h.update(process.version).digest('hex');
}

/** Native addons must load in this Node: a copied node_modules from another Node version would not. */
function nativeAddonsLoad() {
  const probe =
    "require('better-sqlite3'); const P=require('tree-sitter'); new P().setLanguage(require('tree-sitter-python'));";
  return spawnSync(process.execPath, ['-e', probe], { cwd: root, stdio: 'ignore' }).status === 0;
}

function ensureNodeModules() {
  const stamp = join(root, 'node_modules', '.nnblocks-setup');
  const want = lockHash();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && nativeAddonsLoad()) return;
  // `npm install` rather than `npm ci`: the lock file as this registry serves it lacks other platforms' optional
  // packages (rollup, pagefind binaries), which `npm ci` rejects as out of sync; `npm install` keeps the locked versions.
  log('installing npm dependencies (npm install; native addons build from source, ~2-3 min)');
  if (run('npm', ['install', '--no-audit', '--no-fund']) !== 0)
    fail('npm dependencies failed to install; see the npm output above');
  if (!nativeAddonsLoad()) {
    log('native addons do not load; rebuilding them');
    if (run('npm', ['rebuild', 'better-sqlite3', 'tree-sitter', 'tree-sitter-python']) !== 0 || !nativeAddonsLoad()) {
      fail('better-sqlite3 / tree-sitter do not load; run `npm rebuild` and check that g++ and make are installed');
    }
  }
  writeFileSync(stamp, want);
}

function fail(message) {
  process.stderr.write(`setup: ${message}\n`);
  process.exit(1);
}

/**
 * The prebuilt CLI (bin/bundle.mjs): built when the sources changed, so `nnblocks` starts without compiling
 * TypeScript. The bin would build it on its first run anyway; here a build error shows before anything runs.
 */
function ensureBundle() {
  if (run(process.execPath, [join(root, 'bin', 'bundle.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] }) !== 0)
    fail('the CLI bundle could not be built (node bin/bundle.mjs); see the esbuild error above');
}

/**
 * ruff, the linter `npm run check` runs on the repository's own Python (ruff.toml): a pinned PyPI wheel in a venv of
 * its own under node_modules/ (per checkout like the npm tools, and npm leaves dot-folders there alone), linked into
 * node_modules/.bin so npm scripts find it by name. A venv, not pip on its own: Debian's python3 has no pip and
 * refuses installs outside one (PEP 668); python3-venv, installed above, brings pip into the venv.
 */
const RUFF = '0.17.5';
function ensureRuff() {
  const tools = join(root, 'node_modules', '.nnblocks-tools');
  const ruff = join(tools, 'bin', 'ruff');
  const link = join(root, 'node_modules', '.bin', 'ruff');
  const version = spawnSync(ruff, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (version !== `ruff ${RUFF}`) {
    log(`installing ruff ${RUFF} from PyPI into node_modules/.nnblocks-tools (the Python linter of npm run check)`);
    rmSync(tools, { recursive: true, force: true });
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    if (run(python, ['-m', 'venv', tools]) !== 0) fail(`${python} -m venv failed: install python3-venv`);
    const pip = [join(tools, 'bin', 'python'), '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
    if (run(pip[0], [...pip.slice(1), `ruff==${RUFF}`]) !== 0) fail(`ruff ${RUFF} could not be installed from PyPI`);
  }
  if (!existsSync(link)) {
    mkdirSync(dirname(link), { recursive: true });
    rmSync(link, { force: true }); // a dangling link (its venv removed) is not found by existsSync
    symlinkSync(join('..', '.nnblocks-tools', 'bin', 'ruff'), link);
  }
}

/**
 * The managed validation environment of the default corpus (torch 2.14.1 + torchvision 0.29.1 from pip, ~5.5 GB,
 * made once per machine and found by its stamp in milliseconds after): `nnblocks environment` makes it, so the build
 * and the tests start with it. Without network and without it, the command says what to do and setup stops.
 */
function ensureEnvironment() {
  const res = spawnSync(
    process.execPath,
    [join(root, 'bin', 'nnblocks.mjs'), 'environment', '--config', join(root, 'content', 'corpus.json'), '--json'],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  let report;
  try {
    report = JSON.parse(res.stdout);
  } catch {
    report = null;
  }
  if (res.status !== 0 || !report?.ok)
    fail('the validation environment could not be made; run `npx nnblocks environment` to see why');
  log(`validation environment: torch ${report.environment.torch}, Python ${report.environment.python}`);
}

ensureAptPackages();
ensureNodeModules();
if (forTest) ensureRuff();
ensureBundle();
ensureEnvironment();
