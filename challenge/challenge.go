// Package challenge runs tool-design workshops: a teacher makes a challenge from a workspace
// (its listing is the starting listing, its task file the practice tasks everyone sees), with
// hidden tasks in two splits that no participant ever receives: the live split scores the live
// leaderboard, the final split the final ranking, so that nobody overfits to what the live score
// reveals. A token budget stops keyword stuffing, and the findings that catch persuasion
// (promotional wording, instructions to the model) and every error cost points.
//
// Participants join with a code and a display name and get a workspace of their own, a copy of
// the starting listing. Every edit re-scores that copy on the live split with the word-overlap
// ranker; the leaderboard and the teacher's view follow through the store's events.
//
// Identity through renames: a tool is known by its place. The hidden tasks name the starting
// listing's tools; the task that expects the starting listing's third tool expects whatever tool
// is third in the participant's copy, however it is renamed. A tool added past the starting
// tools stands for none of them (a hidden task it wins is lost); a removed or moved tool moves
// the places after it. Pages show the rule (IdentityRule) and, for each place, the tool it
// started as.
//
// Score(ctx, engine, listing, rules, split) is pure: the CLI (workbench challenge score) and the
// service share it. Service keeps challenges in a store.Store and watches participants' copies.
package challenge

import (
	"time"

	"github.com/tool-workbench/workbench/selection"
)

// IdentityRule is the identity rule in the words pages show.
const IdentityRule = "Each tool keeps its place: the hidden tasks ask for the tool in the place where it started, whatever you rename it. A tool you add stands for no starting tool, and removing or moving a tool shifts the places after it."

// Version is the challenge file's format version.
const Version = 1

// File is a challenge as a teacher keeps it: what the store keeps as store.Challenge.Settings,
// what the teacher's view downloads as challenge.json, and what `workbench challenge score
// --hidden FILE` reads. It holds the hidden tasks: it is never sent to a participant.
type File struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	// Tools are the starting listing's tool names in place order: the names the hidden tasks'
	// expect and reject fields use, and the places they stand for.
	Tools     []string  `json:"tools"`
	Budget    Budget    `json:"budget"`
	Penalties Penalties `json:"penalties"`
	Scorer    Scorer    `json:"scorer"`
	Window    Window    `json:"window,omitzero"`
	// Live and Final are the hidden tasks of each split, in the task-file format
	// (selection.ParseTasks, not strict: expect may be null for "no tool", or a list).
	Live  []selection.Task `json:"live"`
	Final []selection.Task `json:"final"`
}

// Budget is the token budget: the listing as Rendering renders it, counted with Tokenizer (a
// built-in encoding: cost.NewTokenizer), at most Tokens tokens.
type Budget struct {
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"` // default o200k_base
	Rendering string `json:"rendering"` // default compact (cost.RenderingNames)
}

// Penalties say which findings cost points, and how many each.
type Penalties struct {
	// Points each counted finding costs (default DefaultPenaltyPoints).
	Points int `json:"points"`
	// Errors counts every finding of severity error.
	Errors bool `json:"errors"`
	// Rules counts the findings of these rule IDs whatever their severity (default
	// DefaultPenaltyRules).
	Rules []string `json:"rules"`
}

// Defaults of a new challenge.
const (
	DefaultPenaltyPoints = 5
	DefaultTokenizer     = "o200k_base"
	DefaultRendering     = "compact"
)

// DefaultPenaltyRules are the findings that catch a description that persuades instead of
// informs.
var DefaultPenaltyRules = []string{"promotional-wording", "instructions-to-model"}

// Scorer says what picks a tool for a hidden task. Only "ranker" (the word-overlap ranker:
// keyless and instant) is offered; Parse refuses any other kind with what would work.
type Scorer struct {
	Kind string `json:"kind"`
}

// Window is when participants may edit: a copy is read-only before Start and from End on
// (a zero time is no bound).
type Window struct {
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// Split names a split of the hidden tasks.
type Split string

// The splits.
const (
	Live  Split = "live"
	Final Split = "final"
)

// Limits of a challenge file (within store.MaxChallengeSettings).
const (
	MaxHiddenTasks = 500  // tasks of both splits together
	MaxTools       = 1000 // starting tools
	MaxBudget      = 1 << 20
)

// Result is one listing's score on one split. Its Verdicts say which hidden task was won: they
// are for the teacher and the CLI only. A participant is sent Public() and nothing else.
type Result struct {
	Split Split `json:"split"`
	// Score is what ranks: 100 × (clear + ambiguous/2) / tasks, rounded, less the penalty
	// points; 0 when the listing is over its budget.
	Score int `json:"score"`
	// Clear counts hidden tasks whose expected tool wins clearly (or, for a "no tool" task,
	// that no tool scores), Ambiguous those it wins within the ranker's margin; Tasks is how
	// many the split holds.
	Clear     int `json:"clear"`
	Ambiguous int `json:"ambiguous"`
	Tasks     int `json:"tasks"`
	// Tokens is the listing's cost as the budget counts it; Budget the budget.
	Tokens     int  `json:"tokens"`
	Budget     int  `json:"budget"`
	OverBudget bool `json:"overBudget"`
	// Penalties are the findings that cost points, and PenaltyPoints their sum.
	Penalties     []Penalty `json:"penalties"`
	PenaltyPoints int       `json:"penaltyPoints"`
	// Verdicts are per hidden task, in the split's order. Never sent to a participant.
	Verdicts []Verdict `json:"verdicts"`
}

// Penalty is one finding that cost points.
type Penalty struct {
	Rule    string `json:"rule"`
	Tool    string `json:"tool,omitempty"`
	Place   int    `json:"place"` // the tool's place (0-based); -1 for the listing as a whole
	Message string `json:"message"`
	Points  int    `json:"points"`
}

// Verdict is one hidden task's outcome: won (clearly or within the margin) or lost, and the
// tool that won it ("" for none).
type Verdict struct {
	Task   int    `json:"task"` // index in its split
	Status string `json:"status"`
	Win    bool   `json:"win"`
	Half   bool   `json:"half,omitempty"` // won within the margin: half a point
	Picked string `json:"picked,omitempty"`
	// Place is the picked tool's place (-1: none).
	Place int `json:"place"`
}

// PublicResult is what a participant's page shows of a Result: the score, how many tasks it
// won, tokens and penalties. It holds nothing that names or orders a hidden task.
type PublicResult struct {
	Split         Split     `json:"split"`
	Score         int       `json:"score"`
	Clear         int       `json:"clear"`
	Ambiguous     int       `json:"ambiguous"`
	Tasks         int       `json:"tasks"`
	Tokens        int       `json:"tokens"`
	Budget        int       `json:"budget"`
	OverBudget    bool      `json:"overBudget"`
	Penalties     []Penalty `json:"penalties"`
	PenaltyPoints int       `json:"penaltyPoints"`
}

// Public returns what a participant may see of r.
func (r Result) Public() PublicResult {
	return PublicResult{Split: r.Split, Score: r.Score, Clear: r.Clear, Ambiguous: r.Ambiguous, Tasks: r.Tasks,
		Tokens: r.Tokens, Budget: r.Budget, OverBudget: r.OverBudget, Penalties: r.Penalties, PenaltyPoints: r.PenaltyPoints}
}
