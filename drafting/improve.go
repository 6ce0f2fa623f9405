package drafting

import (
	"context"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/selection/stats"
)

// ImproveOptions tune the improvement loop.
type ImproveOptions struct {
	Rounds  int // default 2
	K       int // candidates per rewrite (default DefaultK)
	Samples int // samples per task of each model run (default 1)
	// HeldOut is the share of tasks held out (default 0.5); the split is deterministic: by
	// expected tool, every other task of each, so both parts see every tool when they can.
	HeldOut float64
	// MaxTokens bounds the revised listing's tokens (0: the listing-token-budget rule's bound,
	// which lint clean already holds).
	MaxTokens int
	Spec      runner.Spec
	// Progress is told what happens, a line at a time (nil: nothing).
	Progress func(string)
}

// Attempt is one candidate rewrite of one tool tried in a round.
type Attempt struct {
	Round       int    `json:"round"`
	Tool        string `json:"tool"`
	Description string `json:"description"`
	// TrainBefore/After and HeldBefore/After are correct calls on each part with the tool as it
	// was and with the candidate.
	TrainBefore, TrainAfter int
	HeldBefore, HeldAfter   int
	Kept                    bool   `json:"kept"`
	Reason                  string `json:"reason"` // why kept or not, in words
}

// ImproveReport is what the loop found.
type ImproveReport struct {
	Plan     Plan      `json:"plan"`
	Train    []int     `json:"train"`   // 0-based task indexes
	HeldOut  []int     `json:"heldOut"` // 0-based task indexes
	Attempts []Attempt `json:"attempts"`
	// Before and After are the held-out accuracy of the original and revised listing, with the
	// paired comparison of the two runs (interval, McNemar p).
	Before, After float64
	Compare       *runner.Comparison `json:"compare,omitempty"`
	Pairs         stats.Paired       `json:"pairs"`
	// Improved is true only when held-out accuracy rose; the report never claims more.
	Improved bool             `json:"improved"`
	Verdict  string           `json:"verdict"` // one sentence
	Calls    int              `json:"calls"`
	Revised  *listing.Listing `json:"-"`
	Changed  []string         `json:"changed"` // tools whose text the revised listing changed
	Problems []string         `json:"problems,omitempty"`
}

// PlanImprove is the most calls Improve makes with these tasks and options.
func PlanImprove(l *listing.Listing, tasks []selection.Task, opts ImproveOptions) Plan {
	panic("drafting.PlanImprove: not built yet")
}

// Split divides tasks into training and held-out indexes as ImproveOptions.HeldOut says.
func Split(tasks []selection.Task, heldOut float64) (train, held []int) {
	panic("drafting.Split: not built yet")
}

// Improve runs the loop: a baseline run of every task, then for each round the tools that lose
// training tasks are rewritten (the prompt shows training tasks only, never held-out ones), and
// a candidate is kept only if it wins more training tasks, loses no held-out task, adds no lint
// finding and keeps the token bound. It ends with a run of the revised listing and the held-out
// comparison. The budget bounds every call; a spent budget ends the loop early and says so.
func Improve(ctx context.Context, c Caller, eng *analysis.Engine, l *listing.Listing, tasks []selection.Task, opts ImproveOptions) (*ImproveReport, error) {
	panic("drafting.Improve: not built yet")
}
