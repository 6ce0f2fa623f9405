-- The workbench's tables (PostgreSQL). Times are microseconds since 1970 UTC; IDs and tokens are 128
-- random bits as 32 hex digits; listings, ops and run bodies are JSON kept byte for byte.
CREATE TABLE workspaces (
  id          TEXT PRIMARY KEY,
  title       TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL,
  head        INTEGER NOT NULL,  -- number of the newest revision
  seq         BIGINT  NOT NULL,  -- edits accepted so far
  forked_from TEXT               -- no foreign key: the source may be deleted later
);
CREATE INDEX workspaces_updated ON workspaces (updated_at DESC);

CREATE TABLE revisions (
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number        INTEGER NOT NULL CHECK (number >= 0),
  parent        INTEGER,         -- NULL for the baseline (number 0)
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'edit', 'restore', 'replace')),
  author        TEXT NOT NULL,   -- display name
  author_id     TEXT NOT NULL DEFAULT '', -- stable identity (session, account), if known
  message       TEXT NOT NULL DEFAULT '',
  name          TEXT,            -- NULL unless named
  field         TEXT NOT NULL DEFAULT '',
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL,
  edit_count    INTEGER NOT NULL,
  first_seq     BIGINT  NOT NULL,
  last_seq      BIGINT  NOT NULL,
  restored_from INTEGER,
  envelope      BYTEA NOT NULL,   -- the listing as (*listing.Listing).Marshal writes it, each tool cut out
  tools         BYTEA NOT NULL,   -- per tool in order: its SHA-256 (32 bytes), then its offset in envelope (uvarint)
  PRIMARY KEY (workspace_id, number),
  FOREIGN KEY (workspace_id, parent) REFERENCES revisions (workspace_id, number) ON DELETE CASCADE,
  CHECK ((number = 0) = (parent IS NULL))
);
CREATE UNIQUE INDEX revisions_name ON revisions (workspace_id, name) WHERE name IS NOT NULL;

-- Each tool's JSON (as listing.Marshal writes it, compact) once, by its SHA-256: a revision lists
-- the hashes of its tools, so that an edit to one tool writes that tool, not the whole listing.
CREATE TABLE tools (
  hash BYTEA PRIMARY KEY,
  json BYTEA NOT NULL
);

-- Which tools each workspace's revisions list, and the first revision that lists each, so that a
-- tool no revision lists any more can be deleted. Only the head revision changes (a coalesced
-- keystroke replaces its tools), so a tool it drops is listed nowhere in its workspace any more
-- exactly when its first revision is the head. A tool another workspace (say, a fork) lists stays.
CREATE TABLE workspace_tools (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  hash         BYTEA NOT NULL REFERENCES tools (hash),
  first_number INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, hash)
);
CREATE INDEX workspace_tools_hash ON workspace_tools (hash);

CREATE TABLE edits (
  workspace_id TEXT NOT NULL,
  seq          BIGINT  NOT NULL CHECK (seq > 0),
  revision     INTEGER NOT NULL,
  author       TEXT NOT NULL,
  author_id    TEXT NOT NULL DEFAULT '',
  at           BIGINT NOT NULL,
  ops          BYTEA NOT NULL,    -- JSON array of listing.Op
  PRIMARY KEY (workspace_id, seq),
  FOREIGN KEY (workspace_id, revision) REFERENCES revisions (workspace_id, number) ON DELETE CASCADE
);
CREATE INDEX edits_revision ON edits (workspace_id, revision);

CREATE TABLE task_files (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  body         BYTEA NOT NULL,
  author       TEXT NOT NULL,
  updated_at   BIGINT NOT NULL
);

CREATE TABLE runs (
  id           TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  revision     INTEGER NOT NULL,
  label        TEXT NOT NULL,
  status       TEXT NOT NULL,
  author       TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  updated_at   BIGINT NOT NULL,
  meta         BYTEA,
  body         BYTEA,
  FOREIGN KEY (workspace_id, revision) REFERENCES revisions (workspace_id, number) ON DELETE CASCADE
);
CREATE INDEX runs_workspace ON runs (workspace_id, created_at DESC);

CREATE TABLE share_links (
  id           TEXT PRIMARY KEY,
  token_hash   BYTEA NOT NULL UNIQUE, -- SHA-256 of the token; the token itself is never stored
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  capability   TEXT NOT NULL CHECK (capability IN ('view', 'edit')),
  author       TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  revoked_at   BIGINT
);
CREATE INDEX share_links_workspace ON share_links (workspace_id);

CREATE TABLE sessions (
  token_hash BYTEA PRIMARY KEY,     -- SHA-256 of the token
  id         TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_expires ON sessions (expires_at);
