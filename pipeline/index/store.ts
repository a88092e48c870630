// The one module that owns SQLite: opens the index database (WAL), applies the schema, and offers typed queries.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fault } from '../fault.ts';
import type { ModuleFacts } from '../parse/facts.ts';

/** Bump when schema.sql changes in a way old databases can't follow; an older database is rebuilt from scratch. */
export const SCHEMA_VERSION = 1;

export interface FileRow {
  source: string;
  revision: string;
  path: string;
  blob: string;
  size: number;
  sha256: string;
  mtimeMs: number;
}

export class Store {
  readonly db: Database.Database;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Two concurrent runs share the file: wait for the other writer instead of failing at once.
    this.db.pragma('busy_timeout = 10000');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION) {
      // The index is a cache: rebuilding it loses nothing that can't be recomputed from the sources.
      this.db.exec('DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS blobs; DROP TABLE IF EXISTS kv;');
    }
    const schema = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'schema.sql'), 'utf8');
    this.db.exec(schema);
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  static open(cacheDir: string): Store {
    return new Store(join(cacheDir, 'index.sqlite'));
  }

  close(): void {
    this.db.close();
  }

  /** Runs `fn` in one transaction (one per stage step). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  filesOf(source: string): Map<string, FileRow> {
    const rows = this.db
      .prepare('SELECT source, revision, path, blob, size, sha256, mtime_ms AS mtimeMs FROM files WHERE source = ?')
      .all(source) as FileRow[];
    return new Map(rows.map((r) => [r.path, r]));
  }

  /** Replaces a source's file map with the current checkout (rows for older revisions and vanished paths go). */
  replaceFiles(source: string, rows: FileRow[]): void {
    const del = this.db.prepare('DELETE FROM files WHERE source = ?');
    const ins = this.db.prepare(
      'INSERT INTO files (source, revision, path, blob, size, sha256, mtime_ms) VALUES (@source, @revision, @path, @blob, @size, @sha256, @mtimeMs)',
    );
    this.tx(() => {
      del.run(source);
      for (const r of rows) ins.run(r);
    });
  }

  /** Blob SHA-1s among `shas` whose facts are stored by the current parser version. */
  knownBlobs(shas: string[], parserVersion: number): Set<string> {
    const known = new Set<string>();
    const stmt = this.db.prepare('SELECT 1 FROM blobs WHERE sha1 = ? AND parser_version = ?');
    for (const s of shas) if (stmt.get(s, parserVersion)) known.add(s);
    return known;
  }

  /** `json`, when given, is `facts` already serialized (by a parse worker). */
  putFacts(entries: { sha1: string; size: number; facts: ModuleFacts; json?: string }[]): void {
    const ins = this.db.prepare('INSERT OR REPLACE INTO blobs (sha1, parser_version, size, facts) VALUES (?, ?, ?, ?)');
    this.tx(() => {
      for (const e of entries) {
        ins.run(e.sha1, e.facts.parserVersion, e.size, e.json ?? JSON.stringify(e.facts));
        fault('commit');
      }
    });
  }

  getFacts(sha1: string): ModuleFacts | undefined {
    const row = this.db.prepare('SELECT facts FROM blobs WHERE sha1 = ?').get(sha1) as { facts: string } | undefined;
    return row ? (JSON.parse(row.facts) as ModuleFacts) : undefined;
  }

  /** Removes parse results no checkout refers to any more. */
  pruneBlobs(): number {
    return this.db.prepare('DELETE FROM blobs WHERE sha1 NOT IN (SELECT blob FROM files)').run().changes;
  }

  kvGet(ns: string, key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM kv WHERE ns = ? AND key = ?').get(ns, key) as
      { value: string } | undefined;
    return row?.value;
  }

  kvPut(ns: string, key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO kv (ns, key, value) VALUES (?, ?, ?)').run(ns, key, value);
  }
}
