// The change feed as the site reads it: `changes.json` and `changes.atom` beside the catalog (written by
// `nnblocks changes` and by `nnblocks build`). Both are optional: a first build, or a catalog older than the
// feed, has neither, and the site then says "no change feed yet" instead of failing.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHANGES_FORMAT_VERSION,
  type BlockChange,
  type BlockRef,
  type ChangeFeed,
  type ChangeKind,
  type FieldChange,
  type SourceChange,
  type UpstreamPin,
} from '../../pipeline/contract/changes.ts';
import { catalogDir, readCatalogFile } from './catalog.ts';

export type { BlockChange, BlockRef, ChangeFeed, ChangeKind, FieldChange, SourceChange, UpstreamPin };

// The names pipeline/feed/feed.ts writes (not imported: that module pulls in the schema validator).
const CHANGES_JSON = 'changes.json';
const CHANGES_ATOM = 'changes.atom';

/** The feed of the catalog in `dir` (default: the site's catalog); undefined when there is none. */
export function changeFeed(dir: string = catalogDir()): ChangeFeed | undefined {
  const path = join(dir, CHANGES_JSON);
  if (!existsSync(path)) return undefined;
  // The version first: a feed of another format says so, rather than listing every field its schema refuses.
  const { formatVersion } = JSON.parse(readFileSync(path, 'utf8')) as { formatVersion?: unknown };
  if (formatVersion !== CHANGES_FORMAT_VERSION) {
    throw new Error(
      `nnblocks site: ${path} has formatVersion ${String(formatVersion)}, this site renders ${CHANGES_FORMAT_VERSION}. ` +
        "Hint: rewrite it with this version's `nnblocks changes --catalog DIR`, or delete it.",
    );
  }
  return readCatalogFile('changes', path);
}

/** The Atom feed's bytes, published unchanged at /changes.atom; undefined when there is none. */
export function changeAtom(dir: string = catalogDir()): Buffer | undefined {
  const path = join(dir, CHANGES_ATOM);
  return existsSync(path) ? readFileSync(path) : undefined;
}

/** The raw changes.json text, published unchanged at /changes.json; undefined when there is none. */
export function changeJsonText(dir: string = catalogDir()): string | undefined {
  const path = join(dir, CHANGES_JSON);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

const atomPresent = new Map<string, boolean>();
/** Whether /changes.atom is published: asked by the layout of every page, so the answer is kept per directory. */
export function hasChangeFeed(dir: string = catalogDir()): boolean {
  let present = atomPresent.get(dir);
  if (present === undefined) {
    present = existsSync(join(dir, CHANGES_ATOM));
    atomPresent.set(dir, present);
  }
  return present;
}

/** Block changes of one kind, in the feed's order (by block id). */
export function changesOfKind<K extends ChangeKind>(feed: ChangeFeed, kind: K): Extract<BlockChange, { kind: K }>[] {
  return feed.changes.filter((c): c is Extract<BlockChange, { kind: K }> => c.kind === kind);
}

/** `abcdef123456` for a commit, `1.2.0 (v1.2.0)` for a release; empty when the pin is unknown. */
export function pinText(p: UpstreamPin | undefined): string {
  if (!p) return '';
  if (p.commit) return p.commit.slice(0, 12);
  return [p.version, p.tag && `(${p.tag})`].filter(Boolean).join(' ');
}

/** `models/swin.py:10-42`, or the id when the feed knows no path (a summary-only previous catalog). */
export function whereText(r: BlockRef): string {
  return r.path ? `${r.path}${r.lines ? `:${r.lines[0]}-${r.lines[1]}` : ''}` : r.id;
}
