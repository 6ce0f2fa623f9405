package tooledit

import (
	"fmt"
	"strconv"

	"github.com/tool-workbench/workbench/listing"
)

// toolOps adds, duplicates, removes or moves a tool, and returns the tool to show after it.
func toolOps(l *listing.Listing, op string, i int) ([]listing.Op, int, error) {
	n := len(l.Tools)
	if op != "add" && (i < 0 || i >= n) {
		return nil, 0, ToolGone(i, n)
	}
	names := map[string]bool{}
	for _, nm := range l.Names() {
		names[nm] = true
	}
	unique := func(base string) string {
		name := base
		for k := 2; names[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		return name
	}
	switch op {
	case "add":
		tool := listing.NewObject(
			listing.Member{Key: "name", Value: listing.NewString(unique("new_tool")), KeyPos: -1},
			listing.Member{Key: "description", Value: listing.NewString(""), KeyPos: -1},
			listing.Member{Key: "inputSchema", Value: listing.NewObject(
				listing.Member{Key: "type", Value: listing.NewString("object"), KeyPos: -1},
				listing.Member{Key: "additionalProperties", Value: listing.NewBool(false), KeyPos: -1}), KeyPos: -1})
		return []listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: tool}}, n, nil
	case "dup":
		c := set(l.Tools[i], "name", listing.NewString(unique(l.Names()[i]+"_copy")))
		return []listing.Op{{Kind: listing.OpInsert, Path: toolPtr(i + 1), Value: c}}, i + 1, nil
	case "del":
		sel := i
		if sel >= n-1 {
			sel = n - 2
		}
		return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(i)}}, max(sel, 0), nil
	case "up", "down":
		to := i - 1
		if op == "down" {
			to = i + 1
		}
		if to < 0 || to >= n {
			return nil, i, nil
		}
		return []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: i, To: to}}, to, nil
	}
	return nil, 0, fmt.Errorf("unknown tool operation %q", op)
}
