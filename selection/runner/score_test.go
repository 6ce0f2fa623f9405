package runner

import (
	"math"
	"reflect"
	"testing"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/stats"
)

func strp(s string) *string { return &s }

// handRun builds a run from choices per task ("" for an error).
func handRun(tools []string, expects []*string, samples int, choices [][]string) *Run {
	var tasks []selection.Task
	for i, e := range expects {
		tasks = append(tasks, selection.Task{Task: string(rune('a' + i)), Expect: e})
	}
	r := &Run{Header: Header{Kind: "run", Version: 1, Spec: Spec{Endpoint: "e", Model: "m", Samples: samples}, Tools: tools, Tasks: tasks, TasksHash: tasksHash(tasks), ListingHash: "l"}}
	for ti, cs := range choices {
		for si, ch := range cs {
			c := Call{Task: ti, Sample: si, Position: -1}
			switch ch {
			case "":
				c.Outcome, c.Error = OutError, "boom"
			case NoTool:
				c.Outcome = OutText
			default:
				c.Outcome, c.Tool, c.Known = OutTool, ch, true
			}
			r.Calls = append(r.Calls, c)
		}
	}
	return r
}

func fp(f float64) *float64 { return &f }

// A run worked out by hand: tools a and b, three tasks (a, b, none), three samples each.
//
//	expects a:    a a b     → 2 right
//	expects b:    b a (err) → 1 right, 1 error
//	expects none: - a -     → 2 right
//
// Scored 8, correct 5. Chosen a: 4 (2 right) → precision 1/2; expected a: 3 → recall 2/3.
// Chosen b: 2 (1 right) → precision 1/2; expected b: 2 scored → recall 1/2.
// Consistency: (2/3 + 1/2 + 2/3) / 3 = 11/18.
func TestScoreByHand(t *testing.T) {
	r := handRun([]string{"a", "b"}, []*string{strp("a"), strp("b"), nil}, 3, [][]string{
		{"a", "a", "b"}, {"b", "a", ""}, {NoTool, "a", NoTool},
	})
	s := ScoreRun(r)
	if s.Scored != 8 || s.Correct != 5 || s.Errors != 1 || s.Missing != 0 {
		t.Fatalf("scored %d correct %d errors %d missing %d, want 8 5 1 0", s.Scored, s.Correct, s.Errors, s.Missing)
	}
	if s.Accuracy != 5.0/8 || s.Interval != stats.Wilson(5, 8, stats.Z95) {
		t.Errorf("accuracy %v %+v, want 5/8 with Wilson(5, 8)", s.Accuracy, s.Interval)
	}
	if s.NoTool.K != 2 || s.NoTool.N != 3 {
		t.Errorf("no-tool = %d/%d, want 2/3", s.NoTool.K, s.NoTool.N)
	}
	want := []ToolScore{
		{Name: "a", Known: true, Expected: 3, Chosen: 4, Correct: 2, Precision: fp(0.5), Recall: fp(2.0 / 3), Share: 0.5},
		{Name: "b", Known: true, Expected: 2, Chosen: 2, Correct: 1, Precision: fp(0.5), Recall: fp(0.5), Share: 0.25},
	}
	if !reflect.DeepEqual(s.PerTool, want) {
		t.Errorf("per tool = %+v\nwant %+v", s.PerTool, want)
	}
	wantConf := Confusion{Labels: []string{"a", "b", NoTool}, Counts: [][]int{{2, 1, 0}, {1, 1, 0}, {1, 0, 2}}}
	if !reflect.DeepEqual(s.Confusion, wantConf) {
		t.Errorf("confusion = %+v, want %+v", s.Confusion, wantConf)
	}
	if math.Abs(s.Consistency-11.0/18) > 1e-12 || s.Unanimous != 0 {
		t.Errorf("consistency %v unanimous %d, want 11/18 and 0", s.Consistency, s.Unanimous)
	}
	if got := s.PerTask[1].Choices; !reflect.DeepEqual(got, []string{"b", "a", ErrorChoice}) {
		t.Errorf("task 2 choices = %v", got)
	}
	if s.PerTask[0].Modal != "a" || s.PerTask[2].Modal != NoTool {
		t.Errorf("modal choices %q %q, want a and none", s.PerTask[0].Modal, s.PerTask[2].Modal)
	}
	// Ties go to the label listed first: b's task has one a and one b.
	if s.PerTask[1].Modal != "a" {
		t.Errorf("tied modal = %q, want a (listed first)", s.PerTask[1].Modal)
	}
}

func TestScoreUnknownToolAndMissing(t *testing.T) {
	r := handRun([]string{"a"}, []*string{strp("a"), strp("a")}, 2, [][]string{{"zzz", "a"}})
	s := ScoreRun(r)
	if s.Missing != 2 {
		t.Errorf("missing = %d, want 2", s.Missing)
	}
	if got := s.Confusion.Labels; !reflect.DeepEqual(got, []string{"a", NoTool, "zzz"}) {
		t.Errorf("labels = %v, want the unknown name last", got)
	}
	for _, ts := range s.PerTool {
		if ts.Name == "zzz" && (ts.Known || ts.Chosen != 1 || ts.Recall != nil || *ts.Precision != 0) {
			t.Errorf("unknown tool score = %+v", ts)
		}
	}
}

// Two runs by hand: 4 tasks × 2 samples. Baseline right on pairs: t1 ✓✓, t2 ✓✓, t3 ✗✗, t4 ✗✓;
// current: t1 ✓✓, t2 ✗✗ (c took it), t3 ✓✓, t4 ✓✓. Pairs: both right 2 (t1) + 1 (t4's
// second) = 3, base only 2 (t2), current only 2 (t3) + 1 (t4's first) = 3, both wrong 0.
// Accuracy 5/8 → 6/8. McNemar exact(2, 3) = 2·(1+5+10)/32 = 1.
func TestCompareByHand(t *testing.T) {
	tools := []string{"a", "b", "c"}
	exp := []*string{strp("a"), strp("b"), strp("a"), strp("b")}
	base := handRun(tools, exp, 2, [][]string{{"a", "a"}, {"b", "b"}, {"b", "c"}, {"a", "b"}})
	cur := handRun(tools, exp, 2, [][]string{{"a", "a"}, {"c", "c"}, {"a", "a"}, {"b", "b"}})
	cur.Header.ListingHash = "other"
	cmp, err := Compare(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	if want := (stats.Paired{BothRight: 3, BaseOnly: 2, CurrentOnly: 3, BothWrong: 0}); cmp.Pairs != want {
		t.Errorf("pairs = %+v, want %+v", cmp.Pairs, want)
	}
	if cmp.McNemarP != 1 || math.Abs(cmp.Difference-1.0/8) > 1e-12 || cmp.BaselineAccuracy != 5.0/8 || cmp.CurrentAccuracy != 6.0/8 {
		t.Errorf("p %v diff %v acc %v→%v, want 1, 1/8, 5/8→6/8", cmp.McNemarP, cmp.Difference, cmp.BaselineAccuracy, cmp.CurrentAccuracy)
	}
	if cmp.Interval != (stats.Paired{BothRight: 3, BaseOnly: 2, CurrentOnly: 3}).DifferenceInterval(stats.Z95) {
		t.Errorf("interval %+v is not Newcombe's for the pairs", cmp.Interval)
	}
	// t2 broke (c took it), t3 fixed; t4 went from half right to all right: 0.5 is no majority.
	wantFlips := []Flip{
		{Index: 1, Task: "b", Expected: "b", Before: "b", After: "c", Fixed: false, BeforeCorrect: 1, AfterCorrect: 0},
		{Index: 2, Task: "c", Expected: "a", Before: "b", After: "a", Fixed: true, BeforeCorrect: 0, AfterCorrect: 1},
		{Index: 3, Task: "d", Expected: "b", Before: "a", After: "b", Fixed: true, BeforeCorrect: 0.5, AfterCorrect: 1},
	}
	if !reflect.DeepEqual(cmp.Flipped, wantFlips) {
		t.Errorf("flipped = %+v\nwant %+v", cmp.Flipped, wantFlips)
	}
	// c: chosen 1 of 8 (wrong) → 2 of 8 (both wrong); precision 0 → 0: persuasive.
	// a: 3 → 4 calls, precision 2/3 → 4/4: rose, not flagged. b: 4 → 2: fell.
	if len(cmp.Persuasive) != 1 || cmp.Persuasive[0].Tool != "c" || cmp.Persuasive[0].ShareBefore != 1.0/8 || cmp.Persuasive[0].ShareAfter != 2.0/8 {
		t.Errorf("persuasive = %+v, want c from 1/8 to 2/8", cmp.Persuasive)
	}
	if cmp.SameListing {
		t.Error("the listings differ but SameListing is set")
	}
}

func TestCompareRefuses(t *testing.T) {
	a := handRun([]string{"a"}, []*string{strp("a")}, 1, [][]string{{"a"}})
	b := handRun([]string{"a"}, []*string{strp("a"), nil}, 1, [][]string{{"a"}, {NoTool}})
	if _, err := Compare(a, b); err == nil {
		t.Error("runs of different task files compared")
	}
	c := handRun([]string{"a"}, []*string{strp("a")}, 1, [][]string{{"a"}})
	c.Header.Spec.Model = "other"
	if _, err := Compare(a, c); err == nil {
		t.Error("runs on different models compared")
	}
}
