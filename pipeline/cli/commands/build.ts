// `nnblocks build`: runs every stage and writes the catalog (beside the config by default), checked against the
// schemas; with --site, the site too. Output folders are checked before any work (output-dir.ts).
import { dirname, join, relative } from 'node:path';
import type { RegisterCommand } from '../env.ts';
import { loadConfig } from '../../config/load.ts';
import { defaultCatalogDir, defaultSiteDir } from '../../config/outputs.ts';
import { NnblocksError } from '../../contract/diagnostics.ts';
import { buildCatalog } from '../../run/build.ts';
import { parseShard } from '../../run/shard.ts';
import { buildSite } from '../../site/build-site.ts';
import { within, writableDir } from '../output-dir.ts';
import { printable } from '../printable.ts';
import { selfCommand } from '../self-command.ts';
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
    .option('-o, --out <dir>', 'catalog folder (default: catalog/ beside the config)')
    .option('--no-validate', 'skip validation (validation fields stay absent)')
    .option('--no-sandbox', 'run upstream code without bubblewrap (not recommended)')
    .option('--device <device>', 'auto | cpu | cuda', 'auto')
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
        device: 'auto' | 'cpu' | 'cuda';
        shard?: string;
        site?: string | boolean;
        base?: string;
      }) => {
        const io = env.io(Boolean(opts.json));
        if (!opts.sandbox && opts.validate) warnNoSandbox(io);
        const shard = opts.shard ? parseShard(opts.shard) : undefined;
        const { outDir, siteDir } = outputsOf(opts);
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
          let site: { dir: string; pages: number; ms: number } | null = null;
          if (siteDir && s.errors.length === 0) {
            const dir = siteDir;
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

/**
 * The catalog and site folders, defaults beside the config, checked before any work: each writable, and the site
 * (emptied by Astro before it builds) holding neither the catalog, the config nor the cache.
 */
function outputsOf(opts: { config: string; out?: string; site?: string | boolean; shard?: string }): {
  outDir: string;
  siteDir: string | null;
} {
  const config = loadConfig(opts.config);
  const outDir = writableDir(opts.out ?? defaultCatalogDir(config), '--out', 'build');
  if (!opts.site || opts.shard) return { outDir, siteDir: null };
  const siteDir = writableDir(typeof opts.site === 'string' ? opts.site : defaultSiteDir(config), '--site', 'build');
  const held = [
    ['the config', config.configPath],
    ['the cache (cacheDir)', config.cacheDir],
    ['the catalog (--out)', outDir],
  ].find(([, path]) => within(path, siteDir));
  if (held)
    throw new NnblocksError(
      `--site ${siteDir}: holds ${held[0]} (${held[1]}), and the site folder is emptied before each site build`,
      'build',
      `pass a folder of its own for --site, e.g. --site ${shellWord(join(dirname(config.configPath), 'site'))}`,
    );
  return { outDir, siteDir };
}

/** A folder as the user would type it: relative to the working folder when inside it, quoted when it needs it. */
function shellWord(path: string): string {
  const rel = relative(process.cwd(), path);
  const word = rel && !rel.startsWith('..') ? rel : path;
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
