// `nnblocks environment`: resolves (creating, the first time on a machine) the validation environment of the corpus
// config and shows it: interpreter, torch, CUDA, the installed set, the requirements installed for the corpus and
// those that could not be, with why.
import type { RegisterCommand } from '../env.ts';
import { corpusSources } from '../../run/sources-step.ts';
import { terminalContext } from '../terminal.ts';
import { renderTable } from '../table.ts';
import { DEFAULT_CONFIG, printDiagnostics, printJson } from './shared.ts';

export const registerEnvironment: RegisterCommand = (program, env) => {
  program
    .command('environment')
    .description('create (once) and show the validation environment: python, torch, CUDA, installed requirements')
    .option('-c, --config <file>', 'corpus config (JSON)', DEFAULT_CONFIG)
    .option('--json', 'print one JSON document on stdout for machines')
    .action(async (opts: { config: string; json?: boolean }) => {
      const io = env.io(Boolean(opts.json));
      const { environment } = await corpusSources(opts.config, terminalContext(io));
      const r = await environment();
      if (!r.ok) env.setExitCode(1);
      if (opts.json)
        return printJson(io, {
          ok: r.ok,
          ...(r.ok ? { python: r.environment.python, environment: r.environment.report } : {}),
          diagnostics: r.diagnostics,
        });
      if (r.ok) {
        const e = r.environment.report;
        io.out(
          renderTable(
            ['field', 'value'],
            [
              ['kind', e.kind],
              ['interpreter', r.environment.python],
              ['python', e.python],
              ['torch', e.torch],
              ['torchvision', e.torchvision ?? '-'],
              ['CUDA (build)', e.cuda ?? 'none (CPU build)'],
              ['packages', e.packages],
              ['digest', e.digest.slice(0, 16)],
            ],
          ),
        );
        if (e.requirements.length)
          io.out(
            '\n' +
              renderTable(
                ['requirement', 'installed', 'asked by'],
                e.requirements.map((q) => [q.name, q.version ?? '?', q.from.join(', ')]),
              ),
          );
        if (e.missing.length)
          io.out(
            '\n' +
              renderTable(
                ['missing', 'spec', 'asked by', 'why'],
                e.missing.map((m) => [m.name, m.spec, m.from.join(', '), m.reason]),
              ),
          );
      }
      printDiagnostics(io, r.diagnostics);
    });
};
