// The one module that owns SQLite: opens the index database (WAL), applies the schema, and offers typed queries.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fault } from '../util/fault.ts';
import type { ModuleFacts } from '../parse/facts.ts';

/**
 * Versions of the table groups in schema.sql, each bumped on its own when its tables change in a way old rows
 * can't follow. A group whose stored version differs is dropped and recreated; the others are kept. So a change
 * to the index tables (a cache of parses, cheap to rebuild) keeps the validation cache (`kv`, minutes of sandboxed
 * runs), and the reverse. See docs/index.md ("Where state lives").
 */
export const TABLE_VERSIONS: Readonly<Record<TableGroup, number>> = { index: 1, kv: 1 };

export type TableGroup = 'index' | 'kv';

const GROUP_TABLES: Record<TableGroup, string[]> = { index: ['files', 'blobs'], kv: ['kv'] };

/** Databases written before groups were versioned carry one PRAGMA user_version for all; it was 1. */
const LEGACY_USER_VERSION = 1;

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
  /**
   * Statements of the per-row calls, prepared once: better-sqlite3 compiles the SQL on every `prepare`, and a warm
   * build of the paper's corpus makes some 30,000 of these calls (0.8 s of compiling the same three statements).
   */
  private readonly statements = new Map<string, Database.Statement>();

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** `versions` is for tests that play a schema change; everything else uses TABLE_VERSIONS. */
  constructor(
    readonly file: string,
    versions: Readonly<Record<TableGroup, number>> = TABLE_VERSIONS,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Two concurrent runs share the file: wait for the other writer instead of failing at once.
    this.db.pragma('busy_timeout = 10000');
    this.tx(() => this.migrate(versions));
  }

  /** Drops the table groups whose stored version differs, then creates whatever is missing. */
  private migrate(versions: Readonly<Record<TableGroup, number>>): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS table_versions (grp TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    const stored = new Map(
      (this.db.prepare('SELECT grp, version FROM table_versions').all() as { grp: string; version: number }[]).map(
        (r) => [r.grp, r.version],
      ),
    );
    const legacy = stored.size === 0 && this.db.pragma('user_version', { simple: true }) === LEGACY_USER_VERSION;
    const put = this.db.prepare('INSERT OR REPLACE INTO table_versions (grp, version) VALUES (?, ?)');
    for (const group of Object.keys(GROUP_TABLES) as TableGroup[]) {
      const have = stored.get(group) ?? (legacy ? 1 : undefined);
      // A cache group rebuilt from scratch loses nothing that can't be recomputed (sources, sandboxed runs).
      if (have !== versions[group]) for (const t of GROUP_TABLES[group]) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
      put.run(group, versions[group]);
    }
    const schema = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'schema.sql'), 'utf8');
    this.db.exec(schema);
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
    const row = this.stmt('SELECT facts FROM blobs WHERE sha1 = ?').get(sha1) as { facts: string } | undefined;
    return row ? (JSON.parse(row.facts) as ModuleFacts) : undefined;
  }

  /** Removes parse results no checkout refers to any more. */
  pruneBlobs(): number {
    return this.db.prepare('DELETE FROM blobs WHERE sha1 NOT IN (SELECT blob FROM files)').run().changes;
  }

  kvGet(ns: string, key: string): string | undefined {
    const row = this.stmt('SELECT value FROM kv WHERE ns = ? AND key = ?').get(ns, key) as
      { value: string } | undefined;
    return row?.value;
  }

  kvPut(ns: string, key: string, value: string): void {
    this.stmt('INSERT OR REPLACE INTO kv (ns, key, value) VALUES (?, ?, ?)').run(ns, key, value);
  }
}
