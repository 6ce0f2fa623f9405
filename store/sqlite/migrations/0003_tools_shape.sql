-- Where the tools and the parameters are (store.Workspace.ToolsShape and ParamsShapes): the seq
-- of the last edit that added, removed or moved a tool (or replaced, restored or undid the whole
-- listing), and, per tool, of the last that added, removed or moved one of its parameters since
-- (JSON: {"3": 41}). Pages address tools and parameters by position; an edit made from a page
-- older than the shape may name another one, and is refused.
ALTER TABLE workspaces ADD COLUMN tools_shape INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN params_shapes TEXT NOT NULL DEFAULT '{}';
