package drafting

import (
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

// stateOf is a run state of one sample per task, every task expecting tool "a": a task with a
// right call chose "a", one without chose "b"; errors counts failed calls besides.
func stateOf(errors int, right ...int) *runState {
	choices := make([]string, len(right))
	for i, r := range right {
		choices[i] = "b"
		if r > 0 {
			choices[i] = "a"
		}
	}
	st := stateChoices(choices...)
	st.score.Errors = errors
	return st
}

// stateChoices is a run state of one sample per task, every task expecting tool "a" and
// rejecting tool "x", with these choices (runner.ErrorChoice for a failed call).
func stateChoices(choices ...string) *runState {
	s := &runner.Score{}
	var tasks []selection.Task
	for i, ch := range choices {
		a := "a"
		tasks = append(tasks, selection.Task{Task: "task", Expect: &a, Reject: []string{"x"}})
		tr := runner.TaskResult{Index: i, Expected: "a", Choices: []string{ch}}
		switch {
		case ch == runner.ErrorChoice:
			s.Errors++
		case ch == "a":
			tr.Correct, tr.Scored = 1, 1
		default:
			tr.Scored = 1
		}
		s.PerTask = append(s.PerTask, tr)
	}
	return &runState{score: s, tasks: tasks}
}

// judge keeps a candidate only when training gains and no held-out task, taken one by one,
// loses: a gain on one held-out task does not pay for a loss on another.
func TestJudge(t *testing.T) {
	// Tasks 1 and 2 train, 3 and 4 are held out; as things stand tasks 1 and 3 are right.
	lp := &loop{heldIdx: []int{2, 3}, isHeld: []bool{false, false, true, true}, state: stateOf(0, 1, 0, 1, 0)}
	for _, tc := range []struct {
		name string
		cand *runState
		want string // the start of the reason; "" when it qualifies
	}{
		{"a training gain, held-out as it was", stateOf(0, 1, 1, 1, 0), ""},
		{"a training gain and a held-out gain", stateOf(0, 1, 1, 1, 1), ""},
		{"a held-out task swapped for another: same total, still refused", stateOf(0, 1, 1, 0, 1),
			"not kept: it loses held-out task 3 (1 → 0 right)"},
		{"no training gain", stateOf(0, 1, 0, 1, 1), "not kept: it wins no more training calls (1 → 1 right)"},
		{"a training task swapped for another", stateOf(0, 0, 1, 1, 0), "not kept: it wins no more training calls"},
		{"a failed call", stateOf(1, 1, 1, 1, 0), "not kept: 1 of its calls failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lp.judge(tc.cand)
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("judge = %q, want %q", got, tc.want)
			}
		})
	}
}

// A call that failed as things stand is not a wrong answer: judge compares each task only on
// the samples both runs answered, so a candidate does not "win" a task whose call had failed,
// nor "lose" a held-out one. A held-out task that moves to a tool it rejects is lost, even
// when it was wrong before.
func TestJudgeAnsweredInBoth(t *testing.T) {
	e := runner.ErrorChoice
	// Tasks 1 and 2 train, 3 and 4 are held out.
	isHeld := []bool{false, false, true, true}
	for _, tc := range []struct {
		name      string
		cur, cand *runState
		want      string
	}{
		{"a training task whose call failed is no win", stateChoices("a", e, "a", "b"), stateChoices("a", "a", "a", "b"),
			"not kept: it wins no more training calls (1 → 1 right)"},
		{"a held-out task whose call failed is no loss", stateChoices("b", "b", e, "a"), stateChoices("a", "b", "b", "a"), ""},
		{"a held-out task moving to a rejected tool is lost", stateChoices("b", "b", "b", "a"), stateChoices("a", "b", "x", "a"),
			"not kept: it moves held-out task 3 to a tool the task rejects"},
		{"a held-out task already on a rejected tool stays", stateChoices("b", "b", "x", "a"), stateChoices("a", "b", "x", "a"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lp := &loop{heldIdx: []int{2, 3}, isHeld: isHeld, state: tc.cur}
			got := lp.judge(tc.cand)
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("judge = %q, want %q", got, tc.want)
			}
		})
	}
}

// lintOfFindings is the lint of a listing with these findings.
func lintOfFindings(fs ...analysis.Finding) lintScores {
	s := lintScores{counts: map[string]int{}, samples: map[string]analysis.Finding{}}
	for _, f := range fs {
		k := f.Rule + "\x00" + f.Pointer
		s.counts[k]++
		s.samples[k] = f
	}
	return s
}

// lintRefusal refuses persuasion and hidden text on the rewritten tool outright, and any error
// or warning the listing as it stands does not have.
func TestLintRefusal(t *testing.T) {
	short := analysis.Finding{Rule: "description", Severity: analysis.Warning, Tool: "update", Pointer: "/tools/7/description", Message: "3 words, fewer than 8"}
	sibling := analysis.Finding{Rule: "description-sibling-unnamed", Severity: analysis.Warning, Tool: "update", Pointer: "/tools/7/description", Message: "names no sibling"}
	promo := func(tool string) analysis.Finding {
		return analysis.Finding{Rule: "promotional-wording", Severity: analysis.Warning, Tool: tool, Pointer: "/tools/0/description", Message: `"the best tool"`}
	}
	hidden := analysis.Finding{Rule: "hidden-unicode", Severity: analysis.Error, Tool: "update", Pointer: "/tools/7/description", Message: "U+200B"}
	for _, tc := range []struct {
		name      string
		cur, cand lintScores
		want      string
	}{
		{"a finding fixed", lintOfFindings(short), lintOfFindings(), ""},
		{"the same finding kept", lintOfFindings(short), lintOfFindings(short), ""},
		{"a warning added", lintOfFindings(short), lintOfFindings(sibling), "refused: it adds lint findings: warning description-sibling-unnamed (names no sibling)"},
		{"promotion on the rewritten tool", lintOfFindings(), lintOfFindings(promo("update")), `refused: it has promotional wording (promotional-wording: "the best tool")`},
		{"promotion the rewrite did not touch", lintOfFindings(promo("get_data")), lintOfFindings(promo("get_data")), ""},
		{"hidden characters", lintOfFindings(), lintOfFindings(hidden), "refused: it has hidden characters (hidden-unicode: U+200B)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lintRefusal(tc.cur, tc.cand, "update"); got != tc.want {
				t.Errorf("lintRefusal = %q, want %q", got, tc.want)
			}
		})
	}
}

// The verdict says what the held-out pairs show and no more.
func TestVerdict(t *testing.T) {
	cmp := func(p float64, lo, hi float64) *runner.Comparison {
		return &runner.Comparison{McNemarP: p, Interval: stats.Interval{Low: lo, High: hi}}
	}
	for _, tc := range []struct {
		name string
		r    ImproveReport
		held int
		want string
	}{
		{"a rise on few tasks", ImproveReport{HeldBefore: 1, HeldAfter: 4, HeldPairs: 4, Before: 0.25, After: 1, Changed: []string{"a"}, Compare: cmp(0.25, 0.1, 0.9)}, 4,
			"Held-out accuracy rose from 1/4 to 4/4 (+75 points, 95% CI +0.100 to +0.900, McNemar p = 0.25); significant: the paired 95% interval lies above 0."},
		{"a significant rise", ImproveReport{HeldBefore: 10, HeldAfter: 30, HeldPairs: 40, Before: 0.25, After: 0.75, Changed: []string{"a"}, Compare: cmp(0.0001, 0.3, 0.6)}, 40,
			"Held-out accuracy rose from 10/40 to 30/40 (+50 points, 95% CI +0.300 to +0.600, McNemar p = 0.0001); significant: the paired 95% interval lies above 0."},
		{"a rise that is not significant on many tasks", ImproveReport{HeldBefore: 20, HeldAfter: 22, HeldPairs: 40, Before: 0.5, After: 0.55, Changed: []string{"a"}, Compare: cmp(0.5, -0.1, 0.2)}, 40,
			"Held-out accuracy rose from 20/40 to 22/40 (+5 points, 95% CI -0.100 to +0.200, McNemar p = 0.5); not significant: 40 held-out tasks, and the paired 95% interval reaches 0 or below."},
		{"a rise on too few tasks", ImproveReport{HeldBefore: 1, HeldAfter: 2, HeldPairs: 4, Before: 0.25, After: 0.5, Changed: []string{"a"}, Compare: cmp(1, -0.3, 0.7)}, 4,
			"Held-out accuracy rose from 1/4 to 2/4 (+25 points, 95% CI -0.300 to +0.700, McNemar p = 1); not significant: 4 held-out tasks, and the paired 95% interval reaches 0 or below."},
		{"training only", ImproveReport{HeldBefore: 2, HeldAfter: 2, HeldPairs: 4, Before: 0.5, After: 0.5, Changed: []string{"a"}, Compare: cmp(1, -0.2, 0.2)}, 4,
			"No improvement on held-out tasks (2/4 → 2/4): the rewrites won training tasks only."},
		{"nothing kept", ImproveReport{HeldBefore: 2, HeldAfter: 2, HeldPairs: 4, Before: 0.5, After: 0.5, Stopped: "the call budget is spent", Compare: cmp(1, -0.2, 0.2)}, 4,
			"No improvement on held-out tasks (2/4 → 2/4): no rewrite was kept (the call budget is spent), so the listing is unchanged and the same listing got the same held-out calls right."},
		{"nothing kept, a rise by sampling", ImproveReport{HeldBefore: 1, HeldAfter: 2, HeldPairs: 2, Before: 0.5, After: 1, Compare: cmp(1, -0.27, 0.9)}, 2,
			"No improvement on held-out tasks (1/2 → 2/2): no rewrite was kept, so the listing is unchanged and the difference is the model's sampling, not a change."},
		{"a fall", ImproveReport{HeldBefore: 3, HeldAfter: 2, HeldPairs: 4, Before: 0.75, After: 0.5, Changed: []string{"a"}, Compare: cmp(1, -0.6, 0.2)}, 4,
			"Held-out accuracy fell from 3/4 to 2/4 (-25 points, 95% CI -0.600 to +0.200, McNemar p = 1): the revised listing is not better."},
		{"no pairs", ImproveReport{}, 4, "No verdict: no held-out call got an answer in both the baseline and the final run."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.Significant = significant(&tc.r)
			if got := verdict(&tc.r, tc.held); got != tc.want {
				t.Errorf("verdict:\n got %s\nwant %s", got, tc.want)
			}
			// Significant is the interval's low end above 0, and only for a kept rewrite.
			if want := tc.r.Compare != nil && tc.r.Compare.Interval.Low > 0 && len(tc.r.Changed) > 0; tc.r.Significant != want {
				t.Errorf("significant %v, want %v", tc.r.Significant, want)
			}
		})
	}
}

// targets rewrites the tools of the training tasks the model gets wrong, then the tools it
// chose instead. A task that any of several tools answers is lost by every one of them, not
// only by the first.
func TestTargetsSeveralAnswers(t *testing.T) {
	l, err := listing.Parse([]byte(`[{"name":"a","description":"A."},{"name":"b","description":"B."},{"name":"c","description":"C."},{"name":"d","description":"D."}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &runState{score: &runner.Score{PerTask: []runner.TaskResult{
		// Task 1 takes b or c; the model chose d.
		{Index: 0, Expected: "b", Answers: []string{"b", "c"}, Choices: []string{"d"}, Scored: 1, Modal: "d"},
		// Task 2 takes a and the model chose it.
		{Index: 1, Expected: "a", Choices: []string{"a"}, Scored: 1, Correct: 1, Modal: "a"},
	}}}
	lp := &loop{cur: l, trainIdx: []int{0, 1}, state: st}
	if got, want := lp.targets(), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("targets = %v, want %v (b and c lose task 1, d takes it)", got, want)
	}
}
