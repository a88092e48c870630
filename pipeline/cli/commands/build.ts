// `nnblocks build`: runs every stage and writes the catalog (beside the config by default), checked against the
// schemas; with --site, the site too. Output folders are checked before any work (run/outputs.ts).
import type { RegisterCommand } from '../env.ts';
import { buildCatalog } from '../../run/build.ts';
import type { Device } from '../../run/device.ts';
import { buildOutputs } from '../../run/outputs.ts';
import { parseShard } from '../../run/shard.ts';
import { buildSiteStep, type BuiltSite } from '../../run/site-step.ts';
import { selfCommand } from '../../util/self-command.ts';
import { shellWord } from '../../util/shell-word.ts';
import { printable } from '../printable.ts';
import { renderTable } from '../table.ts';
import {
  deviceOption,
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
    .option('-o, --out <dir>', 'catalog folder (default: catalog/ beside the config)')
    .option('--no-validate', 'skip validation (validation fields stay absent)')
    .option('--no-sandbox', 'run upstream code without bubblewrap (not recommended)')
    .addOption(deviceOption())
    .option('--site [dir]', 'then build the static site from the catalog (default: beside the config, docs/config.md)')
    .option('--base <path>', 'base path of the site, e.g. /nnblocks for a GitHub Pages project site')
    .option('--shard <K/N>', 'build only shard K of N into OUT/partial.json; finish with `nnblocks merge`')
    .action(
      async (opts: {
        config: string;
        json?: boolean;
        out?: string;
        validate: boolean;
        sandbox: boolean;
        device?: Device;
        shard?: string;
        site?: string | boolean;
        base?: string;
      }) => {
        const io = env.io(Boolean(opts.json));
        if (!opts.sandbox && opts.validate) warnNoSandbox(io);
        const shard = opts.shard ? parseShard(opts.shard) : undefined;
        const { outDir, siteDir } = buildOutputs(opts.config, {
          out: opts.out,
          site: opts.site,
          shard: Boolean(opts.shard),
        });
        const run = open(io, opts.config);
        try {
          const s = await buildCatalog(run, {
            outDir,
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
          let site: BuiltSite | null = null;
          if (siteDir && s.errors.length === 0) {
            site = await buildSiteStep(run.config, s.catalogDir, siteDir, opts.base);
            s.timings.site = site.ms;
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
            io.out(
              `site: ${site.pages} pages in ${site.dir} (preview: ${selfCommand()} preview ${shellWord(site.dir)})\n`,
            );
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
