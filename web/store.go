package web

// The names web keeps for the workspace service (package workspace), which the handlers, the
// hub, history and runs all share: one service per Server, over its store.

import (
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

type (
	// Workspace is one workspace as a person sees it (workspace.Workspace).
	Workspace = workspace.Workspace
	// Edit is one change by one person, as data (workspace.Edit).
	Edit = workspace.Edit
	// Author is who makes a change (workspace.Author).
	Author = workspace.Author
)

// ErrNotFound is a workspace id that the store does not know.
var ErrNotFound = workspace.ErrNotFound

// NewID returns an unguessable id (page ids; workspace ids come from the store).
func NewID() string { return store.NewID() }
