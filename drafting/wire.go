package drafting

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/selection/runner"
)

// Job names what a Brief asks of the model.
type Job string

// The jobs.
const (
	JobRewrite Job = "rewrite" // k rewrites of one tool's description (and parameters')
	JobTasks   Job = "tasks"   // tasks for the listing's tools
	JobRubric  Job = "rubric"  // a rubric score of one tool
)

// Brief is what a drafting request tells the model, sent as the JSON text of the user message
// after a fixed system prompt per job. Its fields are in a fixed order and hold no time or
// random value, so that the same brief is the same request and a recording replays it.
type Brief struct {
	Job Job `json:"job"`
	// Tool is the tool in question (rewrite, rubric) as it stands: its name, description and
	// input schema as JSON.
	Tool *BriefTool `json:"tool,omitempty"`
	// K is how many candidates a rewrite asks for; Params asks for parameter descriptions too.
	K      int  `json:"k,omitempty"`
	Params bool `json:"params,omitempty"`
	// Findings are the lint messages on the tool as it stands.
	Findings []string `json:"findings,omitempty"`
	// Neighbours are the tools it is confused with (by the ranker or the tasks), with their
	// descriptions.
	Neighbours []BriefTool `json:"neighbours,omitempty"`
	// ShouldWin are tasks the tool should be picked for; ShouldNotWin tasks it should not (a
	// neighbour's, or no tool's).
	ShouldWin    []string `json:"shouldWin,omitempty"`
	ShouldNotWin []string `json:"shouldNotWin,omitempty"`
	// Tools is the listing (tasks job), name and description each.
	Tools []BriefTool `json:"tools,omitempty"`
	// PerTool is how many tasks of each kind the tasks job asks for per tool.
	PerTool int `json:"perTool,omitempty"`
	// Existing are the task file's tasks, so the model does not repeat them (tasks job).
	Existing []string `json:"existing,omitempty"`
	// Dimensions name the rubric's dimensions with what each asks (rubric job).
	Dimensions []BriefDimension `json:"dimensions,omitempty"`
}

// BriefTool is a tool as a brief shows it.
type BriefTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// BriefDimension is one rubric dimension as a brief asks it.
type BriefDimension struct {
	ID       string `json:"id"`
	Question string `json:"question"`
}

// RewriteAnswer is what a rewrite job expects back: {"candidates":[{"description":…,
// "parameters":{"name":"description"}}]}.
type RewriteAnswer struct {
	Candidates []struct {
		Description string            `json:"description"`
		Parameters  map[string]string `json:"parameters,omitempty"`
		Rationale   string            `json:"rationale,omitempty"`
	} `json:"candidates"`
}

// TasksAnswer is what a tasks job expects back: {"tasks":[{"task":…,"expect":…,"kind":…}]};
// expect is a tool's name, or "" for a task no tool should take.
type TasksAnswer struct {
	Tasks []struct {
		Task   string `json:"task"`
		Expect string `json:"expect"`
		Kind   string `json:"kind"` // KindPlain, KindConfusion, KindNoTool
		// Neighbour, for a confusion task, is the tool whose words it borrows.
		Neighbour string `json:"neighbour,omitempty"`
	} `json:"tasks"`
}

// RubricAnswer is what a rubric job expects back: {"scores":{"purpose":{"score":4,"reason":…}}}.
type RubricAnswer struct {
	Scores map[string]struct {
		Score  int    `json:"score"`
		Reason string `json:"reason"`
	} `json:"scores"`
}

// MaxAnswerBytes bounds the text of one answer that is parsed.
const MaxAnswerBytes = 256 << 10

// Model is one chat completion endpoint: *runner.Client.
type Model interface {
	Complete(ctx context.Context, req openai.ChatCompletionRequest, sample int, noCache bool) (*runner.Reply, error)
	Endpoint() runner.Endpoint
}

// Request builds the chat request for a brief: the job's system prompt, the brief as JSON, the
// endpoint's model, temperature 0 and a fixed seed.
func Request(model string, b Brief) openai.ChatCompletionRequest {
	panic("drafting.Request: not built yet")
}

// ReadBrief reads the brief back from a request's messages (fakes and tests).
func ReadBrief(req openai.ChatCompletionRequest) (Brief, error) {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			var b Brief
			if err := json.Unmarshal([]byte(m.Content), &b); err != nil {
				return Brief{}, fmt.Errorf("the user message is not a brief: %w", err)
			}
			return b, nil
		}
	}
	return Brief{}, fmt.Errorf("the request has no user message")
}

// Decode parses a model's answer text into v: the JSON object in it, a Markdown code fence or
// text around it allowed, at most MaxAnswerBytes. Its errors say what was wrong in words for
// the person who asked, quoting at most a short excerpt.
func Decode(text string, v any) error {
	panic("drafting.Decode: not built yet")
}

var _ = strings.TrimSpace
