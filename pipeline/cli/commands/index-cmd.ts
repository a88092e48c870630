// `nnblocks index`: fetch sources, parse every Python file into the SQLite index, report throughput and reuse.
import type { RegisterCommand } from '../env.ts';
import { prepare } from '../../run/prepare.ts';
import { renderTable } from '../table.ts';
import { open, printDiagnostics, printJson, withCommonOptions } from './shared.ts';

export const registerIndex: RegisterCommand = (program, env) => {
  withCommonOptions(
    program.command('index').description('parse every Python file of the corpus into the SQLite index (incremental)'),
  ).action(async (opts: { config: string; json?: boolean }) => {
    const io = env.io(Boolean(opts.json));
    const run = open(io, opts.config);
    try {
      const p = await prepare(run);
      const s = p.index.stats;
      const summary = {
        files: s.files,
        bytes: s.bytes,
        parsed: s.parsed,
        reused: s.reused,
        ms: Math.round(s.ms),
        mbPerSec: Math.round(s.mbPerSec * 100) / 100,
        blocks: p.discovered.blocks.length,
        diagnostics: p.diagnostics.length,
        perSource: s.perSource,
      };
      if (opts.json) return printJson(io, { ...summary, diagnosticList: p.diagnostics });
      io.out(
        renderTable(
          ['source', 'files', 'discover', 'bytes', 'parsed', 'reused', 'diagnostics'],
          s.perSource.map((x) => [x.id, x.files, x.discover, x.bytes, x.parsed, x.reused, x.diagnostics]),
        ),
      );
      io.out(
        `${s.files} files, ${(s.bytes / 1e6).toFixed(2)} MB, ${s.parsed} parsed, ${s.reused} reused in ${summary.ms} ms (${summary.mbPerSec} MB/s); ${summary.blocks} blocks\n`,
      );
      printDiagnostics(io, p.diagnostics);
    } finally {
      run.store.close();
    }
  });
};
