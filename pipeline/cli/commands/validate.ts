// `nnblocks validate`: builds, runs and back-propagates blocks in the sandbox; summary by status and failure class
// with the pass rate's Wilson 95% interval. Results are cached by module hash, recipe, torch version and device.
import type { RegisterCommand } from '../env.ts';
import { join } from 'node:path';
import { runExtraction } from '../../run/extract-step.ts';
import { prepare } from '../../run/prepare.ts';
import { selectBlocks } from '../../run/select.ts';
import type { Device } from '../../run/device.ts';
import { runValidation } from '../../run/validate-step.ts';
import { renderTable } from '../table.ts';
import {
  deviceOption,
  open,
  printDiagnostics,
  printFailed,
  printFailures,
  printJson,
  warnNoSandbox,
  withCommonOptions,
} from './shared.ts';

export const registerValidate: RegisterCommand = (program, env) => {
  withCommonOptions(
    program
      .command('validate')
      .description('validate blocks in the sandbox: parse, compile, import, build, forward, backward'),
  )
    .option('--only <names...>', 'only these block names, qualified names or ids (globs allowed)')
    .option('--no-sandbox', 'run upstream code without bubblewrap (not recommended)')
    .addOption(deviceOption())
    .action(async (opts: { config: string; json?: boolean; only?: string[]; sandbox: boolean; device?: Device }) => {
      const io = env.io(Boolean(opts.json));
      if (!opts.sandbox) warnNoSandbox(io);
      const run = open(io, opts.config);
      try {
        const p = await prepare(run);
        const blocks = selectBlocks(p.discovered.blocks, { names: opts.only });
        const extracted = runExtraction(run, p, blocks, {
          outDir: join(run.config.cacheDir, 'extracted'),
        });
        const v = await runValidation(run, p, extracted, { noSandbox: !opts.sandbox, device: opts.device });
        const s = v.summary;
        if (v.diagnostics.some((d) => d.code === 'validation-unavailable')) env.setExitCode(1);
        if (opts.json) {
          // Why it exits 1, on stderr for the log; stdout stays one JSON document.
          printFailed(io, v.diagnostics);
          return printJson(io, { summary: s, sandbox: v.sandbox, records: v.raw, diagnostics: v.diagnostics });
        }
        io.out(renderTable(['status', 'blocks'], Object.entries(s.byStatus)));
        io.out(
          renderTable(
            ['failure class', 'blocks'],
            Object.entries(s.byFailureClass).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0)),
          ),
        );
        if (s.passRate !== null && s.interval) {
          io.out(
            `pass rate ${(100 * s.passRate).toFixed(1)}% (95% Wilson interval ${(100 * s.interval.low).toFixed(1)}–${(100 * s.interval.high).toFixed(1)}%), fidelity identical ${s.fidelity.identical}, differs ${s.fidelity.differs}\n`,
          );
        }
        printFailures(io, v.failures);
        printDiagnostics(io, v.diagnostics);
        printFailed(io, v.diagnostics);
      } finally {
        run.store.close();
      }
    });
};
