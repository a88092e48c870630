// /api/methods.json: the taxonomy's methods with their implementations and papers (methods.json),
// byte for byte (schema: schemas/catalog/methods.schema.json). Without one the empty response makes Astro skip the
// file rather than fail the build.
import type { APIRoute } from 'astro';
import { corpusJsonText } from '../../lib/catalog.ts';

export const GET: APIRoute = () => {
  const text = corpusJsonText('methods.json');
  if (text === undefined) return new Response(null, { status: 404 });
  return new Response(text, { headers: { 'Content-Type': 'application/json' } });
};
