-- Where the tools and the parameters are (store.Workspace.ToolsShape and ParamsShape): the seq of
-- the last edit that added, removed or moved a tool (or replaced, restored or undid the whole
-- listing), and of the last that added, removed or moved a parameter of a tool. Pages address
-- tools and parameters by position; an edit made from a page older than the shape may name
-- another one, and is refused.
ALTER TABLE workspaces ADD COLUMN tools_shape INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN params_shape INTEGER NOT NULL DEFAULT 0;
