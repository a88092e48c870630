// `nnblocks preview [DIR]`: serves a built site folder on localhost until Ctrl-C; by default the folder
// `nnblocks build --site` writes for the config (pipeline/config/outputs.ts), at the base path it was built for.
import { InvalidArgumentError } from 'commander';
import type { RegisterCommand } from '../env.ts';
import { previewSite } from '../../run/site-step.ts';
import { printable } from '../printable.ts';
import { DEFAULT_CONFIG, printJson } from './shared.ts';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number, 0 to 65535');
  return n;
}

export const registerPreview: RegisterCommand = (program, env) => {
  program
    .command('preview')
    .description('serve a built site on localhost (default: the site folder of the config)')
    .argument('[dir]', 'the built site (default: where `nnblocks build --site` writes it for --config)')
    .option('-c, --config <file>', 'corpus config whose site folder to serve when DIR is not given', DEFAULT_CONFIG)
    .option('--base <path>', 'base path to serve under (default: the one the site was built for)')
    .option('--port <n>', 'port; 0 picks a free one', port, 4321)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--json', 'print one JSON document on stdout (url, dir, base) once serving')
    .action(
      async (
        dir: string | undefined,
        opts: { config: string; base?: string; port: number; host: string; json?: boolean },
      ) => {
        const io = env.io(Boolean(opts.json));
        const served = await previewSite({
          dir,
          configPath: opts.config,
          base: opts.base,
          port: opts.port,
          host: opts.host,
        });
        if (opts.json) printJson(io, { url: served.url, dir: served.dir, base: served.base });
        else io.out(`serving ${printable(served.dir)} at ${served.url} (Ctrl-C to stop)\n`);
        await new Promise<void>((done) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            done();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await served.close();
      },
    );
};
