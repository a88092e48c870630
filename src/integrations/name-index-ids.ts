// After Pagefind has written its index: gives every block of the search page's name index (/search/names/*.json,
// src/lib/name-index.ts) the id Pagefind knows its page by, so the page can tell at once which named blocks are
// among Pagefind's results, without downloading each result's data. The ids exist only once Pagefind has run, and
// Pagefind's Node API does not return them: they are read from its fragments, the files a result's data comes from
// (`fragment/<id>.pf_fragment`, gzipped `pagefind_dcd` + JSON with the page's `url`; several pages to one file when
// Pagefind groups them, keyed by id).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { NameShard } from '../lib/name-index-format.ts';

/** What Pagefind stored of each page: its id, URL and text (a result's excerpt is cut from `content`). */
export function pagefindFragments(pagefindDir: string): { id: string; url: string; content: string }[] {
  const dir = join(pagefindDir, 'fragment');
  const out: { id: string; url: string; content: string }[] = [];
  const add = (id: string, f: { url?: unknown; content?: unknown }) => {
    if (typeof f?.url === 'string') out.push({ id, url: f.url, content: String(f.content ?? '') });
  };
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.pf_fragment'))) {
    const text = gunzipSync(readFileSync(join(dir, file))).toString('utf8');
    const data = JSON.parse(text.slice(text.indexOf('{'))) as Record<string, unknown>;
    if (typeof data.url === 'string') add(file.slice(0, -'.pf_fragment'.length), data);
    else for (const [id, f] of Object.entries(data)) add(id, f as { url?: unknown });
  }
  return out;
}

/**
 * Writes the ids into every shard under `siteDir/search/names/`. A named block whose page Pagefind did not index is
 * our bug (the index and the pages come from the same catalog): it stops the build.
 */
export function attachPagefindIds(siteDir: string, base: string): { shards: number; blocks: number } {
  const dir = join(siteDir, 'search', 'names');
  if (!existsSync(dir)) return { shards: 0, blocks: 0 };
  const ids = new Map(pagefindFragments(join(siteDir, 'pagefind')).map((f) => [f.url, f.id]));
  const prefix = base.replace(/\/+$/, '');
  let shards = 0;
  let named = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const shard = JSON.parse(readFileSync(join(dir, file), 'utf8')) as NameShard;
    for (const b of shard.blocks) {
      const id = ids.get(b.url.startsWith(`${prefix}/`) ? b.url.slice(prefix.length) : b.url);
      if (!id) throw new Error(`the search name index names ${b.url}, a page Pagefind did not index`);
      b.id = id;
      named++;
    }
    writeFileSync(join(dir, file), JSON.stringify(shard));
    shards++;
  }
  return { shards, blocks: named };
}
