package challenge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/workspace"
)

// draftFile makes the challenge file of a draft over a workspace's head: the starting tools
// are its tools, and the draft's hidden tasks are split and checked against them and against
// the practice tasks. Every refusal is an *Invalid that says what to change.
func draftFile(ctx context.Context, head workspace.Workspace, d Draft) (*File, error) {
	tools := head.Listing.Names()
	if len(tools) == 0 {
		return nil, invalid("the workspace has no tools: a challenge starts from a listing with the tools participants will improve")
	}
	for i, n := range tools {
		if j := slices.Index(tools[:i], n); j >= 0 {
			return nil, invalid("tools %d and %d are both named %q: hidden tasks name the starting tools, so give each its own name first", j+1, i+1, clip(n))
		}
	}
	hidden, err := selection.ParseTasks(d.Hidden, false)
	if err != nil {
		return nil, invalid("the hidden tasks: %s", err.Error())
	}
	if err := checkHidden(hidden, tools, head.Tasks); err != nil {
		return nil, err
	}
	f := &File{Version: Version, Title: strings.TrimSpace(d.Title), Tools: tools, Scorer: Scorer{Kind: "ranker"}, Window: d.Window}
	if f.Title == "" {
		f.Title = head.Name
	}
	f.Title = workspace.Title(f.Title)
	if f.Live, f.Final, err = splitDraft(hidden); err != nil {
		return nil, err
	}
	if f.Budget, err = draftBudget(ctx, head, d.Budget); err != nil {
		return nil, err
	}
	f.Penalties = draftPenalties(d.Penalties)
	// The file is read back as the CLI and a restart will read it: one set of rules.
	b, err := Encode(f)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// checkHidden refuses a hidden task that is also a practice task (it would not be hidden) or
// that names a tool the starting listing lacks; tasks are numbered as the draft holds them.
func checkHidden(hidden []selection.Task, tools []string, practice []selection.Task) error {
	if len(hidden) == 0 {
		return invalid("give the hidden tasks: a task file (JSON) such as [{\"task\": \"…\", \"expect\": \"tool_name\", \"tags\": [\"live\"]}]")
	}
	if len(hidden) > MaxHiddenTasks {
		return invalid("the draft holds %d hidden tasks; a challenge holds at most %d", len(hidden), MaxHiddenTasks)
	}
	seen := make(map[string]int, len(practice))
	for i, t := range practice {
		seen[TaskKey(t.Task)] = i
	}
	for i, t := range hidden {
		if j, ok := seen[TaskKey(t.Task)]; ok {
			return invalid("hidden task %d is practice task %d, which every participant sees: reword one of them or take it out", i+1, j+1)
		}
		for _, n := range append(slices.Clone(t.Answers()), t.Reject...) {
			if !slices.Contains(tools, n) {
				return invalid("hidden task %d names %q, which the workspace's listing does not have (its tools: %s): hidden tasks name the starting tools", i+1, clip(n), toolList(tools))
			}
		}
	}
	return nil
}

// splitDraft splits hidden tasks by their tags "live" and "final" (dropped once split), or,
// when none carries either, alternately: the first live, the second final, and so on.
func splitDraft(hidden []selection.Task) (live, final []selection.Task, err error) {
	tagged := slices.ContainsFunc(hidden, func(t selection.Task) bool { return splitTag(t) != "" })
	for i, t := range hidden {
		sp := splitTag(t)
		switch {
		case !tagged && i%2 == 0:
			sp = Live
		case !tagged:
			sp = Final
		case sp == "":
			return nil, nil, invalid("hidden task %d is tagged neither \"live\" nor \"final\", while others are: tag every task, or none (then they alternate)", i+1)
		}
		t.Tags = slices.DeleteFunc(slices.Clone(t.Tags), func(tag string) bool {
			return Split(strings.ToLower(tag)) == Live || Split(strings.ToLower(tag)) == Final
		})
		if len(t.Tags) == 0 {
			t.Tags = nil
		}
		if sp == Live {
			live = append(live, t)
		} else {
			final = append(final, t)
		}
	}
	if len(live) == 0 || len(final) == 0 {
		return nil, nil, invalid("the hidden tasks make %d live and %d final: a challenge needs both (the live split scores the leaderboard, the final split the final ranking); give at least two tasks", len(live), len(final))
	}
	return live, final, nil
}

// splitTag is the split a task's tags put it in ("" for none; "final" wins over "live").
func splitTag(t selection.Task) Split {
	var sp Split
	for _, tag := range t.Tags {
		switch Split(strings.ToLower(tag)) {
		case Final:
			return Final
		case Live:
			sp = Live
		}
	}
	return sp
}

// draftBudget fills the budget's defaults; no tokens means the starting listing's tokens plus a
// quarter, rounded up to 10.
func draftBudget(ctx context.Context, head workspace.Workspace, b Budget) (Budget, error) {
	given := b.Tokens
	checked, err := readBudget(&budgetJSON{Tokens: max(1, b.Tokens), Tokenizer: b.Tokenizer, Rendering: b.Rendering})
	if err != nil {
		return Budget{}, err
	}
	checked.Tokens = given
	if given > 0 {
		return checked, nil
	}
	eng, err := engineFor(checked.Tokenizer, checked.Rendering)
	if err != nil {
		return Budget{}, err
	}
	res, err := eng.AnalyzeContext(ctx, head.Listing, nil)
	if err != nil {
		return Budget{}, fmt.Errorf("create challenge: count the starting listing: %w", err)
	}
	checked.Tokens = DefaultBudget(res.Cost.Total.Tokens)
	if checked.Tokens > MaxBudget {
		return Budget{}, invalid("the starting listing costs %d tokens; a budget holds at most %d: start from a smaller listing", res.Cost.Total.Tokens, MaxBudget)
	}
	return checked, nil
}

// DefaultBudget is the budget a challenge gets when the teacher gives none: the starting
// listing's tokens plus a quarter, rounded up to 10 (room for better descriptions, none for
// stuffing them with keywords).
func DefaultBudget(start int) int {
	return int(math.Ceil(float64(start)*1.25/10)) * 10
}

// draftPenalties fills the penalties' defaults: a zero Penalties is the defaults (every error
// and DefaultPenaltyRules, DefaultPenaltyPoints each); otherwise Points 0 is the default points
// and Rules nil the default rules (an empty, non-nil Rules counts none).
func draftPenalties(p Penalties) Penalties {
	if p.Points == 0 && !p.Errors && p.Rules == nil {
		p.Errors = true
	}
	if p.Points == 0 {
		p.Points = DefaultPenaltyPoints
	}
	if p.Rules == nil {
		p.Rules = slices.Clone(DefaultPenaltyRules)
	}
	return p
}
