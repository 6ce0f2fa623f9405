package drafting

import (
	"context"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// Limits of a suggestion.
const (
	DefaultK = 3
	MaxK     = 8
	// MaxDescriptionBytes bounds a candidate's description; longer ones are refused with why.
	MaxDescriptionBytes = 4000
)

// SuggestRequest asks for rewrites of one tool.
type SuggestRequest struct {
	Listing *listing.Listing
	Tool    int // index in Listing.Tools
	Tasks   []selection.Task
	K       int  // candidates asked for (default DefaultK, at most MaxK)
	Params  bool // ask for the parameters' descriptions too
	// Run, when set, runs the tasks through the model for each candidate and for the current
	// text, and compares them pair by pair (runner.Compare). Samples per task (default 1).
	Run     bool
	Samples int
	Spec    runner.Spec // the run's settings (endpoint and model filled from the caller's)
}

// Plan is what an action will call at most, shown before it starts.
type Plan struct {
	Calls int    `json:"calls"` // model calls at most
	What  string `json:"what"`  // in words: "1 call to draft 3 rewrites, 2×8 calls to run the tasks"
}

// PlanSuggest is the most calls a suggestion makes.
func PlanSuggest(req SuggestRequest) Plan {
	panic("drafting.PlanSuggest: not built yet")
}

// Mark is wording a candidate adds that persuades the model instead of informing it: a
// promotional-wording or instructions-to-model finding (lint) the current text does not have.
type Mark struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Scores is what a text scores without a model: the tool's findings, the listing's tokens, and
// the ranker on every task.
type Scores struct {
	Errors   int                `json:"errors"`
	Warnings int                `json:"warnings"`
	Infos    int                `json:"infos"`
	Findings []analysis.Finding `json:"findings"` // the tool's, and listing-wide ones naming it
	Tokens   int                `json:"tokens"`   // the whole listing's, with the engine's tokenizer
	// Won counts the tasks expecting the tool that the ranker gives it clearly; Ambiguous
	// within the margin; Lost to another tool. Stolen counts tasks expecting another tool
	// (or none) that it wins.
	Won, Ambiguous, Lost, Stolen int
	// Clear counts the listing's clear verdicts over all tasks (selection's Clear).
	Clear int `json:"clear"`
	Tasks int `json:"tasks"`
}

// Candidate is one proposed rewrite, scored.
type Candidate struct {
	Description string            `json:"description"`
	Params      map[string]string `json:"parameters,omitempty"`
	Rationale   string            `json:"rationale,omitempty"`
	// Diff is the word diff from the current description.
	Diff   []export.Edit `json:"diff"`
	Scores Scores        `json:"scores"`
	// Flips are tasks whose ranker verdict for this candidate differs from the current text's:
	// 1-based task numbers, positive fixed, negative broken.
	Flips []int  `json:"flips,omitempty"`
	Marks []Mark `json:"marks,omitempty"`
	// Run compares a model run on the tasks with this candidate against the current text
	// (nil unless asked; RunError says why it is missing when asked).
	Run      *runner.Comparison `json:"run,omitempty"`
	RunError string             `json:"runError,omitempty"`
	// Refused says why a candidate the model sent was not usable (empty, too long, the same
	// text); such a candidate has no scores.
	Refused string `json:"refused,omitempty"`
}

// Suggestion is the answer to a SuggestRequest.
type Suggestion struct {
	Tool       string      `json:"tool"`
	Current    Candidate   `json:"current"` // the text as it stands, scored the same way
	Candidates []Candidate `json:"candidates"`
	Plan       Plan        `json:"plan"`
	Calls      int         `json:"calls"` // calls made
	// Problems say what went wrong that did not stop the suggestion: a malformed answer, fewer
	// candidates than asked, a failed run.
	Problems []string `json:"problems,omitempty"`
}

// Suggest asks the model for rewrites of one tool and scores each with the engine (and, when
// asked, a model run). A model that fails or answers nonsense gives an error or Problems that say
// so; nothing it writes is applied.
func Suggest(ctx context.Context, c Caller, eng *analysis.Engine, req SuggestRequest) (*Suggestion, error) {
	panic("drafting.Suggest: not built yet")
}

// ScoreText scores the listing with tool i's description (and parameter descriptions) replaced:
// what Suggest computes for each candidate, exported for the improvement loop and the pages.
func ScoreText(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, i int, description string, params map[string]string) (Scores, *listing.Listing, error) {
	panic("drafting.ScoreText: not built yet")
}

// Apply returns the listing with tool i's description and parameters' descriptions set.
func Apply(l *listing.Listing, i int, description string, params map[string]string) (*listing.Listing, error) {
	panic("drafting.Apply: not built yet")
}

// Ops are the listing operations that set tool i's description and parameters' descriptions:
// how a page accepts a candidate as an ordinary, undoable edit.
func Ops(l *listing.Listing, i int, description string, params map[string]string) ([]listing.Op, error) {
	panic("drafting.Ops: not built yet")
}

// RewriteBrief is the brief of a rewrite of tool i: its schema and findings (from eng), the
// neighbours it is confused with, and the tasks it should and should not win, taken from tasks
// as given (the improvement loop passes its training tasks only).
func RewriteBrief(ctx context.Context, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, i, k int, params bool) (Brief, error) {
	panic("drafting.RewriteBrief: not built yet")
}

// Candidates reads a rewrite answer: at most k usable candidates, and problems in words for
// what was wrong (not JSON, no candidates, a candidate empty, over MaxDescriptionBytes, or the
// same as the current text), never more than one line each.
func Candidates(text string, k int, current string) (cands []Candidate, problems []string) {
	panic("drafting.Candidates: not built yet")
}
