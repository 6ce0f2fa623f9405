-- workbench: foreign keys off
-- Task files join the history, undo is kept per person, and workspaces keep small metadata.
-- SQLite cannot change a CHECK constraint or add a table constraint in place, so revisions is
-- rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter), with foreign keys off while
-- the migration runs and checked before it commits.

-- Each version of a workspace's task file, once. Its id is the sequence number of the edit that
-- stored it (0: given at creation); first_number is the first revision that lists it, so that
-- a coalesced task edit can delete the version it replaces (as workspace_tools does for tools).
CREATE TABLE task_bodies (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id           INTEGER NOT NULL,
  body         BLOB NOT NULL,
  first_number INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, id)
) STRICT;

-- Before this version only the current task file was kept: it becomes every revision's.
INSERT INTO task_bodies (workspace_id, id, body, first_number)
  SELECT t.workspace_id, w.seq, t.body, 0 FROM task_files t JOIN workspaces w ON w.id = t.workspace_id;

CREATE TABLE revisions_new (
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number        INTEGER NOT NULL CHECK (number >= 0),
  parent        INTEGER,         -- NULL for the baseline (number 0)
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'edit', 'restore', 'replace', 'tasks')),
  author        TEXT NOT NULL,   -- display name
  author_id     TEXT NOT NULL DEFAULT '', -- stable identity (session, account), if known
  message       TEXT NOT NULL DEFAULT '',
  name          TEXT,            -- NULL unless named
  field         TEXT NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  edit_count    INTEGER NOT NULL,
  first_seq     INTEGER NOT NULL,
  last_seq      INTEGER NOT NULL,
  restored_from INTEGER,
  envelope      BLOB NOT NULL,   -- the listing as (*listing.Listing).Marshal writes it, each tool cut out
  tools         BLOB NOT NULL,   -- per tool in order: its SHA-256 (32 bytes), then its offset in envelope (uvarint)
  tasks         INTEGER,         -- the task file (task_bodies.id); NULL: none
  PRIMARY KEY (workspace_id, number),
  -- No cascade along the chain of parents: a workspace's revisions go with the workspace, in one
  -- statement, and SQLite refuses cascades nested over 1000 deep (a long history).
  FOREIGN KEY (workspace_id, parent) REFERENCES revisions (workspace_id, number),
  FOREIGN KEY (workspace_id, tasks) REFERENCES task_bodies (workspace_id, id),
  CHECK ((number = 0) = (parent IS NULL))
) STRICT;

INSERT INTO revisions_new (workspace_id, number, parent, kind, author, author_id, message, name, field, created_at, updated_at,
    edit_count, first_seq, last_seq, restored_from, envelope, tools, tasks)
  SELECT r.workspace_id, r.number, r.parent, r.kind, r.author, r.author_id, r.message, r.name, r.field, r.created_at, r.updated_at,
    r.edit_count, r.first_seq, r.last_seq, r.restored_from, r.envelope, r.tools,
    (SELECT b.id FROM task_bodies b WHERE b.workspace_id = r.workspace_id)
  FROM revisions r;
DROP TABLE revisions;
ALTER TABLE revisions_new RENAME TO revisions;
CREATE UNIQUE INDEX revisions_name ON revisions (workspace_id, name) WHERE name IS NOT NULL;
-- The foreign keys' lookups: deleting a task file a coalesced task edit replaced, and revisions.
CREATE INDEX revisions_tasks ON revisions (workspace_id, tasks);
CREATE INDEX revisions_parent ON revisions (workspace_id, parent);
DROP TABLE task_files;

-- 1: the edit replaced the task file.
ALTER TABLE edits ADD COLUMN tasks INTEGER NOT NULL DEFAULT 0;

-- The seq of the last edit that changed the task file's shape (store.Workspace.TasksShape).
ALTER TABLE workspaces ADD COLUMN tasks_shape INTEGER NOT NULL DEFAULT 0;

-- Each person's undo and redo steps on each workspace, by position (the top is the highest).
-- before and after are JSON: {"v": value}, {} (absent), or {"rev": n} (the value the path has
-- in revision n, which no later edit changes: used for large values such as whole tool arrays).
CREATE TABLE undo_steps (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  author_id    TEXT NOT NULL,
  stack        TEXT NOT NULL CHECK (stack IN ('undo', 'redo')),
  pos          INTEGER NOT NULL,
  step_key     TEXT NOT NULL,
  tasks        INTEGER NOT NULL,  -- 1: the step takes back the task file, 0: the value at path
  path         TEXT NOT NULL,
  tool         TEXT NOT NULL,     -- the name of the tool path is in ('' if none): found by name if tools moved
  shape        INTEGER NOT NULL,  -- a task step: the task file's shape it was made in (workspaces.tasks_shape)
  before       BLOB NOT NULL,
  after        BLOB NOT NULL,
  PRIMARY KEY (workspace_id, author_id, stack, pos)
) STRICT;

CREATE TABLE workspace_meta (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  key          TEXT NOT NULL,
  value        BLOB NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, key)
) STRICT;
