// `nnblocks sources`: fetch or update every source of the corpus config, then show id, kind, ref, commit, files, status.
import type { RegisterCommand } from '../env.ts';
import { corpusSources, type SourceSnapshot } from '../../run/sources-step.ts';
import { terminalContext } from '../terminal.ts';
import { diagnosticText, printable } from '../printable.ts';
import { renderTable } from '../table.ts';

/** What the ref and commit columns show for each kind: git ref + commit, python tag + version, path commit. */
function refCells(s: SourceSnapshot): [string, string] {
  const commit = s.commit ? s.commit.slice(0, 12) + (s.dirty ? '+dirty' : '') : '';
  if (s.kind === 'python') return [s.tag ?? '', s.version ? `${s.distribution} ${s.version}` : ''];
  return [s.ref ?? '', commit];
}

// Options are declared here rather than through shared.ts so `nnblocks sources` never loads the later stages.
export const registerSources: RegisterCommand = (program, env) => {
  program
    .command('sources')
    .description('fetch or update the sources of the corpus config and list them')
    .option('-c, --config <file>', 'corpus config (JSON)', 'content/corpus.json')
    .option('--json', 'print one JSON document on stdout for machines')
    .action(async (opts: { config: string; json?: boolean }) => {
      const io = env.io(Boolean(opts.json));
      const { config, sources: result } = await corpusSources(opts.config, terminalContext(io));
      const failed = result.snapshots.filter((s) => s.status === 'failed');
      if (failed.length) env.setExitCode(1);
      if (opts.json) {
        io.out(
          JSON.stringify(
            {
              config: config.configPath,
              cacheDir: config.cacheDir,
              snapshots: result.snapshots,
              diagnostics: result.diagnostics,
            },
            null,
            2,
          ) + '\n',
        );
        return;
      }
      io.out(
        renderTable(
          ['id', 'kind', 'ref', 'commit', 'files', 'discover', 'skipped', 'license', 'status'],
          result.snapshots.map((s) => [
            s.id,
            s.kind,
            ...refCells(s),
            s.files.length,
            s.files.filter((f) => f.discover !== false).length,
            s.skipped.length,
            s.license.spdx ?? '?',
            s.status,
          ]),
        ),
      );
      for (const d of result.diagnostics) io.err(diagnosticText(d));
      const skipped = result.snapshots.flatMap((s) =>
        // Upstream file names may hold newlines or terminal escapes: quoted, and printable (JSON leaves C1 and
        // U+2028 as they are).
        s.skipped.map(
          (k) =>
            `  ${printable(JSON.stringify(`${s.id}/${k.path}`))}: ${k.reason}${k.detail ? ` (${printable(JSON.stringify(k.detail))})` : ''}`,
        ),
      );
      if (skipped.length)
        io.err(
          `skipped files:\n${skipped.slice(0, 20).join('\n')}${skipped.length > 20 ? `\n  ... and ${skipped.length - 20} more (see --json)` : ''}\n`,
        );
    });
};
