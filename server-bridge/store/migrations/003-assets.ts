/**
 * Assets and collections. An asset row is per user; its bytes live in a content-addressed file under
 * $DATA_DIR/assets named by `sha256`, shared by every row with the same content and removed with the
 * last of them. Collection chunks are searched with FTS5 (porter stemming) kept in step by triggers.
 */
export const assets = `
CREATE TABLE assets (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('image', 'text', 'binary')),
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  width INTEGER,
  height INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX assets_user ON assets(user_id, created_at);
CREATE INDEX assets_sha ON assets(sha256);

CREATE TABLE collections (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (user_id, name)
);

CREATE TABLE collection_chunks (
  id INTEGER PRIMARY KEY,
  collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  document_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  UNIQUE (collection_id, document_id, chunk_index)
);
CREATE VIRTUAL TABLE collection_chunks_fts USING fts5(
  text, content='collection_chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER collection_chunks_ai AFTER INSERT ON collection_chunks BEGIN
  INSERT INTO collection_chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER collection_chunks_ad AFTER DELETE ON collection_chunks BEGIN
  INSERT INTO collection_chunks_fts(collection_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`;
