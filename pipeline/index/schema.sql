-- nnblocks index: one SQLite database per cache folder. Parse results are keyed by git blob SHA-1, so a blob seen
-- in any source or commit is parsed once; `files` maps each source's current checkout onto blobs.
-- Tables come in groups, each with its own version in `table_versions` (see TABLE_VERSIONS in store.ts): a change
-- to a group's tables bumps that group's version, and only that group is rebuilt (the validation cache in `kv`
-- survives a change to the index tables).

-- group `index` ---------------------------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS blobs (
  sha1 TEXT PRIMARY KEY,             -- git blob SHA-1 of the file bytes
  parser_version INTEGER NOT NULL,   -- PARSER_VERSION that produced `facts`; older rows are reparsed
  size INTEGER NOT NULL,
  facts TEXT NOT NULL                -- ModuleFacts as JSON
);

CREATE TABLE IF NOT EXISTS files (
  source TEXT NOT NULL,              -- source id from the corpus config
  revision TEXT NOT NULL,            -- commit SHA, distribution version, or '' for an unversioned folder
  path TEXT NOT NULL,                -- posix path relative to the source root
  blob TEXT NOT NULL REFERENCES blobs(sha1),
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  mtime_ms INTEGER NOT NULL,         -- lets a re-run skip hashing files whose size and mtime did not change
  PRIMARY KEY (source, path)
);
CREATE INDEX IF NOT EXISTS files_blob ON files(blob);

-- group `kv` ------------------------------------------------------------------------------------------------------
-- Small keyed caches for later stages (validation results, ...): namespace + key -> JSON value.
CREATE TABLE IF NOT EXISTS kv (
  ns TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (ns, key)
);
