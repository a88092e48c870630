// /changes.json: the change feed as data (schema: schemas/catalog/changes.schema.json, generated from
// pipeline/contract/changes.ts), published unchanged.
// Without a feed the empty response makes Astro skip the file rather than fail the build.
import type { APIRoute } from 'astro';
import { changeJsonText } from '../lib/changes.ts';

export const GET: APIRoute = () => {
  const text = changeJsonText();
  if (text === undefined) return new Response(null, { status: 404 });
  return new Response(text, { headers: { 'Content-Type': 'application/json' } });
};
