package main

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

// TestRunTextFigures: the figures the golden run does not reach read as on the Runs tab: a
// precision that does not exist, shares of calls, a comparison without pairs.
func TestRunTextFigures(t *testing.T) {
	half := 0.5
	s := &runner.Score{PerTool: []runner.ToolScore{{Name: "never_chosen", Known: true, Expected: 2, Recall: &half}}}
	cmp := &runner.Comparison{Interval: stats.Paired{}.DifferenceInterval(stats.Z95),
		Persuasive: []runner.Shift{{Tool: "t", ShareBefore: 0.25, ShareAfter: 1.0 / 3, PrecisionAfter: &half}}}
	var b strings.Builder
	writeRunText(&b, s, cmp, "base.jsonl")
	out := b.String()
	for _, want := range []string{
		`"never_chosen"  2         0       0      –          0.50`,
		"(paired 95% CI n/a)",
		`"t" takes 0.333 of calls (was 0.250) with precision 0.50 (was –)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
