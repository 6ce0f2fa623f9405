package store

import (
	"strconv"

	"github.com/tool-workbench/workbench/listing"
)

// ReshapesTools reports whether an edit that turned before into after by ops changed the
// listing's shape: the position of a tool (one inserted, removed, moved, or replaced whole) or
// of a parameter within a tool (one added, removed, or moved). Renaming a tool or a parameter
// in place, or changing what it says, keeps the shape: positions still name the same thing.
func ReshapesTools(before, after *listing.Listing, ops []listing.Op) bool {
	touched := map[int]bool{}
	for _, op := range ops {
		toks, err := listing.SplitPointer(op.Path)
		if err != nil || len(toks) == 0 || toks[0] != "tools" {
			return true // not under /tools (edits cannot be): treat as a new listing
		}
		if len(toks) <= 2 {
			return true // the tools array, or one whole tool
		}
		i, err := strconv.Atoi(toks[1])
		if err != nil {
			return true
		}
		if toks[2] == "inputSchema" {
			touched[i] = true
		}
	}
	if before == nil || after == nil || len(before.Tools) != len(after.Tools) {
		return true
	}
	for i := range touched {
		if i >= len(before.Tools) || paramsMoved(before.Tools[i], after.Tools[i]) {
			return true
		}
	}
	return false
}

// paramsMoved reports whether a tool's parameters were added, removed or moved: their count
// changed, or a name kept moved to another position. A parameter renamed in place is not moved.
func paramsMoved(before, after *listing.Value) bool {
	b, a := paramNames(before), paramNames(after)
	if len(b) != len(a) {
		return true
	}
	at := make(map[string]int, len(a))
	for i, k := range a {
		at[k] = i
	}
	for i, k := range b {
		if j, ok := at[k]; ok && j != i {
			return true
		}
	}
	return false
}

func paramNames(tool *listing.Value) []string {
	fields := tool.Get("inputSchema").Get("properties").Fields()
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Key
	}
	return out
}

// UndoScope is the JSON pointer whose value an edit's undo writes back: the one member of a
// tool all its ops touch (a description, a schema, an annotation, one parameter's field), or
// the whole tools array for structural edits (tools added, removed, moved, or several members
// at once).
func UndoScope(ops []listing.Op) string {
	scope := ""
	for i, op := range ops {
		p := "/tools"
		if toks, err := listing.SplitPointer(op.Path); err == nil && len(toks) >= 3 && toks[0] == "tools" &&
			(op.Kind == listing.OpSet || op.Kind == listing.OpRemove) {
			p = op.Path
		}
		if i > 0 && p != scope {
			return "/tools"
		}
		scope = p
	}
	return scope
}
