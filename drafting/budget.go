package drafting

import (
	"context"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/selection/runner"
)

// Budget bounds the calls one drafting action may make. Take reserves one before a call; a
// budget that is spent refuses with ErrBudget. The zero value refuses everything; a nil
// *Budget allows any number.
type Budget struct {
	mu    sync.Mutex
	max   int
	spent int
}

// NewBudget allows max calls.
func NewBudget(max int) *Budget { return &Budget{max: max} }

// ErrBudget is a call refused because the budget is spent.
var ErrBudget = budgetError{}

type budgetError struct{}

func (budgetError) Error() string {
	return "the call budget is spent; raise it (--max-calls, or the form's budget) to go on"
}

// Take reserves n calls, or none and ErrBudget.
func (b *Budget) Take(n int) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+n > b.max {
		return ErrBudget
	}
	b.spent += n
	return nil
}

// Spent and Max report the budget.
func (b *Budget) Spent() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Max is the budget's limit (0 for a nil budget: none).
func (b *Budget) Max() int {
	if b == nil {
		return 0
	}
	return b.max
}

// Left is what remains (a large number for a nil budget).
func (b *Budget) Left() int {
	if b == nil {
		return 1 << 30
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max - b.spent
}

// Recorder keeps every exchange a drafting action made, key scrubbed by the client, so that
// Recording replays them. It is safe for concurrent use; a nil *Recorder keeps nothing.
type Recorder struct {
	mu sync.Mutex
	xs []runner.Exchange
}

// Add keeps one exchange (those without a request or a status are dropped).
func (r *Recorder) Add(x runner.Exchange) {
	if r == nil || len(x.Request) == 0 || x.Status == 0 {
		return
	}
	r.mu.Lock()
	r.xs = append(r.xs, x)
	r.mu.Unlock()
}

// AddRun keeps a model run's exchanges.
func (r *Recorder) AddRun(run *runner.Run) {
	if r == nil || run == nil {
		return
	}
	for _, c := range run.Calls {
		if c.Exchange != nil {
			r.Add(*c.Exchange)
		}
	}
}

// Recording is what was kept, in the recording format a replay endpoint reads.
func (r *Recorder) Recording(spec runner.Spec) *runner.Recording {
	rec := &runner.Recording{Format: runner.RecordingFormat, Spec: spec, Exchanges: []runner.Exchange{}}
	if r == nil {
		return rec
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Exchanges = append(rec.Exchanges, r.xs...)
	return rec
}

// Caller is a Model with a budget and a recorder: what the drafting actions call through.
type Caller struct {
	Model  Model
	Budget *Budget
	Record *Recorder
}

// Ask sends one brief: it takes one call from the budget, sends the request and keeps the
// exchange, and returns the answer's text. Errors say what failed (a *runner.CallError, or
// ErrBudget), never with the key.
func (c Caller) Ask(ctx context.Context, b Brief) (string, error) {
	panic("drafting.Caller.Ask: not built yet")
}

var _ openai.ChatCompletionRequest
