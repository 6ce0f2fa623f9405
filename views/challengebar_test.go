package views

import (
	"context"
	"strings"
	"testing"
)

func TestChallengeBarStates(t *testing.T) {
	base := ChallengeBar{WS: "w", Challenge: "c", Title: "Bikes", Name: "Ada", State: "open", Rule: "Each tool keeps its place.",
		Places: []string{"find_bike", "rent_bike"}}
	scored := base
	scored.Scored, scored.Score, scored.Clear, scored.Ambiguous, scored.Tasks, scored.Tokens, scored.Budget = true, 45, 3, 1, 8, 700, 900
	over := scored
	over.Tokens, over.OverBudget, over.Score = 950, true, 0
	fined := scored
	fined.Penalties, fined.PenaltyPoints = []ChallengePenalty{{Rule: "promotional-wording", Tool: "find_bike", Message: "assertive wording", Points: 5}}, 5
	frozen := scored
	frozen.State, frozen.Locked = "frozen", "the challenge is frozen"
	early := base
	early.Locked, early.Ends, early.Left = "the challenge starts at 14:00 UTC", "15:00 UTC", " (60 min left)"
	for _, tc := range []struct {
		name string
		bar  ChallengeBar
		want []string
		not  []string
	}{
		{"not scored", base, []string{"scoring your copy", "Running", "1 · started as <code>find_bike</code>", `href="/board/c"`, "cbar-unlock"}, []string{"cbar-lock\""}},
		{"scored", scored, []string{">45<", "won 3 clearly and 1 by a hair (half a point each) of 8 live hidden tasks", "700 of 900 tokens", "700/900 tok"}, []string{"over the budget"}},
		{"over budget", over, []string{"950 tokens: 50 over the budget of 900, so your score counts as 0", "cbar-tokens over"}, nil},
		{"penalties", fined, []string{"findings cost 5 points", "promotional-wording", "assertive wording", "−5"}, nil},
		{"frozen", frozen, []string{"Frozen: your edits no longer count", `id="cbar-lock"`}, []string{"cbar-unlock"}},
		{"not started", early, []string{"the challenge starts at 14:00 UTC", "ends 15:00 UTC (60 min left)", `id="cbar-lock"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := ChallengeBarRegion(tc.bar).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in %s", w, b.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("has %q", n)
				}
			}
		})
	}
	// A viewer (a view link) is never handed the controls back.
	var b strings.Builder
	ctx := WithViewer(context.Background(), Viewer{Capability: "view"})
	if err := ChallengeBarRegion(base).Render(ctx, &b); err != nil || strings.Contains(b.String(), "cbar-unlock") {
		t.Errorf("a viewer's bar enables the controls (%v)", err)
	}
}
