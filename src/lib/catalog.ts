// The site's one data module: every page reads the catalog JSON (content/catalog/, or $NNBLOCKS_CATALOG) here.
//
// Memory stays bounded at 10,000 blocks: only small summaries of all blocks are held (for listings, links
// and the JSON index); a block's full spec is read from its file when its own page renders, then dropped.
// The directory is resolved by astro.config.mjs, which sets NNBLOCKS_CATALOG to an absolute path.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import type { Cluster } from '../../pipeline/contract/clusters.ts';
import type { CatalogFiles, CatalogSchemaName } from '../../pipeline/contract/files.ts';
import type { MethodRecord, MethodsFile, PaperRecord } from '../../pipeline/contract/methods.ts';
import type { SourceRecord } from '../../pipeline/contract/sources.ts';
import type { StatsFile } from '../../pipeline/contract/stats.ts';
import { blockSummary, type BlockStatus, type BlockSummary } from '../../pipeline/contract/summary.ts';
import { checkAgainstSchema } from '../../pipeline/contract/validators.ts';
import {
  CATEGORIES,
  CATEGORY_LABELS,
  KIND_LABELS,
  type BlockKind,
  type Category,
} from '../../pipeline/contract/vocabulary.ts';

export type { BlockSpec, BuildInfo, Category, Cluster, MethodRecord, PaperRecord, SourceRecord, StatsFile };
export type { ParamSpec, Proportion } from '../../pipeline/contract/common.ts';
export type Status = BlockStatus;
export type { BlockSummary };

export function catalogDir(): string {
  return resolve(process.env.NNBLOCKS_CATALOG || 'content/catalog');
}

/**
 * A catalog file, parsed and held to its schema (the one the build wrote it against, pipeline/contract/): every page
 * reads typed data, and a file that does not match stops the site build with where it breaks.
 */
export function readCatalogFile<N extends CatalogSchemaName>(name: N, path: string): CatalogFiles[N] {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const errors = checkAgainstSchema(name, value, path);
  if (errors.length > 0) {
    throw new Error(
      `nnblocks site: ${errors.slice(0, 5).join('; ')}. Hint: the catalog does not match this version's schema; ` +
        'rebuild it with `nnblocks build` (it checks every file it writes).',
    );
  }
  return value as CatalogFiles[N];
}

function readJson<N extends CatalogSchemaName>(name: N, file: string): CatalogFiles[N] {
  const path = join(catalogDir(), file);
  if (!existsSync(path)) {
    throw new Error(
      `nnblocks site: ${path} is missing. Hint: run \`npm run catalog\` first, or point NNBLOCKS_CATALOG at a catalog directory.`,
    );
  }
  return readCatalogFile(name, path);
}

let summaryCache: { list: BlockSummary[]; byId: Map<string, BlockSummary> } | undefined;

function index() {
  if (summaryCache) return summaryCache;
  const dir = join(catalogDir(), 'blocks');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const list = files.map((file) => blockSummary(readCatalogFile('block', join(dir, file))));
  list.sort(byName);
  summaryCache = { list, byId: new Map(list.map((b) => [b.id, b])) };
  return summaryCache;
}

/** All blocks, sorted by name. */
export function blocks(): BlockSummary[] {
  return index().list;
}

export function blockById(id: string): BlockSummary | undefined {
  return index().byId.get(id);
}

/** A block's full spec, read fresh: callers render it and let it go. */
export function loadBlock(slug: string): BlockSpec {
  return readJson('block', join('blocks', `${slug}.json`));
}

/** The block file's bytes as published (the JSON API serves them unchanged). */
export function blockJsonText(slug: string): string {
  return readFileSync(join(catalogDir(), 'blocks', `${slug}.json`), 'utf8');
}

let sourcesCache: Map<string, SourceRecord> | undefined;
export function sources(): Map<string, SourceRecord> {
  sourcesCache ??= new Map(readJson('sources', 'sources.json').sources.map((s) => [s.id, s]));
  return sourcesCache;
}

let statsCache: StatsFile | undefined;
export function stats(): StatsFile {
  statsCache ??= readJson('stats', 'stats.json');
  return statsCache;
}

let clusterCache: Map<string, Cluster> | undefined;
/** Clusters by id (the ids DedupRecord fields refer to). */
export function clusters(): Map<string, Cluster> {
  clusterCache ??= new Map(readJson('clusters', 'clusters.json').clusters.map((c) => [c.id, c]));
  return clusterCache;
}

export function buildInfo(): BuildInfo | undefined {
  return existsSync(join(catalogDir(), 'build-info.json')) ? readJson('build-info', 'build-info.json') : undefined;
}

let methodsCache: MethodsFile | undefined;
/** methods.json; a catalog built before the taxonomy has none, which reads as no methods and no papers. */
function methodsFile(): MethodsFile {
  methodsCache ??= existsSync(join(catalogDir(), 'methods.json'))
    ? readJson('methods', 'methods.json')
    : { formatVersion: 2, methods: [], papers: [] };
  return methodsCache;
}

/**
 * A corpus file's bytes as published (the JSON API serves them unchanged, like block files), after the schema check
 * its reader runs; undefined when the catalog has none (methods.json before the taxonomy).
 */
export function corpusJsonText(file: 'stats.json' | 'methods.json'): string | undefined {
  const path = join(catalogDir(), file);
  if (!existsSync(path)) return undefined;
  if (file === 'stats.json') stats();
  else methodsFile();
  return readFileSync(path, 'utf8');
}

/** Every taxonomy method, by slug; `members` empty when the corpus has no implementation. */
export function methods(): MethodRecord[] {
  return methodsFile().methods;
}

/** Methods with at least one implementation: the ones with a page. */
export function methodsWithMembers(): MethodRecord[] {
  return methods().filter((m) => m.members.length > 0);
}

export function methodBySlug(slug: string): MethodRecord | undefined {
  return methods().find((m) => m.slug === slug);
}

/** A paper the taxonomy describes (title, authors, BibTeX), by id (`arxiv:1709.01507`). */
export function paperById(id: string): PaperRecord | undefined {
  return methodsFile().papers.find((p) => p.id === id);
}

/** Labels of a block's kind: network blocks, data transforms, losses. */
export function kindLabel(k: BlockKind): string {
  return KIND_LABELS.get(k) ?? k;
}

export function categoryLabel(c: Category): string {
  return CATEGORY_LABELS.get(c) ?? c;
}

/** Categories that have blocks, in the canonical order. */
export function usedCategories(): Category[] {
  const used = new Set(blocks().flatMap((b) => b.categories));
  return CATEGORIES.filter((c) => used.has(c));
}

// ------------------------------------------------------------------------------------------------
// Sorting and paging for the browse listings (static pages: they must work without JavaScript).

export const SORTS = ['name', 'params', 'status'] as const;
export type Sort = (typeof SORTS)[number];
export const SORT_LABELS = new Map<Sort, string>([
  ['name', 'Name'],
  ['params', 'Parameters'],
  ['status', 'Status'],
]);
export const PAGE_SIZE = 100;

function byName(a: BlockSummary, b: BlockSummary): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const STATUS_RANK = new Map<Status, number>([
  ['passed', 0],
  ['failed', 1],
  ['not-run', 2],
  ['blocked', 3],
  ['unvalidated', 4],
]);

/** Returns a new sorted array; the input (already by name) breaks ties, so every order is total and stable. */
export function sortBlocks(list: BlockSummary[], sort: Sort): BlockSummary[] {
  if (sort === 'name') return list;
  if (sort === 'params') return [...list].sort((a, b) => (b.params ?? -1) - (a.params ?? -1));
  return [...list].sort((a, b) => STATUS_RANK.get(a.status)! - STATUS_RANK.get(b.status)!);
}

/** A listing scope: every block, one category, or one source. */
export type Scope = { kind: 'all' } | { kind: 'category'; category: Category } | { kind: 'source'; sourceId: string };

export function blocksIn(scope: Scope): BlockSummary[] {
  if (scope.kind === 'all') return blocks();
  if (scope.kind === 'category') return blocks().filter((b) => b.categories.includes(scope.category));
  return blocks().filter((b) => b.sourceId === scope.sourceId);
}

export function scopeTitle(scope: Scope): string {
  if (scope.kind === 'all') return 'All blocks';
  if (scope.kind === 'category') return categoryLabel(scope.category);
  return scope.sourceId;
}

const listingCache = new Map<string, BlockSummary[]>();
/** A scope's blocks in a sort order, memoized: ~900 listing pages at 10k blocks share ~30 sorted lists. */
export function listing(scope: Scope, sort: Sort): BlockSummary[] {
  const key = `${JSON.stringify(scope)}|${sort}`;
  let list = listingCache.get(key);
  if (!list) {
    list = sortBlocks(blocksIn(scope), sort);
    listingCache.set(key, list);
  }
  return list;
}
