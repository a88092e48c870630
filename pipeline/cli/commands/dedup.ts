// `nnblocks dedup`: exact, lexical and structural clusters (plus architecture identity for validated blocks) over
// the blocks' own assembled code, and the corpus report in the layout of the NN-RAG paper's table 4.
import type { RegisterCommand } from '../env.ts';
import { dedupCorpus } from '../../run/dedup-corpus.ts';
import { renderTable } from '../table.ts';
import { open, printJson, withCommonOptions } from './shared.ts';

export const registerDedup: RegisterCommand = (program, env) => {
  withCommonOptions(
    program.command('dedup').description('de-duplicate blocks at three levels and print the uniqueness table'),
  )
    .option('--validated', 'also hash architectures of blocks that pass validation (runs validation, cached)')
    .action(async (opts: { config: string; json?: boolean; validated?: boolean }) => {
      const io = env.io(Boolean(opts.json));
      const run = open(io, opts.config);
      try {
        const d = await dedupCorpus(run, { validated: opts.validated });
        if (opts.json) return printJson(io, d);
        io.out(
          renderTable(
            ['source', 'records in', '- exact', '- lexical', '- structural', 'unique out', 'unique %', 'architectures'],
            d.report.map((r) => [
              r.source,
              r.recordsIn,
              r.removedExact,
              r.removedLexical,
              r.removedStructural,
              r.uniqueOut,
              (100 * r.uniqueShare).toFixed(1),
              `${r.uniqueArchitectures}/${r.withArchitecture}`,
            ]),
          ),
        );
      } finally {
        run.store.close();
      }
    });
};
