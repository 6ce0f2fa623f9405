package runner

import (
	"reflect"
	"testing"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/stats"
)

// A run with several right answers and a rejected tool, worked out by hand: tools a, b, c.
//
//	task 1 expects a or b, rejects c: a b c → 2 right, 1 rejected; rows a, b, a
//	task 2 expects b, rejects c:      c c b → 1 right, 2 rejected; rows b, b, b
//
// Scored 6, correct 3, rejected 3. Confusion rows: the chosen tool when accepted (a→a, b→b),
// else the first answer (c counts under a for task 1, under b for task 2).
func TestScoreAnswers(t *testing.T) {
	r := handRun([]string{"a", "b", "c"}, []*string{strp("a"), strp("b")}, 3, [][]string{
		{"a", "b", "c"}, {"c", "c", "b"},
	})
	r.Header.Tasks[0].AnyOf = []string{"a", "b"}
	r.Header.Tasks[0].Reject = []string{"c"}
	r.Header.Tasks[1].Reject = []string{"c"}
	s := ScoreRun(r)
	if s.Scored != 6 || s.Correct != 3 || s.Rejected != 3 {
		t.Fatalf("scored %d correct %d rejected %d, want 6 3 3", s.Scored, s.Correct, s.Rejected)
	}
	if s.PerTask[0].Correct != 2 || s.PerTask[0].Rejected != 1 || !reflect.DeepEqual(s.PerTask[0].Answers, []string{"a", "b"}) {
		t.Errorf("task 1 = %+v, want 2 right, 1 rejected, answers [a b]", s.PerTask[0])
	}
	if s.PerTask[1].Rejected != 2 || s.PerTask[1].Answers != nil {
		t.Errorf("task 2 = %+v, want 2 rejected and no answer list", s.PerTask[1])
	}
	wantConf := Confusion{Labels: []string{"a", "b", "c", NoTool}, Counts: [][]int{{1, 0, 1, 0}, {0, 2, 2, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}}
	if !reflect.DeepEqual(s.Confusion, wantConf) {
		t.Errorf("confusion = %+v, want %+v", s.Confusion, wantConf)
	}
	// a: expected 2 (row a), chosen 1, right 1. b: expected 4, chosen 2, right 2 (the b chosen
	// for task 1 counts on the diagonal). c: never right, chosen 3.
	want := []ToolScore{
		{Name: "a", Known: true, Expected: 2, Chosen: 1, Correct: 1, Precision: fp(1), Recall: fp(0.5), Share: 1.0 / 6},
		{Name: "b", Known: true, Expected: 4, Chosen: 2, Correct: 2, Precision: fp(1), Recall: fp(0.5), Share: 2.0 / 6},
		{Name: "c", Known: true, Expected: 0, Chosen: 3, Correct: 0, Precision: fp(0), Share: 0.5},
	}
	if !reflect.DeepEqual(s.PerTool, want) {
		t.Errorf("per tool = %+v\nwant %+v", s.PerTool, want)
	}
}

// Comparing runs of a task with several right tools pairs its samples by the set: a sample
// that chose any answer is right.
func TestCompareAnswers(t *testing.T) {
	tools := []string{"a", "b", "c"}
	run := func(choices []string) *Run {
		r := handRun(tools, []*string{strp("a")}, 2, [][]string{choices})
		r.Header.Tasks[0].AnyOf = []string{"a", "b"}
		r.Header.TasksHash = tasksHash(r.Header.Tasks)
		return r
	}
	cmp, err := Compare(run([]string{"b", "c"}), run([]string{"b", "b"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (stats.Paired{BothRight: 1, CurrentOnly: 1}); cmp.Pairs != want {
		t.Errorf("pairs = %+v, want %+v", cmp.Pairs, want)
	}
}

// A task's expected arguments are checked on whichever of its answers was chosen.
func TestArgsTool(t *testing.T) {
	set := selection.Task{Expect: strp("a"), AnyOf: []string{"a", "b"}}
	tests := []struct {
		task   selection.Task
		chosen string
		want   string
	}{
		{set, "b", "b"},
		{set, "c", "a"},
		{selection.Task{Expect: strp("a")}, "c", "a"},
		{selection.Task{}, "c", ""},
	}
	for _, tt := range tests {
		if got := argsTool(tt.task, tt.chosen); got != tt.want {
			t.Errorf("argsTool(%+v, %q) = %q, want %q", tt.task, tt.chosen, got, tt.want)
		}
	}
}
