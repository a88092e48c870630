// Astro integration: indexes the built site with Pagefind's Node API when `astro build` finishes, so that the
// build alone yields a searchable site (no separate CLI step to forget). Modelled on Starlight's.
// Only block pages carry `data-pagefind-body`, so listings, stats and the home page stay out of the index. Then the
// search page's name index learns Pagefind's page ids (name-index-ids.ts).
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import * as pagefind from 'pagefind';
import { attachPagefindIds } from './name-index-ids.ts';

export default function pagefindIntegration(): AstroIntegration {
  let base = '/';
  return {
    name: 'nnblocks-pagefind',
    hooks: {
      'astro:config:done': ({ config }) => {
        base = config.base;
      },
      'astro:build:done': async ({ dir, logger }) => {
        const site = fileURLToPath(dir);
        const started = Date.now();
        try {
          const { index, errors: createErrors } = await pagefind.createIndex({});
          if (!index) throw new Error(`Pagefind could not start: ${createErrors.join('; ')}`);
          const added = await index.addDirectory({ path: site });
          if (added.errors.length > 0) throw new Error(`Pagefind indexing failed: ${added.errors.join('; ')}`);
          const written = await index.writeFiles({ outputPath: fileURLToPath(new URL('./pagefind', dir)) });
          if (written.errors.length > 0) throw new Error(`Pagefind could not write: ${written.errors.join('; ')}`);
          logger.info(`indexed ${added.page_count} pages in ${Date.now() - started} ms`);
        } catch (err) {
          // A site without search is broken; fail the build with the fix instead of shipping it.
          logger.error(
            `${(err as Error).message}. Hint: check that the pagefind package installed its binary (npm ci).`,
          );
          throw err;
        } finally {
          await pagefind.close();
        }
        const named = attachPagefindIds(site, base);
        logger.info(`search name index: ${named.blocks} named blocks in ${named.shards} shards`);
      },
    },
  };
}
