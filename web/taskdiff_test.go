package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

func tasksOf(spec string) []selection.Task {
	var out []selection.Task
	for _, f := range strings.Fields(spec) {
		text, exp, ok := strings.Cut(f, ":")
		t := selection.Task{Task: strings.ReplaceAll(text, "_", " ")}
		// "x|y!z": any of x and y, never z.
		exp, rej, hasRej := strings.Cut(exp, "!")
		if hasRej {
			t.Reject = strings.Split(rej, "|")
		}
		if ok && strings.Contains(exp, "|") {
			t.AnyOf = strings.Split(exp, "|")
			t.Expect = &t.AnyOf[0]
		} else if ok {
			t.Expect = &exp
		}
		out = append(out, t)
	}
	return out
}

func diffString(rows []views.TaskChange) string {
	var b []string
	for _, r := range rows {
		var text []string
		for _, run := range r.Text {
			text = append(text, run.Op+run.Text)
		}
		b = append(b, fmt.Sprintf("%s %d %s [%s→%s]", r.Kind, r.Index, strings.Join(text, ""), r.OldExpect, r.NewExpect))
	}
	return strings.Join(b, "; ")
}

func TestTaskDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"same", "find:search read:read", "find:search read:read", ""},
		{"added at the end", "find:search", "find:search read:read", "added 2 +read [→read]"},
		{"removed in the middle", "a:x b:y c:z", "a:x c:z", "removed 2 -b [y→]"},
		{"text edited", "find_files:search", "find_all_files:search", "changed 1 =find +all =files [search→search]"},
		{"expectation changed", "find:search", "find:read", "changed 1 =find [search→read]"},
		{"to no tool", "find:search", "find", "changed 1 =find [search→no tool]"},
		{"from nothing", "", "a:x", "added 1 +a [→x]"},
		{"to nothing", "a:x b:y", "", "removed 1 -a [x→]; removed 2 -b [y→]"},
		// Two alignments are equally long; the word diff's rule holds: the removal comes first.
		{"swapped", "a:x b:y", "b:y a:x", "removed 1 -a [x→]; added 2 +a [→x]"},
		{"one of two alike edited", "a:x a:x", "a:x b:x", "changed 2 -a+b [x→x]"},
		{"an answer added", "find:search", "find:search|grep", "changed 1 =find [search→search or grep]"},
		{"a reject added", "find:search", "find:search!rm", "changed 1 =find [search→search, never rm]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, more := taskDiff(tasksOf(tc.a), tasksOf(tc.b))
			if got := diffString(rows); got != tc.want || more != 0 {
				t.Errorf("taskDiff(%q, %q) = %q (%d more), want %q", tc.a, tc.b, got, more, tc.want)
			}
		})
	}
}

// TestTaskDiffLongFile: an edit in a file too long to align whole is found, since the equal
// tasks around it are set aside before the alignment is sized.
func TestTaskDiffLongFile(t *testing.T) {
	var a, b []selection.Task
	for i := range 3000 {
		a = append(a, selection.Task{Task: fmt.Sprintf("task %d", i)})
		b = append(b, selection.Task{Task: fmt.Sprintf("task %d", i)})
	}
	b[1500].Task = "task 1500 edited"
	b = append(b[:10], b[11:]...)
	rows, more := taskDiff(a, b)
	want := "removed 11 -task 10 [no tool→]; changed 1500 =task 1500+ edited [no tool→no tool]"
	if got := diffString(rows); got != want || more != 0 {
		t.Errorf("got %q (%d more), want %q", got, more, want)
	}
}

// TestTaskDiffBounded: two large, wholly different task files are compared without building a
// table the size of their product, and the list is cut with a count of the rest.
func TestTaskDiffBounded(t *testing.T) {
	var a, b []selection.Task
	for i := range 3000 {
		a = append(a, selection.Task{Task: fmt.Sprintf("old %d", i)})
		b = append(b, selection.Task{Task: fmt.Sprintf("new %d", i)})
	}
	rows, more := taskDiff(a, b)
	if len(rows) != maxTaskDiffRows || more != 3000-maxTaskDiffRows {
		t.Errorf("%d rows and %d more, want %d and %d", len(rows), more, maxTaskDiffRows, 3000-maxTaskDiffRows)
	}
}
