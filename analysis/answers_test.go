package analysis

import (
	"testing"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/selection"
)

// A rename repair renames a tool wherever a task names it: its one expected tool, each answer
// of a set, and each rejected tool; the task file's text is rewritten to match.
func TestRenameTasksAnswers(t *testing.T) {
	src := []byte(`[
  {"task": "a", "expect": ["get-ticket", "find"], "reject": ["del-ticket"]},
  {"task": "b", "expect": "get-ticket"},
  {"task": "c", "expect": null, "reject": ["other", "del-ticket"]},
  {"task": "d", "expect": "find"}
]`)
	tasks, err := selection.ParseTasks(src, false)
	if err != nil {
		t.Fatal(err)
	}
	renames := []lint.Rename{{From: "get-ticket", To: "get_ticket"}, {From: "del-ticket", To: "del_ticket"}}
	after := RenameTasks(tasks, renames)
	if tasks[0].AnyOf[0] != "get-ticket" || tasks[0].Reject[0] != "del-ticket" {
		t.Fatalf("RenameTasks changed its input: %+v", tasks[0])
	}
	want := `[
  {"task": "a", "expect": ["get_ticket", "find"], "reject": ["del_ticket"]},
  {"task": "b", "expect": "get_ticket"},
  {"task": "c", "expect": null, "reject": ["other", "del_ticket"]},
  {"task": "d", "expect": "find"}
]`
	out, _, err := FixedTasks(src, tasks, after)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("fixed task file:\n%s\nwant:\n%s", out, want)
	}
	back, err := selection.ParseTasks(out, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if got, w := back[i].Answers(), after[i].Answers(); len(got) != len(w) || len(got) > 0 && got[0] != w[0] || back[i].Expected() != after[i].Expected() {
			t.Errorf("task %d reads back as %+v, want %+v", i+1, back[i], after[i])
		}
	}
	if *after[0].Expect != "get_ticket" || after[0].AnyOf[0] != "get_ticket" || after[0].Reject[0] != "del_ticket" || after[2].Reject[1] != "del_ticket" {
		t.Errorf("renamed tasks: %+v", after)
	}
	if got := RenameTasks(tasks[3:], renames); &got[0] != &tasks[3] {
		t.Error("a task file naming no renamed tool was copied")
	}
}
