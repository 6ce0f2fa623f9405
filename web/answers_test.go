package web

import (
	"testing"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
)

// A fix's preview lists the tasks whose tools it renames, a second answer or a rejected tool
// among them.
func TestRenamedExpectsAnswers(t *testing.T) {
	before := tasksOf("a:x|old b:x!old c:x")
	after := analysis.RenameTasks(before, []lint.Rename{{From: "old", To: "new"}})
	got := renamedExpects(before, after)
	if len(got) != 2 || got[0].OldExpect != "x or old" || got[0].NewExpect != "x or new" || got[1].NewExpect != "x, never new" {
		t.Errorf("renamed tasks = %+v, want tasks 1 and 2 with their answers and rejects", got)
	}
}
