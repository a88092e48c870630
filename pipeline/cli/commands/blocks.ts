// `nnblocks blocks`: list discovered blocks (id, name, module, path, line, base chain, abstract).
import type { RegisterCommand } from '../env.ts';
import { prepare } from '../../run/prepare.ts';
import { selectBlocks } from '../../run/select.ts';
import { renderTable } from '../table.ts';
import { open, printJson, withCommonOptions } from './shared.ts';

export const registerBlocks: RegisterCommand = (program, env) => {
  withCommonOptions(
    program.command('blocks').description('list the blocks: nn.Module subclasses with a usable forward'),
  )
    .option('-f, --filter <pattern>', 'only blocks whose name, qualified name or id matches (glob: * and ?)')
    .action(async (opts: { config: string; json?: boolean; filter?: string }) => {
      const io = env.io(Boolean(opts.json));
      const run = open(io, opts.config);
      try {
        const p = await prepare(run);
        // A bare word lists every block containing it; a glob is taken as written.
        const pat = opts.filter && !/[*?]/.test(opts.filter) ? `*${opts.filter}*` : opts.filter;
        const blocks = selectBlocks(p.discovered.blocks, { names: pat ? [pat] : [], abstract: true });
        const rows = blocks.map((b) => ({
          id: b.id,
          name: b.name,
          qualname: b.qualname,
          module: b.module,
          path: b.path,
          line: b.line,
          baseChain: b.baseChain,
          abstract: b.abstract,
        }));
        if (opts.json) return printJson(io, { blocks: rows, withoutForward: p.discovered.withoutForward });
        io.out(
          renderTable(
            ['id', 'path:line', 'bases', 'abstract'],
            rows.map((r) => [
              r.id,
              `${r.path}:${r.line}`,
              r.baseChain.slice(0, 2).join(' < '),
              r.abstract ? 'yes' : '',
            ]),
          ),
        );
        io.out(`${rows.length} blocks (${rows.filter((r) => r.abstract).length} abstract)\n`);
      } finally {
        run.store.close();
      }
    });
};
