package drafting

import (
	"context"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
)

// Dimension is one thing the rubric scores, 1 (poor) to 5 (excellent).
type Dimension struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Question string `json:"question"` // in our words, sent to the model and shown on the page
}

// Dimensions are the rubric's, in order: purpose, when to use and when not, behaviour and side
// effects, parameter meaning, brevity, completeness against its neighbours.
var Dimensions = []Dimension{
	{"purpose", "Purpose", "Does the description say plainly what the tool does and to what?"},
	{"usage", "When to use", "Does it say when to pick this tool, and when to pick another or none?"},
	{"behaviour", "Behaviour", "Does it say what the tool changes, what it returns, and its side effects and limits?"},
	{"parameters", "Parameters", "Does each parameter say what it means, its format and its allowed values?"},
	{"brevity", "Brevity", "Is every sentence needed, with nothing repeated from the schema and no filler?"},
	{"neighbours", "Against neighbours", "Could a reader tell this tool from the listing's similar tools by the text alone?"},
}

// DimScore is one dimension's score with its reason.
type DimScore struct {
	ID     string `json:"id"`
	Score  int    `json:"score"` // 1–5
	Reason string `json:"reason"`
}

// ToolRubric is one tool's rubric.
type ToolRubric struct {
	Tool string     `json:"tool"`
	Hash string     `json:"hash"` // the tool's content hash the score belongs to
	Dims []DimScore `json:"dimensions"`
	Mean float64    `json:"mean"`
	// Offline: scored from the findings alone, without a model.
	Offline bool `json:"offline"`
	Cached  bool `json:"cached,omitempty"`
	// Problem says why the model's score is missing (a failed or malformed answer); the offline
	// score stands in, labelled.
	Problem string `json:"problem,omitempty"`
}

// Rubric is a listing's rubric.
type Rubric struct {
	Tools []ToolRubric `json:"tools"`
	// Score is the listing's, weighted toward its worst tool: the mean of the tools' means,
	// pulled halfway to the lowest one (so one poor tool shows, as in Glama's TDQS).
	Score   float64 `json:"score"`
	Worst   string  `json:"worst"`   // the tool with the lowest mean
	Offline bool    `json:"offline"` // every tool scored offline
	Label   string  `json:"label"`   // how it was scored, in words ("by gpt-4o on endpoint x"; "offline, from the findings")
	Plan    Plan    `json:"plan"`
	Calls   int     `json:"calls"`
}

// RubricCache keeps tool rubrics by model and tool content hash, so that only edited tools
// are scored again. Bounded; safe for concurrent use.
type RubricCache struct{ entries *rubricLRU }

// NewRubricCache keeps at most n tool rubrics (default 4096 when n ≤ 0).
func NewRubricCache(n int) *RubricCache {
	panic("drafting.NewRubricCache: not built yet")
}

// PlanRubric is the most calls a rubric makes (one per tool not in the cache).
func PlanRubric(l *listing.Listing, model string, cache *RubricCache) Plan {
	panic("drafting.PlanRubric: not built yet")
}

// ScoreRubric scores every tool with the model (c.Model nil: offline for all, labelled), using
// and filling cache (nil: none). A tool whose call fails or whose answer is malformed gets the
// offline score with Problem set.
func ScoreRubric(ctx context.Context, c Caller, eng *analysis.Engine, l *listing.Listing, cache *RubricCache) (*Rubric, error) {
	panic("drafting.ScoreRubric: not built yet")
}

// Offline scores one tool from the engine's findings alone.
func Offline(tr analysis.ToolResult, l *listing.Listing) ToolRubric {
	panic("drafting.Offline: not built yet")
}

type rubricLRU struct{}
