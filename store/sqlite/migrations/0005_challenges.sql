-- Workshop challenges (store.Challenges): a teacher's challenge made from a workspace, and its
-- participants, each with a copy of their own and their latest scores. Times are microseconds
-- since 1970 UTC; settings and scores are package challenge's JSON, kept as text exactly as given.
CREATE TABLE challenges (
  id           TEXT NOT NULL PRIMARY KEY,
  code         TEXT NOT NULL UNIQUE,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  title        TEXT NOT NULL,
  owner        TEXT NOT NULL DEFAULT '',
  owner_id     TEXT NOT NULL DEFAULT '',
  settings     TEXT NOT NULL,
  state        TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  changed_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX challenges_workspace ON challenges (workspace_id, created_at);

-- number orders participants as they joined (times may tie); name_key is the name folded for
-- comparison, so that "Ada" and "ADA" cannot both join one challenge. Deleting a participant's
-- workspace deletes their record.
CREATE TABLE challenge_participants (
  id           TEXT NOT NULL PRIMARY KEY,
  challenge_id TEXT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
  number       INTEGER NOT NULL,
  name         TEXT NOT NULL,
  name_key     TEXT NOT NULL,
  workspace_id TEXT NOT NULL UNIQUE REFERENCES workspaces (id) ON DELETE CASCADE,
  link_id      TEXT NOT NULL DEFAULT '',
  joined_at    INTEGER NOT NULL,
  seq          INTEGER NOT NULL DEFAULT 0,
  live         TEXT,
  scored_at    INTEGER NOT NULL DEFAULT 0,
  final        TEXT,
  UNIQUE (challenge_id, name_key),
  UNIQUE (challenge_id, number)
) STRICT;
