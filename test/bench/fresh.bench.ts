// The README's two commands on a fresh clone, timed, with the size of what they install. A fresh clone of
// this checkout's commit in a temporary folder, with an empty npm cache and an empty home for the validation
// environment (NNBLOCKS_ENV_HOME), so npm packages come from the registry and torch is installed again; the Debian
// packages setup asks for are this machine's (installed once per machine: their size is reported, not their time).
// It takes about twenty minutes and 6 GB of disk, so it runs only when named: `npm run bench fresh`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, type Figure } from './harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
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

/** Bytes under `path` (du), 0 when it is not there. */
function bytes(path: string): number {
  try {
    return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

/** Installed-Size of the packages and everything they depend on (an upper bound: a base image has some of it). */
export function debianBytes(): { own: number; closure: number } {
  // dpkg-query exits 1 when one of the names is not installed (a virtual package, an alternative): the sizes it
  // printed for the others still count.
  const size = (pkgs: string[]) =>
    (spawnSync('dpkg-query', ['-Wf', '${Installed-Size}\\n', ...pkgs], { encoding: 'utf8' }).stdout ?? '')
      .split('\n')
      .filter(Boolean)
      .reduce((n, kb) => n + Number(kb) * 1024, 0);
  const deps = execFileSync(
    'apt-cache',
    [
      'depends',
      '--recurse',
      '--no-recommends',
      '--no-suggests',
      '--no-conflicts',
      '--no-breaks',
      '--no-replaces',
      '--no-enhances',
      '--installed',
      ...APT_PACKAGES,
    ],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter((l) => /^[a-z0-9]/.test(l) && !l.includes('<'));
  return { own: size(APT_PACKAGES), closure: size([...new Set(deps)]) };
}

/** Runs `npm run <script>` in `dir` with `env`, output to `log`; wall seconds and exit status. */
function npmRun(dir: string, script: string, env: NodeJS.ProcessEnv, log: string): { s: number; status: number } {
  const fd = openSync(log, 'w');
  const t = performance.now();
  try {
    const res = spawnSync('npm', ['run', script], { cwd: dir, env, stdio: ['ignore', fd, fd] });
    return { s: (performance.now() - t) / 1000, status: res.status ?? 1 };
  } finally {
    closeSync(fd);
  }
}

export async function run(): Promise<Figure[]> {
  if (!process.argv.slice(2).includes('fresh')) {
    return [
      { issue: 20, figure: 'fresh clone: npm run catalog, npm test', value: 'skipped: run `npm run bench fresh`' },
    ];
  }
  const base = mkdtempSync(join(tmpdir(), 'nnb-fresh-'));
  chmodSync(base, 0o755); // as /var/cache/nnblocks is: the sandbox's uid reads the environment made below it
  const dir = join(base, 'nnblocks');
  const envHome = join(base, 'envs');
  let keep = Boolean(process.env.NNBLOCKS_BENCH_KEEP);
  try {
    const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '-q', '--no-local', ROOT, dir]);
    execFileSync('git', ['-C', dir, 'checkout', '-q', commit]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NNBLOCKS_ENV_HOME: envHome,
      npm_config_cache: join(base, 'npm-cache'),
      CI: '1',
    };
    delete env.NNBLOCKS_PYTHON;
    const catalog = npmRun(dir, 'catalog', env, join(base, 'catalog.log'));
    const installed = { node: bytes(join(dir, 'node_modules')), env: bytes(envHome) };
    const outputs = bytes(join(dir, 'content', 'catalog')) + bytes(join(dir, 'dist'));
    const cache = bytes(join(dir, '.nnblocks'));
    const test = npmRun(dir, 'test', env, join(base, 'test.log'));
    keep ||= catalog.status !== 0 || test.status !== 0;
    process.stderr.write(
      `bench: fresh clone: catalog ${round(catalog.s, 0)} s (${catalog.status}), test ${round(test.s, 0)} s (${test.status})\n`,
    );
    const debian = debianBytes();
    const gb = (n: number) => `${round(n / 2 ** 30)} GiB`;
    const mb = (n: number) => `${round(n / 2 ** 20, 0)} MiB`;
    return [
      {
        issue: 20,
        figure: `fresh clone: \`npm run catalog\` (npm ci from the registry, the environment, build, site)${catalog.status ? ` FAILED (${catalog.status}, ${join(base, 'catalog.log')})` : ''}`,
        value: round(catalog.s, 0),
        unit: 's',
        ok: catalog.status === 0,
      },
      {
        issue: 20,
        figure: `fresh clone: \`npm test\` after it${test.status ? ` FAILED (${test.status}, ${join(base, 'test.log')})` : ''}`,
        value: round(test.s, 0),
        unit: 's',
        target: '<= 900 s',
        ok: test.status === 0 && test.s <= 900,
      },
      {
        issue: 20,
        figure: 'installed: node_modules / validation environment (torch 2.14.1, torchvision 0.29.1)',
        value: `${mb(installed.node)} / ${gb(installed.env)}`,
      },
      {
        issue: 20,
        figure: `installed: Debian packages setup asks for (${APT_PACKAGES.length}), own / with dependencies`,
        value: `${mb(debian.own)} / ${gb(debian.closure)}`,
      },
      { issue: 20, figure: 'written: catalog + site / build cache', value: `${mb(outputs)} / ${mb(cache)}` },
    ];
  } catch (err) {
    keep = true; // the logs say what failed
    throw err;
  } finally {
    if (keep) process.stderr.write(`bench: fresh clone kept in ${base}\n`);
    else rmSync(base, { recursive: true, force: true });
  }
}
