// The two sandboxes a requirements layer is made in (layer.ts). Both are bubblewrap with the validate sandbox's
// privileges (uid 65534, no capabilities, seccomp), the base environment read-only and the layer writable at its
// final path; they differ in what may run where:
// - `install` has the network (the indexes) and runs nothing but pip itself: wheels only (`--only-binary :all:`),
//   pip started with `-S` from the base's site folders, so no `.pth` file or module a downloaded wheel brings is
//   imported while the network is there;
// - `build` has no network and turns one source distribution into a wheel (its setup.py runs here, compilers off:
//   `CC=/bin/false`, so compiled extensions are not built).
// No pip cache is kept: one shared between layers would let one corpus's build poison another's packages.
import { chmodSync, closeSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  accountBinds,
  offlineNameBinds,
  hostIdentity,
  outermost,
  privilegeArgs,
  sandboxEnv,
  seccompFds,
  systemBinds,
  underUsr,
} from '../sandbox/bwrap.ts';
import { emptyMasks, procArgs, sysArgs } from '../sandbox/host-view.ts';
import type { BaseEnvironment } from './base.ts';
import { installedDistributions } from './installed.ts';
import { configFileText, PIP_FLAGS, runLogged, type PipConfiguration, type PipOutcome } from './pip.ts';

/** What pip inside the sandbox needs of /etc besides the loader's files: name resolution and certificates. */
const NETWORK_ETC = [
  'nsswitch.conf',
  'resolv.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'services',
  'protocols',
  'ssl',
  'ca-certificates',
];
/** Build backends a source distribution may ask for (wheels, installed once per layer for its builds). */
const BUILD_TOOLS = ['setuptools', 'wheel', 'hatchling', 'flit_core', 'poetry-core', 'setuptools-scm', 'pdm-backend'];

export interface InstallSandboxes {
  /** `pip install` of `specs`, wheels only, with the network; wheels built earlier are found in the wheelhouse. */
  install(specs: string[]): Promise<PipOutcome>;
  /** Builds the source distribution `file` (downloaded by the host) into a wheel in the wheelhouse, offline. */
  build(file: string): Promise<PipOutcome>;
  /** Where `build`'s inputs go: a folder the host writes and the build sandbox reads. */
  readonly downloads: string;
  close(): void;
}

/** Pins for everything the base has (torch above all): a requirement may use them, never replace them. */
function constraintsText(base: BaseEnvironment): string {
  const free = new Set(['pip', 'setuptools', 'wheel']);
  return installedDistributions(base.sites)
    .filter((d) => !free.has(d.name))
    .map((d) => `${d.name}==${d.version}\n`)
    .join('');
}

/** pip started without site processing, from the base's folders only, installing into the venv at `prefix`. */
function bareConfinedPip(base: BaseEnvironment, prefix: string, args: string[]): string[] {
  const boot = [
    'import sys',
    // A venv's scheme (its lib/pythonX.Y/site-packages) without site.py, which would run the layer's .pth files.
    `sys.prefix = sys.exec_prefix = ${JSON.stringify(prefix)}`,
    `sys.path.extend(${JSON.stringify(base.sites)})`,
    'from pip._internal.cli.main import main',
    `sys.exit(main(${JSON.stringify(args)}))`,
  ].join('\n');
  return [base.facts.baseExecutable, '-S', '-c', boot];
}

export function installSandboxes(opts: {
  base: BaseEnvironment;
  /** The layer's final path (inside the sandboxes) and the folder it is made in (on the host). */
  dir: string;
  partial: string;
  pip: PipConfiguration;
  logFile: string;
}): InstallSandboxes {
  const { base, dir, partial, pip, logFile } = opts;
  const staging = makeStaging(base, pip);
  const common = commonArgs(base, staging.root);
  const run = sandboxRunner(staging.root, logFile);
  const online = (ro: [string, string][], rw: [string, string][], argv: string[]) =>
    onlineArgs(common, pip, ro, rw, argv);
  let toolsReady = false;
  return {
    downloads: staging.downloads,
    install: (specs) =>
      run(
        online(
          [
            [staging.pipConf, '/nnb/pip/pip.conf'],
            [staging.constraints, '/nnb/pip/constraints.txt'],
            [staging.wheelhouse, '/nnb/wheelhouse'],
          ],
          [[partial, dir]],
          bareConfinedPip(base, dir, [
            'install',
            ...PIP_FLAGS,
            '--only-binary',
            ':all:',
            '--find-links',
            '/nnb/wheelhouse',
            '-c',
            '/nnb/pip/constraints.txt',
            ...specs,
          ]),
        ),
      ),
    build: async (file) => {
      if (!toolsReady) {
        // The build backends, as wheels, into a folder of their own (never the layer): once per layer. Offline or
        // without them, the build still has the base's setuptools (torch depends on it), which builds most sdists.
        await run(
          online(
            [
              [staging.pipConf, '/nnb/pip/pip.conf'],
              [partial, dir],
            ],
            [[staging.tools, '/nnb/tools']],
            bareConfinedPip(base, dir, [
              'install',
              ...PIP_FLAGS,
              '--only-binary',
              ':all:',
              '--target',
              '/nnb/tools',
              ...BUILD_TOOLS,
            ]),
          ),
        );
        toolsReady = true;
      }
      return run(buildArgs(common, staging, partial, dir, file));
    },
    close: () => rmSync(staging.root, { recursive: true, force: true }),
  };
}

/** The host folder the sandboxes bind from, and what is in it. */
interface Staging {
  root: string;
  /** Wheels built from source distributions, which `install` finds. */
  wheelhouse: string;
  /** Source distributions the host downloaded, for `build`. */
  downloads: string;
  /** The build backends (BUILD_TOOLS). */
  tools: string;
  pipConf: string;
  constraints: string;
}

function makeStaging(base: BaseEnvironment, pip: PipConfiguration): Staging {
  // World-readable: bubblewrap runs as the sandbox's uid when nnblocks is root, and binds from here.
  const root = mkdtempSync(join(tmpdir(), 'nnblocks-install-'));
  chmodSync(root, 0o755);
  const staging: Staging = {
    root,
    wheelhouse: join(root, 'wheelhouse'),
    downloads: join(root, 'downloads'),
    tools: join(root, 'tools'),
    pipConf: join(root, 'pip.conf'),
    constraints: join(root, 'constraints.txt'),
  };
  for (const d of [staging.wheelhouse, staging.downloads, staging.tools]) {
    mkdirSync(d, { mode: 0o777 });
    chmodSync(d, 0o777); // the sandbox's uid writes the built wheels and tools here
  }
  writeFileSync(staging.pipConf, configFileText(pip), { mode: 0o644 });
  writeFileSync(staging.constraints, constraintsText(base), { mode: 0o644 });
  return staging;
}

function env(vars: Record<string, string>): string[] {
  return Object.entries(vars).flatMap(([k, v]) => ['--setenv', k, v]);
}

/** What both sandboxes are: the validate sandbox's view of the host, compilers off, the base read-only. */
function commonArgs(base: BaseEnvironment, staging: string): string[] {
  const roots = outermost([base.facts.prefix, base.facts.basePrefix, ...base.sites, ...base.roots]).filter(
    (p) => !underUsr(p),
  );
  const empty = emptyMasks(staging);
  return [
    // pip (or the build) is pid 1: no bubblewrap init for a build's setup.py to write into (/proc/1/mem).
    '--as-pid-1',
    '--clearenv',
    ...sandboxEnv(),
    ...env({ PIP_NO_CACHE_DIR: '1', CC: '/bin/false', CXX: '/bin/false', LDSHARED: '/bin/false' }),
    ...accountBinds(staging),
    // The validate sandbox's view of the host: no kernel command line, /sys reduced to the CPU topology.
    ...procArgs(empty.file),
    ...sysArgs(false),
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...roots.flatMap((r) => ['--ro-bind', r, r]),
    '--chdir',
    '/tmp',
  ];
}

/** Runs bubblewrap with these arguments under a fresh seccomp filter, its output into the log. */
function sandboxRunner(staging: string, logFile: string): (args: string[]) => Promise<PipOutcome> {
  return async (args) => {
    const fds = seccompFds(staging);
    try {
      return await runLogged('bwrap', args, {
        logFile,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        ...hostIdentity(),
        fds,
      });
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  };
}

/** The `install` sandbox: the network, pip's configuration, `ro` read-only and `rw` writable, then `argv`. */
function onlineArgs(
  common: string[],
  pip: PipConfiguration,
  ro: [string, string][],
  rw: [string, string][],
  argv: string[],
): string[] {
  return [
    ...privilegeArgs({ network: true }),
    ...common,
    // The user's pip configuration (indexes, find-links, credentials in URLs) and its local folders: pip needs them.
    ...env({ ...pip.env, PIP_CONFIG_FILE: '/nnb/pip/pip.conf', PIP_KEYRING_PROVIDER: 'disabled' }),
    ...systemBinds(NETWORK_ETC),
    ...pip.localPaths.flatMap((p) => ['--ro-bind', p, p]),
    ...ro.flatMap(([a, b]) => ['--ro-bind', a, b]),
    ...rw.flatMap(([a, b]) => ['--bind', a, b]),
    ...argv,
  ];
}

/** The `build` sandbox, offline: `pip wheel` of the downloaded `file` into the wheelhouse. */
function buildArgs(common: string[], staging: Staging, partial: string, dir: string, file: string): string[] {
  return [
    ...privilegeArgs(),
    ...common,
    ...env({ PYTHONPATH: '/nnb/tools' }),
    ...systemBinds(),
    ...offlineNameBinds(staging.root),
    // The layer as it is so far, read-only: a build may import what it needs, never change what is installed.
    '--ro-bind',
    partial,
    dir,
    '--ro-bind',
    staging.tools,
    '/nnb/tools',
    '--ro-bind',
    staging.downloads,
    '/nnb/downloads',
    '--bind',
    staging.wheelhouse,
    '/nnb/wheelhouse',
    join(dir, 'bin', 'python'),
    '-m',
    'pip',
    'wheel',
    ...PIP_FLAGS.filter((f) => f !== '--no-warn-script-location'), // install's flag, unknown to `pip wheel`
    '--no-deps',
    '--no-build-isolation',
    '--no-index',
    '--wheel-dir',
    '/nnb/wheelhouse',
    join('/nnb/downloads', basename(file)),
  ];
}
