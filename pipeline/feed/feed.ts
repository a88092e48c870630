// The change-feed stage: reads the catalog just built and the previous published one, diffs them, and writes
// `changes.json` (checked against its schema, pipeline/contract/changes.ts) and `changes.atom` beside the catalog.
// See docs/ci.md ("The change feed").
import { writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { stableStringify } from '../catalog/stable-json.ts';
import { renderAtom } from './atom.ts';
import { diffCatalogs } from './diff.ts';
import { listingUrl, readCurrentCatalog, readPrevious, type ReadOptions } from './read-snapshot.ts';
import type { ChangeFeed } from '../contract/changes.ts';
import { checkAgainstSchema } from '../catalog/check-catalog.ts';

export const CHANGES_JSON = 'changes.json';
export const CHANGES_ATOM = 'changes.atom';

export interface FeedOptions {
  /** The catalog just built (`content/catalog`). */
  catalogDir: string;
  /** The previous catalog: a directory, a built site, an `/api/catalog.json` file, or a URL; absent on a first build. */
  previous?: string;
  /** Site root for Atom links and ids; defaults to the previous URL's site root when that is a URL. */
  siteUrl?: string;
  /** Where to write the two files; defaults to `catalogDir`. */
  outDir?: string;
  read?: ReadOptions;
}

export interface FeedResult {
  feed: ChangeFeed;
  files: string[];
  /** Schema violations of our own output (a bug if ever non-empty). */
  errors: string[];
}

export function checkChangeFeed(value: unknown): string[] {
  return checkAgainstSchema('changes', value, CHANGES_JSON).slice(0, 20);
}

/** `https://host/site/api/catalog.json` → `https://host/site/`; undefined for local paths. */
export function siteUrlOf(previous: string | undefined): string | undefined {
  if (!previous || !/^https?:\/\//i.test(previous)) return undefined;
  try {
    const href = listingUrl(previous).href;
    return href.endsWith('/api/catalog.json') ? href.slice(0, -'api/catalog.json'.length) : undefined;
  } catch {
    return undefined;
  }
}

export async function writeChangeFeed(opts: FeedOptions): Promise<FeedResult> {
  const current = readCurrentCatalog(opts.catalogDir);
  let diagnostics: Diagnostic[] = [];
  let previous = null;
  if (opts.previous) {
    const read = await readPrevious(opts.previous, opts.read);
    previous = read.snapshot;
    diagnostics = read.diagnostics;
  }
  const feed = diffCatalogs(previous, current, diagnostics);
  // A local previous catalog's path as its warnings quote it: as given when absolute (a relative one names no more
  // than the user typed), and absolute.
  const given = opts.previous && !isWeb(opts.previous) ? opts.previous : undefined;
  const local = given ? [resolve(given), ...(isAbsolute(given) || /^file:/i.test(given) ? [given] : [])] : [];
  return writeFeedFiles(feed, opts.outDir ?? opts.catalogDir, opts.siteUrl ?? siteUrlOf(opts.previous), local);
}

/**
 * Writes changes.json and changes.atom for a computed feed (also used by `nnblocks build` after each build), as
 * published (`publishedFeed`, with `localPaths` hidden); returns the feed as computed, for the terminal.
 */
export function writeFeedFiles(
  feed: ChangeFeed,
  outDir: string,
  siteUrl?: string,
  localPaths: string[] = [],
): FeedResult {
  const published = publishedFeed(feed, localPaths);
  const errors = checkChangeFeed(JSON.parse(JSON.stringify(published)));
  const files = [join(outDir, CHANGES_JSON), join(outDir, CHANGES_ATOM)];
  writeFileSync(files[0], stableStringify(published));
  writeFileSync(files[1], renderAtom(published, { siteUrl }));
  return { feed, files, errors };
}

/** How the feed names the catalog a build replaced in its own folder. */
export const PREVIOUS_BUILD = 'the previous build';
/** How the feed names a previous catalog read from a folder or file of this machine. */
export const LOCAL_CATALOG = 'a local catalog';
/** What stands for a local previous catalog's path in the feed's warnings. */
const LOCAL_PATH = '<previous catalog>';

/**
 * The feed with no path of this machine: the previous catalog named by its URL (without user and password) or as
 * `LOCAL_CATALOG`, never by its folder, and `localPaths` (where a local previous catalog was read from, as given and
 * absolute) replaced in its warnings, which quote the files they could not read.
 */
export function publishedFeed(feed: ChangeFeed, localPaths: string[] = []): ChangeFeed {
  const hidden = [...new Set(localPaths)].filter((p) => p.length > 1).sort((a, b) => b.length - a.length);
  const hide = (text: string) => hidden.reduce((t, p) => t.split(p).join(LOCAL_PATH), text);
  return {
    ...feed,
    previous: feed.previous && { ...feed.previous, origin: publishedOrigin(feed.previous.origin) },
    diagnostics: feed.diagnostics.map((d) => ({
      ...d,
      message: hide(d.message),
      ...(d.hint !== undefined ? { hint: hide(d.hint) } : {}),
      ...(d.path !== undefined ? { path: hide(d.path) } : {}),
    })),
  };
}

function publishedOrigin(origin: string): string {
  if (origin === PREVIOUS_BUILD) return origin;
  if (!isWeb(origin)) return LOCAL_CATALOG;
  try {
    const url = new URL(origin);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return LOCAL_CATALOG;
  }
}

const isWeb = (location: string) => /^https?:\/\//i.test(location);
