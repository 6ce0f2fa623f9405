package workspace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Summary says in a few words what ops do to l (the listing they are made from), for the
// History list: "description of search_issues", "renamed a to b", "added tool x", "3 tools
// changed". The store keeps it as the message of the revision the edit starts; a burst of
// typing extends that revision only while it sets the same field, so the words stay true.
func Summary(l *listing.Listing, ops []listing.Op) string {
	return shortText(summary(l, ops))
}

// maxSummary bounds a summary: a tool name may be megabytes long (a hostile listing), and the
// store refuses a message over store.MaxMessage characters.
const maxSummary = 120

// shortText keeps s within maxSummary characters, as one line the store accepts.
func shortText(s string) string {
	s = strings.Map(displayRune, strings.ToValidUTF8(s, "?"))
	if r := []rune(s); len(r) > maxSummary {
		s = string(r[:maxSummary-1]) + "…"
	}
	return s
}

func summary(l *listing.Listing, ops []listing.Op) string {
	if len(ops) == 0 {
		return ""
	}
	if len(ops) == 1 {
		if s := opSummary(l, ops[0]); s != "" {
			return s
		}
	}
	tools := map[int]bool{}
	for _, op := range ops {
		toks, err := listing.SplitPointer(op.Path)
		if err != nil || len(toks) < 2 || toks[0] != "tools" {
			return howMany(len(ops), "change", "changes") + " to the tools"
		}
		i, err := strconv.Atoi(toks[1])
		if err != nil {
			return howMany(len(ops), "change", "changes") + " to the tools"
		}
		tools[i] = true
	}
	if len(tools) == 1 {
		for i := range tools {
			return howMany(len(ops), "change", "changes") + " to " + toolName(l, i)
		}
	}
	return howMany(len(tools), "tool", "tools") + " changed"
}

// opSummary describes one op; "" when it is not about one tool.
func opSummary(l *listing.Listing, op listing.Op) string {
	toks, err := listing.SplitPointer(op.Path)
	if err != nil || len(toks) == 0 || toks[0] != "tools" {
		return ""
	}
	if len(toks) == 1 {
		if op.Kind == listing.OpMove {
			return "moved " + toolName(l, op.From)
		}
		return ""
	}
	i, err := strconv.Atoi(toks[1])
	if toks[1] == "-" || err != nil || len(toks) == 2 {
		switch {
		case op.Kind == listing.OpInsert && op.Value != nil:
			return "added tool " + op.Value.Get("name").String()
		case op.Kind == listing.OpRemove && err == nil:
			return "removed tool " + toolName(l, i)
		}
		return ""
	}
	field := strings.Join(toks[2:], ".")
	switch {
	case field == "name" && op.Kind == listing.OpSet && op.Value != nil:
		return fmt.Sprintf("renamed %s to %s", toolName(l, i), op.Value.String())
	case op.Kind == listing.OpRemove:
		return fmt.Sprintf("removed %s of %s", field, toolName(l, i))
	}
	return fmt.Sprintf("%s of %s", field, toolName(l, i))
}

// toolName is tool i's name in l, or "tool N" (counted from 1) when it has none.
func toolName(l *listing.Listing, i int) string {
	if l != nil && i >= 0 && i < len(l.Tools) {
		if n := l.Tools[i].Get("name"); n != nil && n.Kind == listing.String && n.Str != "" {
			return n.Str
		}
	}
	return "tool " + strconv.Itoa(i+1)
}

func howMany(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// taskSummary says what a task change does: "task 4", "added a task", "removed task 2".
func taskSummary(tc *TaskChange) string {
	switch {
	case tc == nil:
		return "replaced the task file"
	case tc.Op == "add":
		return "added a task"
	case tc.Op == "del":
		return fmt.Sprintf("removed task %d", tc.Index+1)
	case tc.Field == "expect":
		return fmt.Sprintf("expected tool of task %d", tc.Index+1)
	}
	return fmt.Sprintf("task %d", tc.Index+1)
}

// messageOr is the message a person gave, else the summary of what their edit does.
func messageOr(given, summary string) string {
	if given != "" {
		return given
	}
	return summary
}

// RevisionSummary says what revision r changed, for the History list: its message (which the
// service writes as a Summary of the edit that started it), or, for a revision stored without
// one, what its kind and the field its edits set tell.
func RevisionSummary(r store.Revision) string {
	switch {
	case r.Message != "":
		return r.Message
	case r.Kind == store.KindRestore:
		return fmt.Sprintf("restored revision %d", r.RestoredFrom)
	case r.Kind == store.KindTasks:
		toks, err := listing.SplitPointer(r.Field)
		if err != nil || len(toks) < 2 {
			return ""
		}
		i, err := strconv.Atoi(toks[0])
		if err != nil {
			return ""
		}
		return taskSummary(&TaskChange{Op: "set", Index: i, Field: toks[1]})
	case r.Kind == store.KindEdit && r.Field != "":
		toks, err := listing.SplitPointer(r.Field)
		if err != nil || len(toks) < 3 || toks[0] != "tools" {
			return ""
		}
		i, err := strconv.Atoi(toks[1])
		if err != nil {
			return ""
		}
		return strings.Join(toks[2:], ".") + " of " + toolName(nil, i)
	}
	return ""
}
