package drafting

import (
	"context"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Kinds of proposed task.
const (
	KindPlain     = "plain"     // a tool's job in the user's words, never its name
	KindConfusion = "confusion" // a neighbour's job in words close to this tool's
	KindNoTool    = "no-tool"   // a request no tool should take
)

// DefaultPerTool is how many tasks of each kind are asked per tool; MaxProposed bounds the
// proposals kept from one answer.
const (
	DefaultPerTool = 2
	MaxProposed    = 500
)

// TasksRequest asks for proposed tasks.
type TasksRequest struct {
	Listing  *listing.Listing
	Existing []selection.Task
	PerTool  int // default DefaultPerTool
	// Tools, when set, limits the proposals to these tool names (the selected tool).
	Tools []string
}

// Proposed is one proposed task, checked.
type Proposed struct {
	Task selection.Task `json:"task"` // Expect "" for a no-tool task (selection's form for none)
	Kind string         `json:"kind"`
	// Neighbour is the tool a confusion task borrows words from.
	Neighbour string `json:"neighbour,omitempty"`
	// Refused says why the proposal cannot be added (names its tool, names an unknown tool,
	// repeats an existing task, empty); the page shows it unticked and disabled.
	Refused string `json:"refused,omitempty"`
	// Verdict is the ranker's line on the task against the listing as it stands.
	Verdict string `json:"verdict,omitempty"`
}

// Proposals answers a TasksRequest.
type Proposals struct {
	Tasks    []Proposed `json:"tasks"`
	Plan     Plan       `json:"plan"`
	Calls    int        `json:"calls"`
	Problems []string   `json:"problems,omitempty"`
}

// PlanTasks is the most calls GenerateTasks makes.
func PlanTasks(req TasksRequest) Plan {
	panic("drafting.PlanTasks: not built yet")
}

// GenerateTasks asks the model for tasks and checks each: a task that names its own tool (or
// any tool) by name, expects an unknown tool, repeats a task, or is empty is kept Refused with
// why, so the person sees what the model tried.
func GenerateTasks(ctx context.Context, c Caller, req TasksRequest) (*Proposals, error) {
	panic("drafting.GenerateTasks: not built yet")
}
