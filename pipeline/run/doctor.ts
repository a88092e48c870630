// The checks of `nnblocks doctor`: the tools the pipeline needs (node, git, python + torch, bubblewrap) and those
// only the test suite needs (chromium, shellcheck), each found or missing with the exact command that installs it.
// Nothing is installed or made here (`nnblocks environment` makes the validation environment).
import { execFileSync } from 'node:child_process';
import { defaultEnvironmentConfig, loadConfig } from '../config/load.ts';
import { lookupPython } from '../config/python.ts';
import type { CorpusConfig } from '../config/types.ts';
import { findManagedBase } from '../environment/base.ts';
import { environmentHome } from '../environment/home.ts';
import { selfCommand } from '../util/self-command.ts';

/** What a tool is needed for: building the catalog (every command), or only the test suite (`npm test`). */
export type DoctorGroup = 'catalog' | 'test';

export interface DoctorCheck {
  name: string;
  group: DoctorGroup;
  found: boolean;
  /** Version or what was found / what went wrong. */
  detail: string;
  /** What it is needed for. */
  neededFor: string;
  /** The command that fixes it (only when not found). */
  fix?: string;
}

const sudo = typeof process.getuid === 'function' && process.getuid() === 0 ? '' : 'sudo ';
const apt = (pkgs: string) => `${sudo}apt-get install -y ${pkgs}`;

/** The line of a tool's version output that says its version (the last, or the one `pick` matches); null if absent. */
function firstLine(cmd: string, args: string[], pick?: RegExp): string | null {
  try {
    const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    // Debian's chromium wrapper prints shell noise before the version; keep the line that names the tool.
    const lines = out
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return (pick ? lines.find((l) => pick.test(l)) : lines.pop()) ?? '';
  } catch {
    return null;
  }
}

/**
 * The Python validation runs with: the interpreter the config or $NNBLOCKS_PYTHON names (it must import torch), else
 * the managed environment (found by its stamp, never made here: `nnblocks environment` makes it).
 */
function pythonCheck(config: CorpusConfig | undefined): DoctorCheck {
  const named = config?.python ?? process.env.NNBLOCKS_PYTHON;
  const neededFor = 'python sources, validation';
  if (named) {
    const py = lookupPython({ python: named });
    return py.ok
      ? {
          name: 'python + torch',
          group: 'catalog',
          found: true,
          detail: `${py.python.path} (Python ${py.python.version}, torch ${py.python.torchVersion}${py.python.cudaAvailable ? ', CUDA' : ', CPU only'})`,
          neededFor,
        }
      : {
          name: 'python + torch',
          group: 'catalog',
          found: false,
          detail: py.tried.map((t) => `${t.candidate}: ${t.error}`).join('; '),
          neededFor,
          fix: py.diagnostic.hint!,
        };
  }
  const spec = config?.environment ?? defaultEnvironmentConfig();
  const base = findManagedBase(spec, environmentHome());
  return base
    ? {
        name: 'validation environment',
        group: 'catalog',
        found: true,
        detail: `${base.python} (Python ${base.facts.version}, torch ${base.torch.torch}${base.torch.cuda ? `, built for CUDA ${base.torch.cuda}` : ''})`,
        neededFor,
      }
    : {
        name: 'validation environment',
        group: 'catalog',
        found: false,
        detail: `not made yet (${[spec.torch, spec.torchvision].filter(Boolean).join(', ')})`,
        neededFor,
        fix: `${selfCommand()} environment${config ? ` --config ${config.configPath}` : ''}  (pip; ~5.5 GB, needs PyPI)`,
      };
}

function runChecks(config?: CorpusConfig): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const [major, minor] = process.versions.node.split('.').map(Number);
  const nodeOk = major > 20 || (major === 20 && minor >= 5);
  checks.push({
    name: 'node',
    group: 'catalog',
    found: nodeOk,
    detail: process.version,
    neededFor: 'everything (>= 20.5)',
    ...(nodeOk ? {} : { fix: 'install Node.js 20 LTS, e.g. from https://nodejs.org or NodeSource' }),
  });

  const git = firstLine('git', ['--version']);
  checks.push({
    name: 'git',
    group: 'catalog',
    found: git !== null,
    detail: git ?? 'not found',
    neededFor: 'git sources',
    ...(git ? {} : { fix: apt('git') }),
  });

  checks.push(pythonCheck(config));

  const bwrap = firstLine('bwrap', ['--version']);
  let sandbox = bwrap !== null;
  let bwrapDetail = bwrap ?? 'not found';
  if (bwrap !== null) {
    // Installed is not enough: containers without user namespaces refuse to create a sandbox.
    try {
      execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', 'true'], {
        timeout: 30_000,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (err) {
      sandbox = false;
      bwrapDetail = `${bwrap}, but it cannot create a sandbox: ${String((err as { stderr?: Buffer }).stderr ?? '').trim() || (err as Error).message}`;
    }
  }
  checks.push({
    name: 'bubblewrap',
    group: 'catalog',
    found: sandbox,
    detail: bwrapDetail,
    neededFor: 'sandboxed validation',
    ...(sandbox
      ? {}
      : {
          fix:
            bwrap === null
              ? apt('bubblewrap')
              : 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run with --privileged',
        }),
  });

  const chromium = firstLine('chromium', ['--version']) ?? firstLine('chromium-browser', ['--version']);
  checks.push({
    name: 'chromium',
    group: 'test',
    found: chromium !== null,
    detail: chromium ?? 'not found',
    neededFor: 'site tests (Playwright)',
    ...(chromium ? {} : { fix: apt('chromium') }),
  });
  const shellcheck = firstLine('shellcheck', ['--version'], /^version:/);
  checks.push({
    name: 'shellcheck',
    group: 'test',
    found: shellcheck !== null,
    detail: shellcheck ? `shellcheck ${shellcheck.replace(/^version:\s*/, '')}` : 'not found',
    neededFor: 'script lint tests',
    ...(shellcheck ? {} : { fix: apt('shellcheck') }),
  });
  return checks;
}

/** Every check, of the environment the config at `configPath` names (or the default one without a config). */
export function runDoctor(configPath?: string): DoctorCheck[] {
  return runChecks(configPath ? loadConfig(configPath) : undefined);
}
