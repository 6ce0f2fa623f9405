-- A workspace's review (store.Reviews): comment threads and sign-offs. A thread is its first
-- comment (thread_id NULL, with the anchor and the resolved state); replies name it.
CREATE TABLE review_comments (
  id           TEXT NOT NULL PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  thread_id    TEXT REFERENCES review_comments (id) ON DELETE CASCADE,
  anchor       TEXT NOT NULL DEFAULT '{}',
  author       TEXT NOT NULL,
  author_id    TEXT NOT NULL DEFAULT '',
  body         TEXT NOT NULL,
  revision     INTEGER NOT NULL,
  seq          INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  resolved     INTEGER NOT NULL DEFAULT 0,
  resolved_by  TEXT NOT NULL DEFAULT '',
  resolved_at  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX review_comments_workspace ON review_comments (workspace_id, created_at);

CREATE TABLE review_signoffs (
  id           TEXT NOT NULL PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  author       TEXT NOT NULL,
  author_id    TEXT NOT NULL DEFAULT '',
  verdict      TEXT NOT NULL,
  message      TEXT NOT NULL DEFAULT '',
  revision     INTEGER NOT NULL,
  hash         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX review_signoffs_workspace ON review_signoffs (workspace_id, created_at);
