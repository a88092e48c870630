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
import { moduleNameFor, relativeToImportRoot } from './modules.ts';
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

export async function indexSources(
  snapshots: SourceSnapshot[],
  store: Store,
  ctx: StageContext,
  opts: IndexOptions = {},
): Promise<IndexResult> {
  const t0 = performance.now();
  const diagnostics: Diagnostic[] = [];
  const perSource: SourceIndexStats[] = [];
  const rowsBySource = new Map<string, FileRow[]>();
  const toParse = new Map<string, { bytes: Uint8Array; size: number }>();
  let bytesTotal = 0;

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
      bytesTotal += st.size;
      // Same size and mtime as last time: trust the stored hashes and skip reading the file.
      if (prev && prev.size === st.size && prev.mtimeMs === mtimeMs && prev.revision === revision) {
        rows.push(prev);
        continue;
      }
      const bytes = readFileSync(abs);
      const blob = gitBlobSha1(bytes);
      rows.push({ source: snap.id, revision, path: f.path, blob, size: bytes.length, sha256: sha256(bytes), mtimeMs });
      toParse.set(blob, { bytes, size: bytes.length });
    }
    rowsBySource.set(snap.id, rows);
  }

  // Blobs already parsed by this parser version (in any source or commit) are reused.
  const allBlobs = [...new Set([...rowsBySource.values()].flatMap((rs) => rs.map((r) => r.blob)))];
  const known = store.knownBlobs(allBlobs, PARSER_VERSION);
  const missing = allBlobs.filter((b) => !known.has(b));
  // Rows trusted by mtime whose blob facts are stale (parser bump) must be read again.
  for (const rows of rowsBySource.values()) {
    for (const r of rows) {
      if (!known.has(r.blob) && !toParse.has(r.blob)) {
        const snap = snapshots.find((s) => s.id === r.source)!;
        const bytes = readFileSync(join(snap.root, r.path));
        toParse.set(r.blob, { bytes, size: bytes.length });
      }
    }
  }
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
  const parsedFacts = new Map<string, ModuleFacts>();
  const parsedJson = new Map<string, string>();
  const crashed = new Map<string, string>();
  for (const o of outcomes) {
    const blob = missing[o.id];
    if ('facts' in o) {
      parsedFacts.set(blob, o.facts);
      if (o.json) parsedJson.set(blob, o.json);
    } else crashed.set(blob, o.error);
  }
  store.putFacts(
    [...parsedFacts].map(([sha1, facts]) => ({
      sha1,
      size: toParse.get(sha1)!.size,
      facts,
      json: parsedJson.get(sha1),
    })),
  );

  const modules: IndexedModule[] = [];
  for (const snap of snapshots) {
    const rows = rowsBySource.get(snap.id);
    if (!rows) continue;
    const good = rows.filter((r) => !crashed.has(r.blob));
    store.replaceFiles(snap.id, good);
    // The discovery scope; the rest of the rows are there for resolution only (docs/config.md, "Two scopes").
    const resolveOnly = new Set(snap.files.filter((f) => f.discover === false).map((f) => f.path));
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
      const discover = !resolveOnly.has(r.path);
      const crash = crashed.get(r.blob);
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
      if (parsedFacts.has(r.blob)) stats.parsed++;
      else stats.reused++;
      const facts = parsedFacts.get(r.blob) ?? store.getFacts(r.blob)!;
      const { name, why } = moduleNameFor(relativeToImportRoot(snap.root, snap.importRoot, r.path));
      // Problems of a file outside the discovery scope are reported only if a block needs its code: a closure
      // that includes a statement with a syntax error says so (`syntax-error-included`).
      if (why && discover) {
        // The sources stage already skips files whose own name can't be a module; a folder name is only known to
        // matter here, below the import root (`my-scripts/x.py` above it is simply not importable by design).
        diagnostics.push({
          code: 'no-module-name',
          severity: 'info',
          stage: 'index',
          source: snap.id,
          path: r.path,
          message: `not importable by name: ${why}; its classes are not discovered`,
          hint: 'see docs/index.md ("Which files are indexed")',
        });
      }
      for (const d of discover ? facts.diagnostics : []) {
        diagnostics.push({ ...d, source: snap.id, path: r.path });
        stats.diagnostics++;
      }
      modules.push({
        sourceId: snap.id,
        path: r.path,
        absPath: join(snap.root, r.path),
        module: name?.module ?? null,
        isPackage: name?.isPackage ?? false,
        discover,
        blob: r.blob,
        sha256: r.sha256,
        size: r.size,
        facts,
      });
    }
    perSource.push(stats);
  }
  store.pruneBlobs();
  const ms = performance.now() - t0;
  const parsed = perSource.reduce((n, s) => n + s.parsed, 0);
  const reused = perSource.reduce((n, s) => n + s.reused, 0);
  return {
    modules,
    stats: {
      files: parsed + reused,
      bytes: bytesTotal,
      parsed,
      reused,
      ms,
      mbPerSec: bytesTotal / 1e6 / (ms / 1000),
      threads,
      perSource,
    },
    diagnostics,
  };
}
