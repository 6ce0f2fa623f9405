package challenge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// fileJSON is a challenge file as written: pointers tell a field left out (which takes its
// default) from one given as zero. Start and Practice are what the service stores beside the
// file (the starting listing, the practice tasks): Parse accepts and skips them, so that the
// stored document, downloaded as it is, is a file the CLI reads.
type fileJSON struct {
	Version   *int            `json:"version"`
	Title     string          `json:"title"`
	Tools     []string        `json:"tools"`
	Budget    *budgetJSON     `json:"budget"`
	Penalties *penaltiesJSON  `json:"penalties"`
	Scorer    *Scorer         `json:"scorer"`
	Window    *Window         `json:"window"`
	Live      json.RawMessage `json:"live"`
	Final     json.RawMessage `json:"final"`
	Start     json.RawMessage `json:"start"`
	Practice  json.RawMessage `json:"practice"`
}

type budgetJSON struct {
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
	Rendering string `json:"rendering"`
}

type penaltiesJSON struct {
	Points *int      `json:"points"`
	Errors *bool     `json:"errors"`
	Rules  *[]string `json:"rules"`
}

// maxPoints bounds the points one finding costs: a score runs from 0 to 100.
const maxPoints = 100

// DefaultTitle is the title of a challenge file that gives none.
const DefaultTitle = "Workshop challenge"

// Parse reads a challenge file (JSON), with clear errors and bounds (MaxHiddenTasks,
// MaxTools, MaxBudget, store.MaxChallengeSettings bytes); it fills defaults.
func Parse(src []byte) (*File, error) {
	if len(src) > store.MaxChallengeSettings {
		return nil, invalid("the challenge file is %d bytes; the limit is %d (%d hidden tasks at most)", len(src), store.MaxChallengeSettings, MaxHiddenTasks)
	}
	if err := listing.CheckUTF8(src); err != nil {
		return nil, invalid("the challenge file is not UTF-8 text: %v", err)
	}
	var j fileJSON
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, invalid("the challenge file is not one a workbench reads: %s. It is a JSON object with version, title, tools, budget, penalties, scorer, window, live and final (workbench challenge score --help shows one)", jsonProblem(src, err))
	}
	if dec.More() {
		return nil, invalid("the challenge file holds more than one JSON value; keep the one object")
	}
	f := &File{Version: Version, Title: strings.TrimSpace(j.Title), Tools: j.Tools}
	if j.Version != nil && *j.Version != Version {
		return nil, invalid("the challenge file is version %d; this workbench reads version %d", *j.Version, Version)
	}
	if f.Title == "" {
		f.Title = DefaultTitle
	}
	if err := store.CheckText("read challenge", "title", f.Title, store.MaxTitle, true, false); err != nil {
		return nil, invalid("%s", strings.TrimPrefix(err.Error(), "read challenge: "))
	}
	steps := []func() error{
		func() error { return checkTools(f.Tools) },
		func() (err error) { f.Budget, err = readBudget(j.Budget); return err },
		func() (err error) { f.Penalties, err = readPenalties(j.Penalties); return err },
		func() (err error) { f.Scorer, err = readScorer(j.Scorer); return err },
		func() (err error) { f.Window, err = readWindow(j.Window); return err },
		func() (err error) { f.Live, err = readSplit(Live, j.Live, f.Tools); return err },
		func() (err error) { f.Final, err = readSplit(Final, j.Final, f.Tools); return err },
		func() error { return checkSplits(f) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func invalid(format string, args ...any) error { return &Invalid{Msg: fmt.Sprintf(format, args...)} }

// jsonProblem words a decoding error with the line and column where it has an offset.
func jsonProblem(src []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col, _ := listing.Position(src, int(se.Offset))
		return fmt.Sprintf("broken JSON at line %d, column %d (%v)", line, col, se)
	case errors.As(err, &te):
		line, col, _ := listing.Position(src, int(te.Offset))
		field := te.Field
		if field == "" {
			field = "the document"
		}
		return fmt.Sprintf("%s: a JSON %s at line %d, column %d where a %s belongs", field, te.Value, line, col, jsonKind(te.Type.String()))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "broken JSON: the text ends before the object does"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "list"
	case goType == "string":
		return "string"
	case goType == "int", goType == "*int":
		return "whole number"
	case goType == "bool", goType == "*bool":
		return "true or false"
	case goType == "time.Time":
		return "time such as \"2026-03-01T09:00:00Z\""
	}
	return "JSON object"
}

func checkTools(tools []string) error {
	switch {
	case len(tools) == 0:
		return invalid("the challenge file names no tools: \"tools\" lists the starting listing's tool names in order, the places the hidden tasks stand for")
	case len(tools) > MaxTools:
		return invalid("the challenge file names %d tools; a challenge has at most %d", len(tools), MaxTools)
	}
	seen := make(map[string]int, len(tools))
	for i, n := range tools {
		if n == "" {
			return invalid("tool %d of \"tools\" has an empty name; give each starting tool its name", i+1)
		}
		if j, dup := seen[n]; dup {
			return invalid("\"tools\" names %q twice (places %d and %d); a place must be told from another by its name", clip(n), j+1, i+1)
		}
		seen[n] = i
	}
	return nil
}

func readBudget(b *budgetJSON) (Budget, error) {
	if b == nil || b.Tokens == 0 {
		return Budget{}, invalid("the challenge file has no token budget: give \"budget\": {\"tokens\": N}, for example the starting listing's tokens plus a quarter (workbench cost LISTING counts them)")
	}
	out := Budget{Tokens: b.Tokens, Tokenizer: b.Tokenizer, Rendering: b.Rendering}
	if out.Tokens < 0 || out.Tokens > MaxBudget {
		return Budget{}, invalid("the budget of %d tokens is out of range; give 1 to %d", out.Tokens, MaxBudget)
	}
	if out.Tokenizer == "" {
		out.Tokenizer = DefaultTokenizer
	}
	if out.Rendering == "" {
		out.Rendering = DefaultRendering
	}
	if _, err := cost.NewTokenizer(out.Tokenizer); err != nil {
		return Budget{}, invalid("the budget's tokenizer %q is not built in: use one of %s", clip(out.Tokenizer), strings.Join(cost.Encodings, ", "))
	}
	if !slices.Contains(cost.RenderingNames(), out.Rendering) {
		return Budget{}, invalid("the budget's rendering %q is unknown: use one of %s", clip(out.Rendering), strings.Join(cost.RenderingNames(), ", "))
	}
	return out, nil
}

func readPenalties(p *penaltiesJSON) (Penalties, error) {
	out := Penalties{Points: DefaultPenaltyPoints, Errors: true, Rules: slices.Clone(DefaultPenaltyRules)}
	if p == nil {
		return out, nil
	}
	if p.Points != nil {
		out.Points = *p.Points
	}
	if out.Points < 0 || out.Points > maxPoints {
		return Penalties{}, invalid("a finding costs %d points; give 0 to %d (the default is %d)", out.Points, maxPoints, DefaultPenaltyPoints)
	}
	if p.Errors != nil {
		out.Errors = *p.Errors
	}
	if p.Rules != nil {
		out.Rules = slices.Clone(*p.Rules)
	}
	return out, checkRules(out.Rules)
}

// checkRules accepts the extended rules' IDs (`workbench rules` lists them); the reference's
// findings cost points through Errors.
func checkRules(rules []string) error {
	if len(rules) > len(lint.Rules()) {
		return invalid("penalties.rules names %d rules; there are %d", len(rules), len(lint.Rules()))
	}
	for _, id := range rules {
		if lint.Lookup(id) == nil {
			return invalid("penalties.rules names %q, which is no rule: use rule IDs that `workbench rules` lists, such as %s", clip(id), strings.Join(DefaultPenaltyRules, " or "))
		}
	}
	return nil
}

func readScorer(s *Scorer) (Scorer, error) {
	if s == nil || s.Kind == "" || s.Kind == "ranker" {
		return Scorer{Kind: "ranker"}, nil
	}
	return Scorer{}, invalid("the scorer %q cannot score a challenge: only the word-overlap ranker scores a challenge in this version; write \"scorer\": {\"kind\": \"ranker\"} or leave it out", clip(s.Kind))
}

func readWindow(w *Window) (Window, error) {
	if w == nil {
		return Window{}, nil
	}
	if !w.Start.IsZero() && !w.End.IsZero() && !w.End.After(w.Start) {
		return Window{}, invalid("the window ends (%s) before it starts (%s); give an end after the start, or leave one out", w.End.Format(timeFormat), w.Start.Format(timeFormat))
	}
	return *w, nil
}

const timeFormat = "2006-01-02 15:04 MST"

// readSplit reads one split's tasks and checks that every tool they name is a starting tool.
func readSplit(split Split, raw json.RawMessage, tools []string) ([]selection.Task, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, invalid("the %s split has no tasks: a challenge needs hidden tasks in both splits (\"live\" scores the leaderboard, \"final\" the final ranking)", split)
	}
	tasks, err := selection.ParseTasks(raw, false)
	if err != nil {
		return nil, invalid("the %s split: %s", split, err.Error())
	}
	if len(tasks) == 0 {
		return nil, invalid("the %s split has no tasks: a challenge needs hidden tasks in both splits (\"live\" scores the leaderboard, \"final\" the final ranking)", split)
	}
	if len(tasks) > MaxHiddenTasks {
		return nil, invalid("the %s split holds %d tasks; a challenge holds at most %d hidden tasks", split, len(tasks), MaxHiddenTasks)
	}
	known := make(map[string]bool, len(tools))
	for _, n := range tools {
		known[n] = true
	}
	for i, t := range tasks {
		if strings.TrimSpace(t.Task) == "" {
			return nil, invalid("task %d of the %s split has no text; write what a user would ask", i+1, split)
		}
		for _, n := range append(slices.Clone(t.Answers()), t.Reject...) {
			if !known[n] {
				return nil, invalid("task %d of the %s split names %q, which is not a starting tool: hidden tasks name the starting listing's tools (%s)", i+1, split, clip(n), toolList(tools))
			}
		}
	}
	return tasks, nil
}

// checkSplits bounds the two splits together and refuses a task both hold: the live score
// would then reveal a final task.
func checkSplits(f *File) error {
	if n := len(f.Live) + len(f.Final); n > MaxHiddenTasks {
		return invalid("the splits hold %d hidden tasks together; a challenge holds at most %d", n, MaxHiddenTasks)
	}
	live := make(map[string]int, len(f.Live))
	for i, t := range f.Live {
		live[TaskKey(t.Task)] = i
	}
	for i, t := range f.Final {
		if j, ok := live[TaskKey(t.Task)]; ok {
			return invalid("task %d of the final split is task %d of the live split; the live score would reveal it: give each split its own tasks", i+1, j+1)
		}
	}
	return nil
}

// TaskKey is a task's text as compared for sameness: case and runs of spaces do not count.
func TaskKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// toolList names tools for a message, the first ten of them.
func toolList(tools []string) string {
	const shown = 10
	names := make([]string, 0, shown)
	for _, n := range tools[:min(len(tools), shown)] {
		names = append(names, clip(n))
	}
	s := strings.Join(names, ", ")
	if len(tools) > shown {
		s += fmt.Sprintf(" and %d more", len(tools)-shown)
	}
	return s
}

// clip shortens a name from a file for a message.
func clip(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// Encode writes a challenge file.
func Encode(f *File) ([]byte, error) {
	if f == nil {
		return nil, errors.New("encode challenge: no file")
	}
	c := *f
	if c.Penalties.Rules == nil {
		c.Penalties.Rules = []string{}
	}
	if c.Live == nil {
		c.Live = []selection.Task{}
	}
	if c.Final == nil {
		c.Final = []selection.Task{}
	}
	return encodeJSON(&c)
}

// encodeJSON writes v indented, with empty lists as [] (a file with "live": null would not
// read back).
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode challenge: %w", err)
	}
	return append(b, '\n'), nil
}
