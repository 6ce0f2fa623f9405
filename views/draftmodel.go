package views

import (
	"fmt"
	"strconv"
	"strings"
)

// Drafting with a model (issue 18): the Suggest dialog of the tool editor, the Tasks tab's
// proposed tasks and the Rubric dialog. They share one mount (DraftMount), a modal dialog like
// the Fix preview's. Everything a model wrote reaches these views as text children, escaped by
// templ; expressions carry only what the server made: positions, shapes, a random suggestion id
// and candidate numbers.

// Ids of the drafting regions.
const (
	IDDraft         = "draft-dialog"
	IDSuggestPlan   = "suggest-plan"
	IDSuggestResult = "suggest-result"
	IDProposeResult = "propose-result"
	IDRubricResult  = "rubric-result"
)

// SuggestForm is the Suggest dialog's form: what to ask, and the plan of calls before asking.
type SuggestForm struct {
	WS       string
	Tool     int
	G        int // the tools' shape the tool's position was rendered at
	ToolName string
	// Endpoints are the configured ones (names, models, hosts: never a key).
	Endpoints  []RunEndpoint
	Endpoint   string
	K, MaxK    int
	Params     bool
	Run        bool
	Samples    int
	MaxSamples int
	Tasks      int
	Plan       SuggestPlan
	// Configure says how to configure an endpoint when none is: the dialog offers nothing else.
	Configure string
	// Refused says why this page may not ask (a view link, a participant's copy).
	Refused string
}

// SuggestPlan is the most calls the asked suggestion makes, shown before Ask.
type SuggestPlan struct {
	Calls   int
	What    string
	Problem string // the form's values cannot be used as they are
}

// SuggestScores are a text's scores without a model.
type SuggestScores struct {
	Errors, Warnings                    int
	Tokens                              int
	Won, Ambiguous, Lost, Stolen, Tasks int
	Clear                               int
	FindingLines                        []string // the findings' messages, at most a few
}

// SuggestParam is the word diff of one parameter's description.
type SuggestParam struct {
	Name string
	Runs []DiffRun
}

// SuggestRun is a model run of the candidate against the current text.
type SuggestRun struct {
	Before, After float64
	Low, High     float64 // the paired 95% interval of the difference
	P             float64 // McNemar's exact p
	Pairs         int
	Persuasive    []string // tools whose share rose without precision: persuasion
}

// SuggestCard is one candidate.
type SuggestCard struct {
	N           int
	Diff        []DiffRun
	Params      []SuggestParam
	Rationale   string
	Scores      SuggestScores
	TokensDelta int
	Fixed       []int // 1-based task numbers the ranker now gets right
	Broken      []int
	Marks       []string // persuading wording, in words: shown whatever the scores
	Run         *SuggestRun
	RunError    string
	Refused     string // why the model's candidate cannot be used (no scores, no Accept)
}

// SuggestResult is the result region of the Suggest dialog.
type SuggestResult struct {
	WS       string
	SID      string // the suggestion's id in the server's cache (random hex)
	Tool     string
	Asking   string // "Asking fake… (4 calls at most)": the first patch, before the answer
	Problem  string // nothing usable came back, in words
	Problems []string
	Current  SuggestScores
	Cards    []SuggestCard
	Calls    int
	Done     string // an Accept stored, or why it was refused
}

// ProposeTask is one proposed task in the Propose dialog.
type ProposeTask struct {
	N         int // index in the proposals (the checkbox's value)
	Text      string
	Expect    string // "" for no tool
	Kind      string
	Neighbour string
	Refused   string
	Verdict   string
}

// ProposeResult is the Propose dialog's result region.
type ProposeResult struct {
	WS       string
	PID      string // the proposals' id in the server's cache
	Asking   string
	Problem  string
	Problems []string
	Tasks    []ProposeTask
	Calls    int
	Done     string
}

// ProposeForm is the Propose tasks dialog.
type ProposeForm struct {
	WS        string
	Endpoints []RunEndpoint
	Endpoint  string
	Tool      string // the selected tool's name: "only for this tool" (empty: none)
	PerTool   int
	Plan      SuggestPlan
	Configure string
	Refused   string
	Result    ProposeResult
}

// RubricDim is one dimension's score.
type RubricDim struct {
	Name, Question, Reason string
	Score                  int
}

// RubricEndpoint is an endpoint the rubric can be scored with, and the most calls that takes
// (one per tool its cache does not hold).
type RubricEndpoint struct {
	Name  string
	Calls int
}

// RubricPlanID is the id of endpoint i's plan line in the Rubric dialog.
func RubricPlanID(i int) string { return "rubric-plan-" + strconv.Itoa(i) }

// RubricView is the Rubric dialog: the selected tool's six dimensions and the listing's score.
type RubricView struct {
	WS        string
	Tool      string
	ToolIndex int
	Dims      []RubricDim
	Mean      float64
	Score     float64 // the listing's, weighted toward its worst tool
	Worst     string
	Label     string // "offline: from the findings", or the model's
	Offline   bool
	Problem   string
	Cached    bool
	Endpoints []RubricEndpoint // "Score with ENDPOINT" (the usable ones)
	Calls     int
}

// suggestExpr asks for the form's suggestion (the form's fields, not the signals).
func suggestExpr(ws string, tool, g int, path string) string {
	return fmt.Sprintf("@post('%s?t=%d&g=%d', {contentType: 'form'})", wsURL(ws, path), tool, g)
}

// acceptExpr accepts candidate n of suggestion sid (server-made hex and a number).
func acceptExpr(ws, sid string, n int) string {
	return fmt.Sprintf("@post('%s')", wsURL(ws, fmt.Sprintf("suggest/%s/%d/accept", sid, n)))
}

// draftOpenExpr opens a drafting dialog for tool t (rendered at shape g).
func draftOpenExpr(ws, path string, t, g int) string {
	return fmt.Sprintf("@get('%s?t=%d&g=%d')", wsURL(ws, path), t, g)
}

// formPostExpr posts the closest form to path.
func formPostExpr(ws, path string) string {
	return fmt.Sprintf("@post('%s', {contentType: 'form'})", wsURL(ws, path))
}

// rubricExpr scores tool t with the form's endpoint.
func rubricExpr(ws string, t int) string {
	return fmt.Sprintf("@post('%s?t=%d', {contentType: 'form'})", wsURL(ws, "rubric"), t)
}

func signed(n int) string {
	if n > 0 {
		return "+" + itoa(n)
	}
	return itoa(n)
}

func fixed1(x float64) string { return fmt.Sprintf("%.1f", x) }

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func pctSigned(x float64) string { return fmt.Sprintf("%+.0f", 100*x) }

func pValue(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// taskNumbers lists 1-based task numbers.
func taskNumbers(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = itoa(n)
	}
	return strings.Join(parts, ", ")
}

// endpointLabel names an endpoint as the select shows it.
func endpointLabel(e RunEndpoint) string {
	s := e.Name + " · " + e.Model
	if e.Host != "" {
		s += " · " + e.Host
	}
	if e.Replay {
		s += " (recording, no key)"
	}
	if e.Records {
		s += " (recorded)"
	}
	if e.Problem != "" {
		s += " (unavailable)"
	}
	return s
}

// scoreClass colours a rubric score.
func scoreClass(n int) string {
	switch {
	case n <= 2:
		return "rb-low"
	case n == 3:
		return "rb-mid"
	}
	return "rb-high"
}

// suggestStatus is the result region's state for tests and styles.
func suggestStatus(r SuggestResult) string {
	switch {
	case r.Asking != "":
		return "asking"
	case r.Done != "":
		return "done"
	case r.Problem != "":
		return "problem"
	case len(r.Cards) > 0:
		return "ready"
	}
	return ""
}

func rankLine(s SuggestScores) string {
	return itoa(s.Won) + " · " + itoa(s.Ambiguous) + " · " + itoa(s.Lost) + " · " + itoa(s.Stolen)
}

// scoreLine says a text's scores in a line.
func scoreLine(s SuggestScores) string {
	return fmt.Sprintf("%d errors, %d warnings, %d listing tokens, ranker won %d, ambiguous %d, lost %d, stole %d of %d tasks",
		s.Errors, s.Warnings, s.Tokens, s.Won, s.Ambiguous, s.Lost, s.Stolen, s.Tasks)
}
