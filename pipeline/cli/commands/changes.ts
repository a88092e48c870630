// `nnblocks changes`: compare the catalog just built with the previous published one and write the change feed
// (changes.json and changes.atom). An unreachable previous catalog is a warning, never a failure.
import { InvalidArgumentError } from 'commander';
import type { RegisterCommand } from '../env.ts';
import { writeChanges } from '../../run/changes-step.ts';
import { diagnosticText, printable } from '../printable.ts';
import { DEFAULT_CONFIG, printJson } from './shared.ts';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('a positive number of milliseconds, e.g. 30000');
  return n;
}

export const registerChanges: RegisterCommand = (program, env) => {
  program
    .command('changes')
    .description('write the change feed (changes.json, changes.atom) against the previous published catalog')
    .option('-c, --config <file>', 'corpus config whose catalog folder is the default of --catalog', DEFAULT_CONFIG)
    .option('--catalog <dir>', 'the catalog just built (default: where `nnblocks build` writes it for --config)')
    .option(
      '--previous <url|file|dir>',
      'previous catalog: site URL, /api/catalog.json URL or file, built site or catalog directory',
    )
    .option(
      '--site-url <url>',
      'published site root for Atom links and ids (default: from --previous when it is a URL)',
    )
    .option('--out <dir>', 'where to write the feed (default: the catalog directory)')
    .option('--timeout <ms>', 'per-request timeout when fetching', positiveInt, 30_000)
    .option('--json', 'print one JSON document on stdout for machines')
    .action(
      async (opts: {
        config: string;
        catalog?: string;
        previous?: string;
        siteUrl?: string;
        out?: string;
        timeout: number;
        json?: boolean;
      }) => {
        const io = env.io(Boolean(opts.json));
        const { feed, files, errors } = await writeChanges({
          catalogDir: opts.catalog,
          configPath: opts.config,
          previous: opts.previous,
          siteUrl: opts.siteUrl,
          out: opts.out,
          read: { timeoutMs: opts.timeout },
        });
        if (errors.length) env.setExitCode(1);
        for (const e of errors) io.err(`error: ${printable(e)}\n`);
        for (const d of feed.diagnostics) io.err(diagnosticText(d));
        if (opts.json)
          return printJson(io, {
            files,
            previous: feed.previous,
            summary: feed.summary,
            diagnostics: feed.diagnostics,
          });
        const s = feed.summary;
        io.out(
          feed.previous
            ? `compared with ${feed.previous.origin} (${feed.previous.blocks} blocks): ${s.new} new, ${s.removed} removed, ${s.moved} moved, ${s.changed} changed, ${s.upstream} upstream\n`
            : `no previous catalog: baseline of ${feed.current.blocks} blocks\n`,
        );
        io.out(`wrote ${files.join(', ')}\n`);
      },
    );
};
