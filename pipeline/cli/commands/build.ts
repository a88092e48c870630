// `nnblocks build`: runs every stage and writes the catalog (content/catalog/ by default), checked against the schemas.
import { resolve } from 'node:path';
import type { RegisterCommand } from '../env.ts';
import { buildCatalog } from '../../run/build.ts';
import { parseShard } from '../../run/shard.ts';
import { buildSite } from '../../site/build-site.ts';
import { printable } from '../printable.ts';
import { renderTable } from '../table.ts';
import {
  open,
  printDiagnostics,
  printFailed,
  printFailures,
  printJson,
  warnNoSandbox,
  withCommonOptions,
} from './shared.ts';

export const registerBuild: RegisterCommand = (program, env) => {
  withCommonOptions(
    program
      .command('build')
      .description('run every stage and write the catalog data (neutral specs + provenance, no upstream code)'),
  )
    .option('-o, --out <dir>', 'catalog folder', 'content/catalog')
    .option('--no-validate', 'skip validation (validation fields stay absent)')
    .option('--no-sandbox', 'run upstream code without bubblewrap (not recommended)')
    .option('--device <device>', 'auto | cpu | cuda', 'auto')
    .option('--site [dir]', 'then build the static site from the catalog (default dir: dist)')
    .option('--base <path>', 'base path of the site, e.g. /nnblocks for a GitHub Pages project site')
    .option('--shard <K/N>', 'build only shard K of N into OUT/partial.json; finish with `nnblocks merge`')
    .action(
      async (opts: {
        config: string;
        json?: boolean;
        out: string;
        validate: boolean;
        sandbox: boolean;
        device: 'auto' | 'cpu' | 'cuda';
        shard?: string;
        site?: string | boolean;
        base?: string;
      }) => {
        const io = env.io(Boolean(opts.json));
        if (!opts.sandbox && opts.validate) warnNoSandbox(io);
        const run = open(io, opts.config);
        try {
          const shard = opts.shard ? parseShard(opts.shard) : undefined;
          const s = await buildCatalog(run, {
            outDir: resolve(opts.out),
            noValidate: !opts.validate,
            noSandbox: !opts.sandbox,
            device: opts.device,
            shard,
          });
          if (
            s.errors.length ||
            s.failedSources.length ||
            s.diagnostics.some((d) => d.code === 'validation-unavailable')
          )
            env.setExitCode(1);
          let site: { dir: string; pages: number; ms: number } | null = null;
          if (opts.site && !opts.shard && s.errors.length === 0) {
            const dir = resolve(typeof opts.site === 'string' ? opts.site : 'dist');
            const r = await buildSite({
              catalogDir: s.catalogDir,
              outDir: dir,
              base: opts.base ?? process.env.NNBLOCKS_BASE ?? run.config.site?.base ?? '/',
              ...(process.env.NNBLOCKS_SITE || run.config.site?.url
                ? { site: process.env.NNBLOCKS_SITE || run.config.site?.url }
                : {}),
            });
            site = { dir, ...r };
            s.timings.site = r.ms;
          }
          if (opts.json) {
            // Why it exits 1, on stderr for the log; stdout stays one JSON document.
            printFailed(io, s.diagnostics, s.failedSources);
            return printJson(io, {
              ...s,
              site,
              timings: Object.fromEntries(Object.entries(s.timings).map(([k, v]) => [k, Math.round(v)])),
            });
          }
          io.out(
            renderTable(
              ['stage', 'ms'],
              Object.entries(s.timings).map(([k, v]) => [k, Math.round(v)]),
            ),
          );
          const rate = s.validated
            ? ` (${((100 * s.passed) / s.validated).toFixed(1)}% of ${s.validated} validated)`
            : '';
          io.out(
            `${s.blocks} blocks, ${s.passed} passed${rate}; unique: ${s.unique ? `${s.unique.exact} exact, ${s.unique.lexical} lexical, ${s.unique.structural} structural` : 'n/a'}\n`,
          );
          io.out(`catalog: ${s.catalogDir}\n`);
          if (site)
            io.out(`site: ${site.pages} pages in ${site.dir} (preview: npx astro preview, or serve that folder)\n`);
          printDiagnostics(io, s.diagnostics);
          printFailures(io, s.failures);
          // A schema error quotes the value it refused: upstream's, often.
          for (const e of s.errors.slice(0, 20)) io.err(`schema: ${printable(e)}\n`);
          printFailed(io, s.diagnostics, s.failedSources);
        } finally {
          run.store.close();
        }
      },
    );
};
