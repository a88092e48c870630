// /changes.atom: the change feed's Atom file, published byte for byte as `nnblocks changes` wrote it (its
// rel=self link and entry ids were made for this address). Without a feed the empty response makes Astro skip
// the file, so the build still succeeds and /changes/ says "no change feed yet".
import type { APIRoute } from 'astro';
import { changeAtom } from '../lib/changes.ts';

export const GET: APIRoute = () => {
  const bytes = changeAtom();
  if (!bytes) return new Response(null, { status: 404 });
  return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': 'application/atom+xml; charset=utf-8' } });
};
