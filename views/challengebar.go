package views

import (
	"fmt"
	"strconv"
)

// ChallengeBar is the bar above a participant's copy of a workshop challenge. It holds only
// what a participant may see (challenge.PublicResult and the challenge's public settings):
// never a hidden task's text, its expected tool, its index or its verdict.
type ChallengeBar struct {
	WS        string // the participant's workspace
	Challenge string // the challenge ID: the leaderboard is /board/<Challenge>
	Title     string
	Name      string // the participant's display name
	// State is open, frozen or revealed; Locked says why the copy is read-only ("" if not).
	State  string
	Locked string
	// Scored is false until the first scoring; the numbers below are then zero.
	Scored        bool
	Score         int
	Clear         int
	Ambiguous     int
	Tasks         int
	Tokens        int
	Budget        int
	OverBudget    bool
	Penalties     []ChallengePenalty
	PenaltyPoints int
	// Places are the starting tools in place order, for the identity rule.
	Places []string
	Rule   string
	// Ends says when editing ends ("" for no end), and Left how long that is from the render.
	Ends string
	Left string
}

// ChallengePenalty is one finding that cost points.
type ChallengePenalty struct {
	Rule, Tool, Message string
	Points              int
}

// lockControls and unlockControls disable and enable the copy's edit controls (the EditOnly
// fieldsets) when the bar arrives; constant expressions, never built from user text.
const (
	lockControls   = `document.querySelectorAll('fieldset.edit-only, [data-testid=tool-add]').forEach(f => { f.disabled = true })`
	unlockControls = `document.querySelectorAll('fieldset.edit-only, [data-testid=tool-add]').forEach(f => { f.disabled = false })`
)

// barWon is "won 3½ of 8 live hidden tasks" in words a screen reader reads too.
func barWon(b ChallengeBar) string {
	won := strconv.Itoa(b.Clear)
	if b.Ambiguous > 0 {
		won = fmt.Sprintf("%d clearly and %d by a hair (half a point each)", b.Clear, b.Ambiguous)
	}
	return fmt.Sprintf("won %s of %d live hidden tasks", won, b.Tasks)
}

// barTokens is the budget line: "812 of 900 tokens", or how far over.
func barTokens(b ChallengeBar) string {
	if b.OverBudget {
		return fmt.Sprintf("%d tokens: %d over the budget of %d, so your score counts as 0", b.Tokens, b.Tokens-b.Budget, b.Budget)
	}
	return fmt.Sprintf("%d of %d tokens", b.Tokens, b.Budget)
}

// barTokensShort is the budget line on a phone: "762/940 tok", or "over by 12".
func barTokensShort(b ChallengeBar) string {
	if b.OverBudget {
		return fmt.Sprintf("%d tok over: 0", b.Tokens-b.Budget)
	}
	return fmt.Sprintf("%d/%d tok", b.Tokens, b.Budget)
}

// barStateShort is the state in a word, for a phone's one line.
func barStateShort(b ChallengeBar) string {
	switch {
	case b.State == "revealed":
		return "Revealed"
	case b.State == "frozen":
		return "Frozen"
	case b.Locked != "":
		return "Locked"
	}
	return "Running"
}

// barState is the state in words.
func barState(b ChallengeBar) string {
	switch {
	case b.State == "revealed":
		return "Revealed: the final ranking is on the leaderboard; your edits no longer count"
	case b.State == "frozen":
		return "Frozen: your edits no longer count"
	case b.Locked != "":
		return b.Locked
	}
	return "Running: every edit is scored"
}

// barStateClass colours the state badge.
func barStateClass(b ChallengeBar) string {
	if b.Locked != "" || b.State != "open" {
		return "cbar-state locked"
	}
	return "cbar-state running"
}

// barMeterMax keeps the meter's bound positive (a budget of 0 would make it meaningless).
func barMeterMax(b ChallengeBar) string {
	return strconv.Itoa(max(b.Budget, 1))
}
