-- The seq of the last edit that changed the listing's shape (store.Workspace.ToolsShape): a tool
-- added, removed or moved, a parameter added, removed or moved, a whole listing replaced,
-- restored or undone. Pages address tools and parameters by position; an edit made from a page
-- older than the shape may name another tool, and is refused.
ALTER TABLE workspaces ADD COLUMN tools_shape INTEGER NOT NULL DEFAULT 0;
