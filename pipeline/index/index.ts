// The index stage: hashes each source file, parses blobs not seen before (in parallel), stores facts in SQLite
// keyed by blob SHA-1, and returns every module with its facts. A re-run with nothing changed parses nothing.
// See docs/index.md.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { StageContext } from '../contract/context.ts';
import { fault } from '../util/fault.ts';
import { PARSER_VERSION, type ModuleFacts } from '../parse/facts.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import { gitBlobSha1, sha256 } from './hash.ts';
import { moduleNameInSource } from './modules.ts';
import { parseAll, parseThreads } from './parse-pool.ts';
import type { FileRow, Store } from './store.ts';
import type { IndexedModule, IndexResult, SourceIndexStats } from './types.ts';

export interface IndexOptions {
  /** Parse threads; default: one below 6 MB of new files, else the core count (see parse-pool.ts). */
  threads?: number;
}

/** The revision a source's rows belong to: a commit, else a distribution version, else '' (plain folder). */
function revisionOf(s: SourceSnapshot): string {
  return s.commit ?? s.version ?? '';
}

/** The rows of each source's files, and the bytes of the blobs read on the way that may need parsing. */
interface Hashed {
  rowsBySource: Map<string, FileRow[]>;
  toParse: Map<string, { bytes: Uint8Array; size: number }>;
  bytesTotal: number;
}

/** What the parse of the blobs not seen before gave, by blob. */
interface Parsed {
  facts: Map<string, ModuleFacts>;
  json: Map<string, string>;
  /** The parser's error, for the blobs it failed on. */
  crashed: Map<string, string>;
  threads: number;
}

export async function indexSources(
  snapshots: SourceSnapshot[],
  store: Store,
  ctx: StageContext,
  opts: IndexOptions = {},
): Promise<IndexResult> {
  const t0 = performance.now();
  const diagnostics: Diagnostic[] = [];
  const hashed = hashFiles(snapshots, store, diagnostics);
  const missing = blobsToParse(snapshots, store, hashed);
  const parsed = await parseBlobs(missing, hashed.toParse, store, ctx, opts);
  const modules: IndexedModule[] = [];
  const perSource: SourceIndexStats[] = [];
  for (const snap of snapshots) {
    const rows = hashed.rowsBySource.get(snap.id);
    if (!rows) continue;
    perSource.push(collectModules(snap, rows, parsed, store, modules, diagnostics));
  }
  store.pruneBlobs();
  const ms = performance.now() - t0;
  const parsedCount = perSource.reduce((n, s) => n + s.parsed, 0);
  const reused = perSource.reduce((n, s) => n + s.reused, 0);
  const bytesTotal = hashed.bytesTotal;
  return {
    modules,
    stats: {
      files: parsedCount + reused,
      bytes: bytesTotal,
      parsed: parsedCount,
      reused,
      ms,
      mbPerSec: bytesTotal / 1e6 / (ms / 1000),
      threads: parsed.threads,
      perSource,
    },
    diagnostics,
  };
}

/**
 * The file rows of every source that did not fail: a file with the size, mtime and revision of its stored row is
 * trusted without reading it; any other is read and hashed, and its bytes kept for the parse.
 */
function hashFiles(snapshots: SourceSnapshot[], store: Store, diagnostics: Diagnostic[]): Hashed {
  const hashed: Hashed = { rowsBySource: new Map(), toParse: new Map(), bytesTotal: 0 };
  for (const snap of snapshots) {
    if (snap.status === 'failed') continue;
    const previous = store.filesOf(snap.id);
    const revision = revisionOf(snap);
    const rows: FileRow[] = [];
    for (const f of snap.files) {
      const abs = join(snap.root, f.path);
      let st;
      try {
        st = statSync(abs);
      } catch (err) {
        diagnostics.push({
          code: 'file-vanished',
          severity: 'warning',
          stage: 'index',
          source: snap.id,
          path: f.path,
          message: `file disappeared while indexing: ${(err as Error).message}`,
        });
        continue;
      }
      const mtimeMs = Math.floor(st.mtimeMs);
      const prev = previous.get(f.path);
      hashed.bytesTotal += st.size;
      // Same size and mtime as last time: trust the stored hashes and skip reading the file.
      if (prev && prev.size === st.size && prev.mtimeMs === mtimeMs && prev.revision === revision) {
        rows.push(prev);
        continue;
      }
      const bytes = readFileSync(abs);
      const blob = gitBlobSha1(bytes);
      rows.push({ source: snap.id, revision, path: f.path, blob, size: bytes.length, sha256: sha256(bytes), mtimeMs });
      hashed.toParse.set(blob, { bytes, size: bytes.length });
    }
    hashed.rowsBySource.set(snap.id, rows);
  }
  return hashed;
}

/** The blobs this parser version has no facts for, in order; the bytes of each are in `hashed.toParse` after. */
function blobsToParse(snapshots: SourceSnapshot[], store: Store, hashed: Hashed): string[] {
  // Blobs already parsed by this parser version (in any source or commit) are reused.
  const allBlobs = [...new Set([...hashed.rowsBySource.values()].flatMap((rs) => rs.map((r) => r.blob)))];
  const known = store.knownBlobs(allBlobs, PARSER_VERSION);
  // Rows trusted by mtime whose blob facts are stale (parser bump) must be read again.
  for (const rows of hashed.rowsBySource.values()) {
    for (const r of rows) {
      if (!known.has(r.blob) && !hashed.toParse.has(r.blob)) {
        const snap = snapshots.find((s) => s.id === r.source)!;
        const bytes = readFileSync(join(snap.root, r.path));
        hashed.toParse.set(r.blob, { bytes, size: bytes.length });
      }
    }
  }
  return allBlobs.filter((b) => !known.has(b));
}

/** Parses the missing blobs (in parallel: parse-pool.ts) and stores their facts, in one transaction. */
async function parseBlobs(
  missing: string[],
  toParse: Hashed['toParse'],
  store: Store,
  ctx: StageContext,
  opts: IndexOptions,
): Promise<Parsed> {
  const jobs = missing.map((blob, id) => ({ id, bytes: toParse.get(blob)!.bytes }));
  const progress = ctx.progress('parse', jobs.length);
  const threads = jobs.length ? parseThreads(jobs, opts.threads) : 0;
  const outcomes = await parseAll(jobs, {
    threads: opts.threads,
    onDone: (n) => {
      progress.tick(n);
      fault('parse', n);
    },
  });
  progress.done(`${jobs.length} files parsed`);
  const parsed: Parsed = { facts: new Map(), json: new Map(), crashed: new Map(), threads };
  for (const o of outcomes) {
    const blob = missing[o.id];
    if ('facts' in o) {
      parsed.facts.set(blob, o.facts);
      if (o.json) parsed.json.set(blob, o.json);
    } else parsed.crashed.set(blob, o.error);
  }
  store.putFacts(
    [...parsed.facts].map(([sha1, facts]) => ({
      sha1,
      size: toParse.get(sha1)!.size,
      facts,
      json: parsed.json.get(sha1),
    })),
  );
  return parsed;
}

/**
 * One source's modules, appended to `modules`, with its figures: its rows replace the stored ones (those the parser
 * failed on left out), and each file's facts come from this parse or from the store.
 */
function collectModules(
  snap: SourceSnapshot,
  rows: FileRow[],
  parsed: Parsed,
  store: Store,
  modules: IndexedModule[],
  diagnostics: Diagnostic[],
): SourceIndexStats {
  const good = rows.filter((r) => !parsed.crashed.has(r.blob));
  store.replaceFiles(snap.id, good);
  // The discovery scope; the rest of the rows are there for resolution only (docs/config.md, "Two scopes").
  const resolveOnly = new Set(snap.files.filter((f) => f.discover === false).map((f) => f.path));
  const configs = new Set(snap.files.filter((f) => f.config).map((f) => f.path));
  const stats: SourceIndexStats = {
    id: snap.id,
    files: rows.length,
    discover: rows.length - resolveOnly.size,
    bytes: 0,
    parsed: 0,
    reused: 0,
    diagnostics: 0,
  };
  for (const r of rows) {
    stats.bytes += r.size;
    const crash = parsed.crashed.get(r.blob);
    if (crash) {
      diagnostics.push({
        code: 'parse-crashed',
        severity: 'error',
        stage: 'index',
        source: snap.id,
        path: r.path,
        message: `the parser failed on this file: ${crash.split('\n')[0]}`,
        hint: 'this is a bug in nnblocks; the file is left out and everything else proceeds',
      });
      continue;
    }
    if (parsed.facts.has(r.blob)) stats.parsed++;
    else stats.reused++;
    const facts = parsed.facts.get(r.blob) ?? store.getFacts(r.blob)!;
    const discover = !resolveOnly.has(r.path);
    const { name, why } = moduleNameInSource(snap, r.path);
    // Problems of a file outside the discovery scope are reported only if a block needs its code: a closure
    // that includes a statement with a syntax error says so (`syntax-error-included`).
    if (discover) stats.diagnostics += fileDiagnostics(snap.id, r.path, why, facts, diagnostics);
    modules.push({
      sourceId: snap.id,
      path: r.path,
      absPath: join(snap.root, r.path),
      module: name?.module ?? null,
      isPackage: name?.isPackage ?? false,
      discover,
      ...(configs.has(r.path) ? { config: true as const } : {}),
      blob: r.blob,
      sha256: r.sha256,
      size: r.size,
      facts,
    });
  }
  return stats;
}

/**
 * The diagnostics of a file in the discovery scope, into `diagnostics`: its parse's, and `why` it has no module
 * name; returns how many of its parse's there were.
 */
function fileDiagnostics(
  source: string,
  path: string,
  why: string | null,
  facts: ModuleFacts,
  diagnostics: Diagnostic[],
): number {
  if (why) {
    // The sources stage already skips files whose own name can't be a module; a folder name is only known to
    // matter here, below the import root (`my-scripts/x.py` above it is simply not importable by design).
    diagnostics.push({
      code: 'no-module-name',
      severity: 'info',
      stage: 'index',
      source,
      path,
      message: `not importable by name: ${why}; its classes are not discovered`,
      hint: 'see docs/index.md ("Which files are indexed")',
    });
  }
  for (const d of facts.diagnostics) diagnostics.push({ ...d, source, path });
  return facts.diagnostics.length;
}
