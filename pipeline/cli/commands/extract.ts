// `nnblocks extract`: writes one importable, dependency-closed module per block plus manifest.json — on the
// user's machine only (the published site never carries upstream code).
import { resolve } from 'node:path';
import type { RegisterCommand } from '../env.ts';
import { extractToFolder } from '../../run/extract-step.ts';
import { prepare } from '../../run/prepare.ts';
import { selectBlocks } from '../../run/select.ts';
import { NnblocksError } from '../../diagnostics.ts';
import { renderTable } from '../table.ts';
import { open, printDiagnostics, printJson, withCommonOptions } from './shared.ts';

export const registerExtract: RegisterCommand = (program, env) => {
  withCommonOptions(
    program.command('extract').description('write one importable module per block (local use only) and manifest.json'),
  )
    .argument(
      '[names...]',
      'block names, qualified names or ids (globs allowed); a name matching several blocks extracts all',
    )
    .option('--all', 'extract every non-abstract block')
    .option('--source <id>', 'only blocks of this source')
    .requiredOption('-o, --out <dir>', 'output folder')
    .action(
      async (
        names: string[],
        opts: { config: string; json?: boolean; all?: boolean; source?: string; out: string },
      ) => {
        const io = env.io(Boolean(opts.json));
        if (!opts.all && names.length === 0) {
          throw new NnblocksError(
            'name the blocks to extract, or pass --all',
            'extract',
            'e.g. `nnblocks extract BasicBlock --out out/` or `nnblocks extract --all --out out/`',
          );
        }
        const run = open(io, opts.config);
        try {
          const p = await prepare(run);
          const blocks = selectBlocks(p.discovered.blocks, { names, source: opts.source });
          if (blocks.length === 0) {
            env.setExitCode(1);
            io.err(`no block matches ${names.join(' ') || '(all)'}; list them with \`nnblocks blocks\`\n`);
            return;
          }
          const outDir = resolve(opts.out);
          const { manifest, extracted } = await extractToFolder(run, p, blocks, outDir);
          const diagnostics = extracted.flatMap((e) => e.diagnostics);
          if (opts.json)
            return printJson(io, {
              manifest,
              blocks: extracted.map((e) => ({
                ...e.entry,
                ms: Math.round(e.ms * 100) / 100,
                diagnostics: e.diagnostics,
              })),
            });
          io.out(
            renderTable(
              ['id', 'file', 'class'],
              extracted.map((e) => [e.entry.id, e.entry.file, e.entry.className]),
            ),
          );
          io.out(`${extracted.length} modules written; manifest: ${manifest}\n`);
          printDiagnostics(io, diagnostics);
        } finally {
          run.store.close();
        }
      },
    );
};
