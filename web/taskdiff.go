package web

import (
	"encoding/json"

	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// maxTaskDiffRows bounds the task changes a diff lists (an LCS table of two 4 MiB task files
// would not fit either).
const (
	maxTaskDiffRows  = 200
	maxTaskDiffCells = 4 << 20
)

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
	// Trim what is equal at both ends, so that an edit in a long file costs little.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	xs, ys := x[pre:len(x)-suf], y[pre:len(y)-suf]
	type op struct {
		kind byte // '=', '-', '+'
		i, j int  // indexes into a and b
	}
	var ops []op
	if (len(xs)+1)*(len(ys)+1) > maxTaskDiffCells {
		// Too large to align: everything in the middle was replaced.
		for i := range xs {
			ops = append(ops, op{'-', pre + i, -1})
		}
		for j := range ys {
			ops = append(ops, op{'+', -1, pre + j})
		}
	} else {
		n, m := len(xs), len(ys)
		l := make([][]int32, n+1)
		for i := range l {
			l[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if xs[i] == ys[j] {
					l[i][j] = l[i+1][j+1] + 1
				} else {
					l[i][j] = max(l[i+1][j], l[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && xs[i] == ys[j]:
				ops = append(ops, op{'=', pre + i, pre + j})
				i, j = i+1, j+1
			case j < m && (i == n || l[i][j+1] >= l[i+1][j]):
				ops = append(ops, op{'+', -1, pre + j})
				j++
			default:
				ops = append(ops, op{'-', pre + i, -1})
				i++
			}
		}
	}
	add := func(r views.TaskChange) {
		if len(rows) >= maxTaskDiffRows {
			more++
			return
		}
		rows = append(rows, r)
	}
	for k := 0; k < len(ops); {
		if ops[k].kind == '=' {
			k++
			continue
		}
		// A run of removals and additions between two equal tasks: pair them up in order.
		var del, ins []int
		for ; k < len(ops) && ops[k].kind != '='; k++ {
			if ops[k].kind == '-' {
				del = append(del, ops[k].i)
			} else {
				ins = append(ins, ops[k].j)
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

// expectOf is how a task's expectation reads: the tool, or "no tool".
func expectOf(t selection.Task) string {
	if t.Expect == nil {
		return "no tool"
	}
	return *t.Expect
}
