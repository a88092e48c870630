// `nnblocks changes`: the change feed (changes.json, changes.atom) of a built catalog against the previous published
// one (feed/feed.ts), written beside the catalog or into a folder checked before any work. See docs/ci.md.
import { loadConfig } from '../config/load.ts';
import { defaultCatalogDir } from '../config/outputs.ts';
import { writeChangeFeed, type FeedResult } from '../feed/feed.ts';
import type { ReadOptions } from '../feed/read-snapshot.ts';
import { writableDir } from '../util/output-dir.ts';

export interface ChangesOptions {
  /** The catalog just built (`--catalog`); absent, the one `nnblocks build` writes for the config. */
  catalogDir?: string;
  /** The corpus config whose catalog folder is the default (`--config`). */
  configPath: string;
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
    catalogDir: opts.catalogDir ?? defaultCatalogDir(loadConfig(opts.configPath)),
    previous: opts.previous,
    siteUrl: opts.siteUrl,
    outDir,
    read: opts.read,
  });
}
