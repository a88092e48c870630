// `nnblocks blocks`: list discovered blocks (id, name, module, path, line, base chain, abstract).
import type { RegisterCommand } from './index.ts';
import { prepare } from '../../pipeline.ts';
import { matchesBlock } from '../../discover/symbols.ts';
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
        let blocks = p.discovered.blocks;
        if (opts.filter) {
          const pat = opts.filter.includes('*') || opts.filter.includes('?') ? opts.filter : `*${opts.filter}*`;
          blocks = blocks.filter((b) => matchesBlock([pat], b));
        }
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
