// `nnblocks doctor`: checks the tools the pipeline needs (node, git, python + torch, bubblewrap) and those only the
// test suite needs (chromium, shellcheck), and prints, for each one missing, the exact command that installs it.
// It fails (exit 1) only for a missing tool of the group asked for: the catalog's by default, `--for test` both.
import { Option } from 'commander';
import type { RegisterCommand } from '../env.ts';
import { runDoctor, type DoctorCheck, type DoctorGroup } from '../../run/doctor.ts';
import { renderTable } from '../table.ts';

export const registerDoctor: RegisterCommand = (program, env) => {
  program
    .command('doctor')
    .description(
      'check node, git, python + torch and bubblewrap (and, for the tests, chromium and shellcheck); print the command that fixes what is missing',
    )
    .option(
      '-c, --config <file>',
      'corpus config whose environment (or `python`) to check (default: the default environment)',
    )
    .addOption(
      new Option('--for <what>', 'fail when a tool is missing that the catalog needs, or (test) also the tests')
        .choices(['catalog', 'test'])
        .default('catalog'),
    )
    .option('--json', 'print one JSON document on stdout for machines')
    .action((opts: { config?: string; json?: boolean; for: string }) => {
      const io = env.io(Boolean(opts.json));
      const checks = runDoctor(opts.config);
      const needed = (c: DoctorCheck) => c.group === 'catalog' || opts.for === 'test';
      const missing = checks.filter((c) => !c.found && needed(c));
      const ok = missing.length === 0;
      if (!ok) env.setExitCode(1);
      if (opts.json) return void io.out(JSON.stringify({ ok, for: opts.for, checks }, null, 2) + '\n');
      const table = (group: DoctorGroup) =>
        renderTable(
          ['tool', 'status', 'detail', 'fix'],
          checks
            .filter((c) => c.group === group)
            .map((c) => [c.name, c.found ? 'found' : 'MISSING', c.detail, c.fix ?? '']),
        );
      io.out(
        `needed to build the catalog:\n${table('catalog')}\nneeded only by the test suite (npm test):\n${table('test')}\n`,
      );
      const absent = checks.filter((c) => !c.found && !needed(c)).map((c) => c.name);
      io.out(
        ok
          ? `all tools ${opts.for === 'test' ? 'the catalog and the tests need' : 'the catalog needs'} found${absent.length ? ` (${absent.join(', ')} missing: only the tests need ${absent.length === 1 ? 'it' : 'them'})` : ''}\n`
          : `missing: ${missing.map((c) => c.name).join(', ')} — run the commands in the fix column\n`,
      );
    });
};
