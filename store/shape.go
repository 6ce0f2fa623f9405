package store

import (
	"slices"
	"strconv"

	"github.com/tool-workbench/workbench/listing"
)

// ReshapesTools reports whether ops move tools: insert, remove or move one, or replace one
// whole or all of them. Renaming a tool or changing what it says keeps every tool in its place.
func ReshapesTools(ops []listing.Op) bool {
	for _, op := range ops {
		toks, err := listing.SplitPointer(op.Path)
		if err != nil || len(toks) <= 2 || toks[0] != "tools" {
			return true // the tools array, one whole tool, or (edits cannot be) not under /tools
		}
	}
	return false
}

// ReshapedParams returns the tools (by index) whose parameters an edit that turned before into
// after by ops (which moved no tool) added, removed or moved. Renaming a parameter in place, or
// changing what it says, keeps every parameter in its place.
func ReshapedParams(before, after *listing.Listing, ops []listing.Op) []int {
	var out []int
	for _, op := range ops {
		toks, err := listing.SplitPointer(op.Path)
		if err != nil || len(toks) < 3 || toks[2] != "inputSchema" {
			continue
		}
		i, err := strconv.Atoi(toks[1])
		if err != nil || i < 0 || i >= len(before.Tools) || i >= len(after.Tools) || slices.Contains(out, i) {
			continue
		}
		if paramsMoved(before.Tools[i], after.Tools[i]) {
			out = append(out, i)
		}
	}
	return out
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
