-- Task files join the history, undo is kept per person, and workspaces keep small metadata.

-- Each version of a workspace's task file, once. Its id is the sequence number of the edit that
-- stored it (0: given at creation); first_number is the first revision that lists it, so that
-- a coalesced task edit can delete the version it replaces (as workspace_tools does for tools).
CREATE TABLE task_bodies (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id           BIGINT NOT NULL,
  body         BYTEA NOT NULL,
  first_number INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

-- Before this version only the current task file was kept: it becomes every revision's.
INSERT INTO task_bodies (workspace_id, id, body, first_number)
  SELECT t.workspace_id, w.seq, t.body, 0 FROM task_files t JOIN workspaces w ON w.id = t.workspace_id;

ALTER TABLE revisions ADD COLUMN tasks BIGINT; -- the task file (task_bodies.id); NULL: none
UPDATE revisions r SET tasks = b.id FROM task_bodies b WHERE b.workspace_id = r.workspace_id;
ALTER TABLE revisions ADD CONSTRAINT revisions_tasks_fkey FOREIGN KEY (workspace_id, tasks) REFERENCES task_bodies (workspace_id, id);
CREATE INDEX revisions_tasks ON revisions (workspace_id, tasks);
-- No cascade along the chain of parents: a workspace's revisions go with the workspace.
ALTER TABLE revisions DROP CONSTRAINT revisions_workspace_id_parent_fkey;
ALTER TABLE revisions ADD CONSTRAINT revisions_workspace_id_parent_fkey FOREIGN KEY (workspace_id, parent) REFERENCES revisions (workspace_id, number);
CREATE INDEX revisions_parent ON revisions (workspace_id, parent);
ALTER TABLE revisions DROP CONSTRAINT revisions_kind_check;
ALTER TABLE revisions ADD CONSTRAINT revisions_kind_check CHECK (kind IN ('import', 'edit', 'restore', 'replace', 'tasks'));
DROP TABLE task_files;

-- 1: the edit replaced the task file.
ALTER TABLE edits ADD COLUMN tasks INTEGER NOT NULL DEFAULT 0;

-- The seq of the last edit that changed the task file's shape (store.Workspace.TasksShape).
ALTER TABLE workspaces ADD COLUMN tasks_shape BIGINT NOT NULL DEFAULT 0;

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
  shape        BIGINT NOT NULL,  -- a task step: the task file's shape it was made in (workspaces.tasks_shape)
  before       BYTEA NOT NULL,
  after        BYTEA NOT NULL,
  PRIMARY KEY (workspace_id, author_id, stack, pos)
);

CREATE TABLE workspace_meta (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  key          TEXT NOT NULL,
  value        BYTEA NOT NULL,
  updated_at   BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, key)
);

-- Takes the advisory locks that guard tools (see toolLocks in store/internal/sqlstore), in the
-- order given, each shared or exclusive: the store passes them in one order for every
-- transaction, so that two never wait on each other in a circle; a function, so that they are
-- taken in that order in one round trip.
CREATE FUNCTION workbench_lock_tools(keys BIGINT[], exclusive BOOLEAN[]) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
    -- The two-number form, in a space of the workbench's own (1953460076 is "tool"), so that
    -- another application's advisory locks on the same database never meet these.
    IF exclusive[i] THEN
      PERFORM pg_advisory_xact_lock(1953460076, keys[i]::integer);
    ELSE
      PERFORM pg_advisory_xact_lock_shared(1953460076, keys[i]::integer);
    END IF;
  END LOOP;
END
$$;
