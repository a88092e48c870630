// /search/names/<n>.json: one shard of the search page's name index (src/lib/name-index.ts). Pagefind's page ids are
// added to it after indexing (src/integrations/name-index-ids.ts).
import type { APIRoute, GetStaticPaths } from 'astro';
import { siteNameIndex } from '../../../lib/name-index.ts';

export const getStaticPaths = (() =>
  siteNameIndex().map((_, n) => ({ params: { shard: String(n) } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ params }) =>
  new Response(JSON.stringify(siteNameIndex()[Number(params.shard)]), {
    headers: { 'Content-Type': 'application/json' },
  });
