// `nnblocks doctor`: checks the tools the pipeline needs (node, git, python + torch, bubblewrap, chromium) and
// prints, for each one missing, the exact command that installs it.
import { execFileSync } from 'node:child_process';
import type { RegisterCommand } from '../env.ts';
import { defaultEnvironmentConfig, loadConfig } from '../../config/load.ts';
import { lookupPython } from '../../config/python.ts';
import type { CorpusConfig } from '../../config/types.ts';
import { findManagedBase } from '../../environment/base.ts';
import { environmentHome } from '../../environment/home.ts';
import { renderTable } from '../table.ts';

export interface DoctorCheck {
  name: string;
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

function firstLine(cmd: string, args: string[]): string | null {
  try {
    const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    // Debian's chromium wrapper prints shell noise before the version; keep the line that names the tool.
    return (
      out
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .pop() ?? ''
    );
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
          found: true,
          detail: `${py.python.path} (Python ${py.python.version}, torch ${py.python.torchVersion}${py.python.cudaAvailable ? ', CUDA' : ', CPU only'})`,
          neededFor,
        }
      : {
          name: 'python + torch',
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
        found: true,
        detail: `${base.python} (Python ${base.facts.version}, torch ${base.torch.torch}${base.torch.cuda ? `, built for CUDA ${base.torch.cuda}` : ''})`,
        neededFor,
      }
    : {
        name: 'validation environment',
        found: false,
        detail: `not made yet (${[spec.torch, spec.torchvision].filter(Boolean).join(', ')})`,
        neededFor,
        fix: `npx nnblocks environment${config ? ` --config ${config.configPath}` : ''}  (pip; ~5.5 GB, needs PyPI)`,
      };
}

export function runDoctor(config?: CorpusConfig): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const [major, minor] = process.versions.node.split('.').map(Number);
  const nodeOk = major > 20 || (major === 20 && minor >= 5);
  checks.push({
    name: 'node',
    found: nodeOk,
    detail: process.version,
    neededFor: 'everything (>= 20.5)',
    ...(nodeOk ? {} : { fix: 'install Node.js 20 LTS, e.g. from https://nodejs.org or NodeSource' }),
  });

  const git = firstLine('git', ['--version']);
  checks.push({
    name: 'git',
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
    found: chromium !== null,
    detail: chromium ?? 'not found',
    neededFor: 'site tests (Playwright)',
    ...(chromium ? {} : { fix: apt('chromium') }),
  });
  return checks;
}

export const registerDoctor: RegisterCommand = (program, env) => {
  program
    .command('doctor')
    .description(
      'check node, git, python + torch, bubblewrap and chromium; print the command that fixes what is missing',
    )
    .option(
      '-c, --config <file>',
      'corpus config whose environment (or `python`) to check (default: the default environment)',
    )
    .option('--json', 'print one JSON document on stdout for machines')
    .action((opts: { config?: string; json?: boolean }) => {
      const io = env.io(Boolean(opts.json));
      const checks = runDoctor(opts.config ? loadConfig(opts.config) : undefined);
      const ok = checks.every((c) => c.found);
      if (!ok) env.setExitCode(1);
      if (opts.json) return void io.out(JSON.stringify({ ok, checks }, null, 2) + '\n');
      io.out(
        renderTable(
          ['tool', 'status', 'detail', 'fix'],
          checks.map((c) => [c.name, c.found ? 'found' : 'MISSING', c.detail, c.fix ?? '']),
        ),
      );
      io.out(
        ok
          ? 'all tools found\n'
          : `missing: ${checks
              .filter((c) => !c.found)
              .map((c) => c.name)
              .join(', ')} — run the commands in the fix column\n`,
      );
    });
};
