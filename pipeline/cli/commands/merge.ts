// `nnblocks merge PARTS... --out DIR`: finishes the partials of a sharded build (de-duplication across all blocks,
// summaries) into a catalog byte-identical to an unsharded build of the same inputs.
import type { RegisterCommand } from '../env.ts';
import { mergePartials } from '../../run/merge.ts';
import { printable } from '../printable.ts';
import { DEFAULT_CONFIG, printJson } from './shared.ts';

export const registerMerge: RegisterCommand = (program, env) => {
  program
    .command('merge')
    .description('merge the partial results of `nnblocks build --shard K/N` into the catalog')
    .argument('<parts...>', 'folders (or partial.json files) written by the shards')
    .option('-c, --config <file>', 'corpus config whose catalog folder is the default of --out', DEFAULT_CONFIG)
    .option('-o, --out <dir>', 'catalog folder (default: where `nnblocks build` writes it for --config)')
    .option('--json', 'print one JSON document on stdout for machines')
    .action(async (parts: string[], opts: { config: string; out?: string; json?: boolean }) => {
      const io = env.io(Boolean(opts.json));
      const s = await mergePartials(parts, opts.out, opts.config);
      if (s.errors.length) env.setExitCode(1);
      if (opts.json) return printJson(io, s);
      io.out(`${s.blocks} blocks from ${parts.length} partials; catalog: ${s.catalogDir}\n`);
      for (const e of s.errors.slice(0, 20)) io.err(`schema: ${printable(e)}\n`);
    });
};
