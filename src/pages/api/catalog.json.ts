// /api/catalog.json: every block's summary with links, plus the source and headline records.
import type { APIRoute } from 'astro';
import { CATALOG_FORMAT_VERSION } from '../../../pipeline/contract/vocabulary.ts';
import { blocks, sources, stats } from '../../lib/catalog.ts';
import { blockHref, blockJsonHref } from '../../lib/routes.ts';

export const GET: APIRoute = () => {
  const body = {
    formatVersion: CATALOG_FORMAT_VERSION,
    stats: stats(),
    sources: [...sources().values()],
    blocks: blocks().map((b) => ({ ...b, page: blockHref(b.slug), json: blockJsonHref(b.slug) })),
  };
  return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
};
