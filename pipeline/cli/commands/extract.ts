// `nnblocks extract`: writes the blocks as one importable package (several blocks: shared definitions written once)
// or one dependency-closed module (a single block, or --standalone) plus manifest.json — on the user's machine
// only (the published site never carries upstream code).
import { resolve } from 'node:path';
import type { RegisterCommand } from '../env.ts';
import { DEFAULT_PACKAGE, extractPackageToFolder, extractToFolder } from '../../run/extract-step.ts';
import { prepare } from '../../run/prepare.ts';
import { selectBlocks } from '../../run/select.ts';
import { NnblocksError } from '../../contract/diagnostics.ts';
import { renderTable } from '../table.ts';
import { open, printDiagnostics, printJson, withCommonOptions } from './shared.ts';

export const registerExtract: RegisterCommand = (program, env) => {
  withCommonOptions(
    program
      .command('extract')
      .description(
        'write the blocks as one importable package (one block: one standalone module), local use only, and manifest.json',
      ),
  )
    .argument(
      '[names...]',
      'block names, qualified names or ids (globs allowed); a name matching several blocks extracts all',
    )
    .option('--all', 'extract every non-abstract block')
    .option('--source <id>', 'only blocks of this source')
    .requiredOption('-o, --out <dir>', 'output folder')
    .option('--package <name>', 'name of the package several blocks are written to', DEFAULT_PACKAGE)
    .option('--standalone', 'one self-contained module per block (as validation runs them) instead of a package')
    .action(
      async (
        names: string[],
        opts: {
          config: string;
          json?: boolean;
          all?: boolean;
          source?: string;
          out: string;
          package: string;
          standalone?: boolean;
        },
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
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.package)) {
            throw new NnblocksError(
              `--package ${opts.package} is not a Python identifier`,
              'extract',
              'e.g. --package blocks',
            );
          }
          if (blocks.length > 1 && !opts.standalone) {
            const { manifest, extracted } = await extractPackageToFolder(run, p, blocks, outDir, opts.package);
            const entries = extracted.blocks.filter((e) => e.entry.module);
            const diagnostics = [...extracted.blocks.flatMap((e) => e.diagnostics), ...extracted.diagnostics];
            if (opts.json)
              return printJson(io, {
                manifest,
                package: extracted.dir,
                modules: extracted.modules.length,
                blocks: extracted.blocks.map((e) => ({
                  ...e.entry,
                  ms: Math.round(e.ms * 100) / 100,
                  diagnostics: e.diagnostics,
                })),
              });
            io.out(
              renderTable(
                ['id', 'module', 'class'],
                entries.map((e) => [e.entry.id, e.entry.module, e.entry.className]),
              ),
            );
            io.out(
              `${entries.length} blocks in package ${extracted.dir} (${extracted.modules.length} modules); manifest: ${manifest}\n`,
            );
            io.out(
              `use: sys.path.insert(0, ${JSON.stringify(outDir)}); from ${entries[0]?.entry.module ?? opts.package} import ${entries[0]?.entry.className ?? '...'}\n`,
            );
            printDiagnostics(io, diagnostics);
            return;
          }
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
