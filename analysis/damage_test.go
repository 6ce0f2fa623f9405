package analysis

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection"
)

// TestWriteDamageTextHostileNames checks that a tool name cannot break the table or reach the
// terminal as control characters, and that --min-drop judges only tools that win something.
func TestWriteDamageTextHostileNames(t *testing.T) {
	res := func(won int) selection.DamageResult {
		return selection.DamageResult{Won: won, MeanRank: 1, MeanShare: 1}
	}
	after := func(won int) []selection.DamageResult {
		var out []selection.DamageResult
		for _, k := range selection.DamageKinds {
			r := res(won)
			r.Kind = k
			out = append(out, r)
		}
		return out
	}
	tools := []selection.ToolDamage{
		{Name: "evil\x1b[2J\nFAIL fake", Tasks: 1, Base: res(1), After: after(1), CarriedBy: selection.CarriedByName},
		{Name: "loser", Tasks: 1, Base: res(0), After: after(0), CarriedBy: selection.CarriedByNothing},
		{Name: "carried", Tasks: 2, Base: res(2), After: after(0), Lost: 1, CarriedBy: selection.CarriedByDescription},
	}
	minDrop := 0.5
	d := NewDamageReport(tools, &minDrop)
	if len(d.Failing) != 1 || d.Failing[0] != tools[0].Name {
		t.Errorf("failing %q; want only the tool that wins by name alone", d.Failing)
	}
	var b strings.Builder
	if err := WriteDamageText(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\nFAIL fake") {
		t.Errorf("a name's control characters reached the output:\n%q", out)
	}
	if n := strings.Count(out, "\nFAIL damage:"); n != 1 {
		t.Errorf("%d FAIL lines, want 1:\n%s", n, out)
	}
}
