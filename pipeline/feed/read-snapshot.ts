// Readers for catalog snapshots: a catalog directory, a built site directory, a published `/api/catalog.json`
// (local file or HTTP(S) URL). The previous catalog is read fail-soft: anything unreachable or malformed becomes a
// diagnostic and "no previous catalog", never a crash, so a site that is down cannot stop a regeneration.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NnblocksError, type Diagnostic } from '../contract/diagnostics.ts';
import type { BlockSpec } from '../contract/block.ts';
import type { BuildInfo } from '../contract/build-info.ts';
import { SLUG_PATTERN } from '../contract/rules.ts';
import type { SourceRecord, SourcesFile } from '../contract/sources.ts';
import { blockSummary } from '../contract/summary.ts';
import { CATALOG_FORMAT_VERSION } from '../contract/vocabulary.ts';
import { checkAgainstSchema } from '../catalog/check-catalog.ts';
import type { BlockStatus } from '../contract/summary.ts';
import type { CatalogSnapshot, SnapshotBlock } from './types.ts';

export interface ReadOptions {
  /** Per HTTP request. */
  timeoutMs?: number;
  /** Parallel requests for block files when the API listing holds summaries. */
  concurrency?: number;
  /** Fetch each block's `/api/blocks/<slug>.json` when the listing holds summaries (default true). */
  fetchBlocks?: boolean;
}

export interface ReadResult {
  snapshot: CatalogSnapshot | null;
  diagnostics: Diagnostic[];
}

const SLUG = new RegExp(SLUG_PATTERN);
const STATUSES = new Set<BlockStatus>(['passed', 'failed', 'not-run', 'blocked', 'unvalidated']);

/** Thrown inside this file only, turned into a diagnostic at the edge (`readPrevious`). */
class ReadProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Node's I/O errors (`ENOENT`, `EACCES`, `EISDIR`...) carry a string `code`; our own bugs don't. */
const isSystemError = (err: unknown): err is Error & { code: string } =>
  err instanceof Error && typeof (err as { code?: unknown }).code === 'string';

const diag = (code: string, message: string, hint?: string): Diagnostic => ({
  code,
  severity: 'warning',
  stage: 'feed',
  message,
  ...(hint ? { hint } : {}),
});

export function fromSpec(spec: BlockSpec): SnapshotBlock {
  const { kind: _kind, categories, ...summary } = blockSummary(spec);
  return { ...summary, category: categories.join(', '), spec };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ReadProblem('previous-invalid', `${label}: not JSON (${(err as Error).message})`);
  }
}

function checkedSpec(value: unknown, label: string): BlockSpec {
  const errors = checkAgainstSchema('block', value, label);
  if (errors.length) throw new ReadProblem('previous-invalid', errors.slice(0, 3).join('; '));
  return value as BlockSpec;
}

function checkedSources(list: unknown, label: string): SourceRecord[] {
  const errors = checkAgainstSchema('sources', { formatVersion: CATALOG_FORMAT_VERSION, sources: list }, label);
  if (errors.length) throw new ReadProblem('previous-invalid', errors.slice(0, 3).join('; '));
  return list as SourceRecord[];
}

function builtAtOf(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const info = parseJson(readFileSync(path, 'utf8'), 'build-info.json');
  return isRecord(info) && typeof info.builtAt === 'string' ? (info as unknown as BuildInfo).builtAt : undefined;
}

/** A catalog directory as `nnblocks build` writes it. Throws ReadProblem; see `readCurrentCatalog`. */
function readCatalogDirOrThrow(dir: string, origin: string): CatalogSnapshot {
  const blocksDir = join(dir, 'blocks');
  const sourcesPath = join(dir, 'sources.json');
  if (!existsSync(blocksDir) || !existsSync(sourcesPath)) {
    throw new ReadProblem(
      'previous-not-found',
      `${dir} is not a catalog directory (no blocks/ or sources.json)`,
      'point at the folder `nnblocks build` writes (content/catalog), a built site, or an /api/catalog.json',
    );
  }
  const files = readdirSync(blocksDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const blocks = files.map((f) =>
    fromSpec(checkedSpec(parseJson(readFileSync(join(blocksDir, f), 'utf8'), `blocks/${f}`), `blocks/${f}`)),
  );
  const sourcesFile = parseJson(readFileSync(sourcesPath, 'utf8'), 'sources.json') as SourcesFile;
  const sources = checkedSources(isRecord(sourcesFile) ? sourcesFile.sources : undefined, 'sources.json');
  const builtAt = builtAtOf(join(dir, 'build-info.json'));
  return { origin, ...(builtAt ? { builtAt } : {}), blocks, sources };
}

/** The catalog just built: it must be readable, so problems here are infrastructure errors and throw. */
export function readCurrentCatalog(dir: string): CatalogSnapshot {
  try {
    return readCatalogDirOrThrow(dir, dir);
  } catch (err) {
    if (err instanceof ReadProblem)
      throw new NnblocksError(err.message, 'feed', 'run `nnblocks build` first, or pass --catalog DIR');
    throw err;
  }
}

/** Where a listing's block files live: `blocks/<slug>.json` beside `catalog.json`, as the site publishes them. */
type LoadText = (relative: string) => Promise<string>;

async function fetchText(url: URL, timeoutMs: number): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new ReadProblem(
      'previous-unreachable',
      `${url.href}: ${why}`,
      'check the URL (vars.CATALOG_URL in CI); a first publication has no previous catalog',
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ReadProblem(
      res.status === 404 ? 'previous-not-found' : 'previous-unreachable',
      `${url.href}: HTTP ${res.status}`,
    );
  }
  return res.text();
}

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/**
 * The adapter for the site's `/api/catalog.json` (src/pages/api/catalog.json.ts): `{ formatVersion, sources, blocks }`
 * where each block is a summary (`id, slug, name, sourceId, kind, categories, status, params, license`) or a full spec.
 * Summaries are upgraded to specs from `blocks/<slug>.json` when that can be read; otherwise they stay summaries.
 */
async function fromApiListing(
  body: unknown,
  origin: string,
  load: LoadText,
  opts: ReadOptions,
  diagnostics: Diagnostic[],
): Promise<CatalogSnapshot> {
  if (!isRecord(body) || !Array.isArray(body.blocks) || !Array.isArray(body.sources)) {
    throw new ReadProblem(
      'previous-invalid',
      `${origin}: not a catalog listing (expected { formatVersion, sources, blocks })`,
    );
  }
  if (body.formatVersion !== CATALOG_FORMAT_VERSION) {
    throw new ReadProblem(
      'previous-format',
      `${origin}: catalog format ${String(body.formatVersion)}, this nnblocks reads ${CATALOG_FORMAT_VERSION}`,
      'changes across a format change are not compared; the next build has a baseline',
    );
  }
  const sources = checkedSources(body.sources, `${origin} sources`);
  const blocks: SnapshotBlock[] = [];
  const pending: { index: number; slug: string; id: string }[] = [];
  for (const [i, raw] of body.blocks.entries()) {
    if (!isRecord(raw) || typeof raw.id !== 'string' || typeof raw.slug !== 'string' || !SLUG.test(raw.slug)) {
      throw new ReadProblem('previous-invalid', `${origin}: block ${i} lacks a string id or a valid slug`);
    }
    if (isRecord(raw.provenance) && isRecord(raw.interface)) {
      // Extra keys the site adds for links (`page`, `json`) are not part of a spec.
      const { page: _page, json: _json, ...spec } = raw;
      blocks.push(fromSpec(checkedSpec(spec, `${origin} block ${raw.id}`)));
      continue;
    }
    const status = raw.status as BlockStatus;
    if (
      typeof raw.name !== 'string' ||
      typeof raw.sourceId !== 'string' ||
      !Array.isArray(raw.categories) ||
      !raw.categories.every((c) => typeof c === 'string') ||
      !STATUSES.has(status)
    ) {
      throw new ReadProblem('previous-invalid', `${origin}: block ${raw.id} is neither a spec nor a summary`);
    }
    blocks.push({
      id: raw.id,
      slug: raw.slug,
      name: raw.name,
      ...(typeof raw.module === 'string' ? { module: raw.module } : {}),
      sourceId: raw.sourceId,
      category: (raw.categories as string[]).join(', '),
      status,
      params: typeof raw.params === 'number' ? raw.params : null,
      license: typeof raw.license === 'string' ? raw.license : 'NOASSERTION',
    });
    pending.push({ index: blocks.length - 1, slug: raw.slug, id: raw.id });
  }
  if (pending.length && opts.fetchBlocks !== false) {
    const failed: string[] = [];
    await pool(pending, opts.concurrency ?? 8, async ({ index, slug, id }) => {
      try {
        const spec = checkedSpec(parseJson(await load(`blocks/${slug}.json`), slug), slug);
        if (spec.id !== id)
          throw new ReadProblem('previous-invalid', `blocks/${slug}.json holds ${spec.id}, not ${id}`);
        blocks[index] = fromSpec(spec);
      } catch (err) {
        if (!(err instanceof ReadProblem) && !isSystemError(err)) throw err;
        failed.push((err as Error).message);
      }
    });
    if (failed.length) {
      failed.sort();
      diagnostics.push(
        diag(
          'previous-block-unavailable',
          `${failed.length} of ${pending.length} block files of the previous catalog could not be read; those blocks are compared by their summaries only (first: ${failed[0]})`,
        ),
      );
    }
  }
  // The listing may carry the build date (a site that publishes build-info); it is optional.
  const builtAt = typeof body.builtAt === 'string' ? body.builtAt : undefined;
  return { origin, ...(builtAt ? { builtAt } : {}), blocks, sources };
}

/** `https://host/site/` → `https://host/site/api/catalog.json`; a URL ending in `.json` is taken as is. */
export function listingUrl(location: string): URL {
  const url = new URL(location);
  if (!url.pathname.endsWith('.json')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/catalog.json`;
  return url;
}

async function readOrThrow(location: string, opts: ReadOptions, diagnostics: Diagnostic[]): Promise<CatalogSnapshot> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  if (/^https?:\/\//i.test(location)) {
    let url: URL;
    try {
      url = listingUrl(location);
    } catch {
      throw new ReadProblem('previous-invalid', `${location}: not a valid URL`);
    }
    const body = parseJson(await fetchText(url, timeoutMs), url.href);
    return fromApiListing(body, location, (rel) => fetchText(new URL(rel, url), timeoutMs), opts, diagnostics);
  }
  if (!existsSync(location)) throw new ReadProblem('previous-not-found', `${location}: no such file or directory`);
  let file = location;
  if (statSync(location).isDirectory()) {
    if (existsSync(join(location, 'sources.json'))) return readCatalogDirOrThrow(location, location);
    // A built site (dist/): its API listing.
    file = join(location, 'api', 'catalog.json');
    if (!existsSync(file))
      throw new ReadProblem(
        'previous-not-found',
        `${location}: neither a catalog directory nor a built site (no api/catalog.json)`,
      );
  }
  const body = parseJson(readFileSync(file, 'utf8'), file);
  const base = dirname(file);
  return fromApiListing(
    body,
    location,
    async (rel) => {
      const path = join(base, rel);
      if (!existsSync(path)) throw new ReadProblem('previous-not-found', `${path}: missing`);
      return readFileSync(path, 'utf8');
    },
    opts,
    diagnostics,
  );
}

/**
 * The previous catalog, from a catalog directory, a built site, a listing file or an HTTP(S) URL (a site root or
 * its `/api/catalog.json`). Never throws for a missing, unreachable or malformed catalog: `snapshot` is null and
 * a diagnostic says why.
 */
export async function readPrevious(location: string, opts: ReadOptions = {}): Promise<ReadResult> {
  const diagnostics: Diagnostic[] = [];
  try {
    return { snapshot: await readOrThrow(location, opts, diagnostics), diagnostics };
  } catch (err) {
    if (err instanceof ReadProblem) diagnostics.push(diag(err.code, `no previous catalog: ${err.message}`, err.hint));
    else if (isSystemError(err)) diagnostics.push(diag('previous-unreadable', `no previous catalog: ${err.message}`));
    else throw err;
    return { snapshot: null, diagnostics };
  }
}
