// `nnblocks changes`: the change feed (changes.json, changes.atom) of a built catalog against the previous published
// one (feed/feed.ts), written beside the catalog or into a folder checked before any work. See docs/ci.md.
import { writeChangeFeed, type FeedResult } from '../feed/feed.ts';
import type { ReadOptions } from '../feed/read-snapshot.ts';
import { writableDir } from '../util/output-dir.ts';

export interface ChangesOptions {
  /** The catalog just built. */
  catalogDir: string;
  /** The previous catalog: a site URL, an `/api/catalog.json` URL or file, a built site or a catalog folder. */
  previous?: string;
  /** The published site root for Atom links and ids; absent, the previous one's when that is a URL. */
  siteUrl?: string;
  /** Where the two files go (`--out`); absent, the catalog folder. */
  out?: string;
  read?: ReadOptions;
}

export async function writeChanges(opts: ChangesOptions): Promise<FeedResult> {
  const outDir = opts.out === undefined ? undefined : writableDir(opts.out, '--out', 'changes');
  return writeChangeFeed({
    catalogDir: opts.catalogDir,
    previous: opts.previous,
    siteUrl: opts.siteUrl,
    outDir,
    read: opts.read,
  });
}
