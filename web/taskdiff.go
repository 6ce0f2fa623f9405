package web

import (
	"encoding/json"
	"strings"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// maxTaskDiffRows bounds the task changes a diff lists. (The alignment bounds its own table:
// two wholly different 4 MiB task files read as every task removed and every task added.)
const maxTaskDiffRows = 200

// revisionTasks parses a revision's task file; a file that no longer parses reads as no tasks,
// as it does on the page.
func revisionTasks(body []byte) []selection.Task {
	if len(body) == 0 {
		return nil
	}
	ts, err := selection.ParseTasks(body, false)
	if err != nil {
		return nil
	}
	return ts
}

// taskDiff compares two task files: tasks are matched by their whole content along the longest
// common subsequence, and a task removed where another was added is shown as one changed task
// (a word diff of its text), which is what editing a task in the table does.
func taskDiff(a, b []selection.Task) (rows []views.TaskChange, more int) {
	key := func(t selection.Task) string {
		j, _ := json.Marshal(t)
		return string(j)
	}
	x, y := make([]string, len(a)), make([]string, len(b))
	for i, t := range a {
		x[i] = key(t)
	}
	for i, t := range b {
		y[i] = key(t)
	}
	steps := export.Align(x, y)
	add := func(r views.TaskChange) {
		if len(rows) >= maxTaskDiffRows {
			more++
			return
		}
		rows = append(rows, r)
	}
	for k := 0; k < len(steps); {
		if steps[k].Op == '=' {
			k++
			continue
		}
		// A run of removals and additions between two equal tasks: pair them up in order.
		var del, ins []int
		for ; k < len(steps) && steps[k].Op != '='; k++ {
			if steps[k].Op == '-' {
				del = append(del, steps[k].I)
			} else {
				ins = append(ins, steps[k].J)
			}
		}
		for p := 0; p < max(len(del), len(ins)); p++ {
			switch {
			case p < len(del) && p < len(ins):
				o, n := a[del[p]], b[ins[p]]
				r := views.TaskChange{Kind: "changed", Index: ins[p] + 1, OldExpect: expectOf(o), NewExpect: expectOf(n)}
				for _, e := range export.WordDiff(o.Task, n.Task) {
					r.Text = append(r.Text, views.DiffRun{Op: string(e.Op), Text: e.Text})
				}
				add(r)
			case p < len(del):
				o := a[del[p]]
				add(views.TaskChange{Kind: "removed", Index: del[p] + 1, Text: []views.DiffRun{{Op: "-", Text: o.Task}}, OldExpect: expectOf(o)})
			default:
				n := b[ins[p]]
				add(views.TaskChange{Kind: "added", Index: ins[p] + 1, Text: []views.DiffRun{{Op: "+", Text: n.Task}}, NewExpect: expectOf(n)})
			}
		}
	}
	return rows, more
}

// expectOf is how a task's expectation reads: the tool (or its right tools, "a or b"), or "no
// tool", and the tools it rejects.
func expectOf(t selection.Task) string {
	s := "no tool"
	if t.Expect != nil {
		s = answersText(t.AnyOf, *t.Expect)
	}
	if len(t.Reject) > 0 {
		s += ", never " + strings.Join(t.Reject, ", ")
	}
	return s
}
