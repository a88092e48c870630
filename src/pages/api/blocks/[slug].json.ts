// /api/blocks/<slug>.json: the block's catalog file, byte for byte.
import type { APIRoute, GetStaticPaths } from 'astro';
import { blockJsonText, blocks } from '../../../lib/catalog.ts';

export const getStaticPaths = (() => blocks().map((b) => ({ params: { slug: b.slug } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ params }) =>
  new Response(blockJsonText(params.slug!), { headers: { 'Content-Type': 'application/json' } });
