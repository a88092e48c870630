// /api/stats.json: the headline figures, per-repository figures and de-duplication table (stats.json),
// byte for byte (schema: schemas/catalog/stats.schema.json). Without one the empty response makes Astro skip the
// file rather than fail the build.
import type { APIRoute } from 'astro';
import { corpusJsonText } from '../../lib/catalog.ts';

export const GET: APIRoute = () => {
  const text = corpusJsonText('stats.json');
  if (text === undefined) return new Response(null, { status: 404 });
  return new Response(text, { headers: { 'Content-Type': 'application/json' } });
};
