package drafting

import (
	"context"
	"fmt"
	"strings"

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

// PlanSuggest is the most calls a suggestion makes: one to draft, and with Run a run of the
// tasks for the current text and for each candidate.
func PlanSuggest(req SuggestRequest) Plan {
	k := clampK(req.K)
	p := Plan{Calls: 1, What: fmt.Sprintf("1 call to draft %s", plural(k, "rewrite"))}
	if req.Run && len(req.Tasks) > 0 {
		n := len(req.Tasks) * samples(req.Samples)
		p.Calls += (k + 1) * n
		p.What += fmt.Sprintf(", %d×%d calls to run the tasks on the current text and each candidate", k+1, n)
	}
	return p
}

func samples(n int) int { return max(n, 1) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
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
	Won       int `json:"won"`
	Ambiguous int `json:"ambiguous"`
	Lost      int `json:"lost"`
	Stolen    int `json:"stolen"`
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
//
// What is an error and what is a Problem: a call that does not come back (refused by the
// budget, timed out, an HTTP error after the client's retries, cancelled) is an error, wrapped
// with what was being asked; an answer that came back but cannot be used (not JSON, the wrong
// shape, no candidates) is a Suggestion with no candidates and a Problem saying what the model
// sent and what would help, since the call was made, counted and recorded. A failed model run
// sets the candidate's RunError and a Problem, and never fails the suggestion. Candidates keep
// the model's order: the page shows each one's scores, and a ranking by the ranker alone would
// favour the text that borrows the tasks' words.
func Suggest(ctx context.Context, c Caller, eng *analysis.Engine, req SuggestRequest) (*Suggestion, error) {
	l, i := req.Listing, req.Tool
	if l == nil || i < 0 || i >= len(l.Tools) {
		return nil, fmt.Errorf("there is no tool %d to suggest rewrites for; pick one of the listing's tools", i+1)
	}
	k := clampK(req.K)
	tool := l.Tools[i]
	name, current := tool.Get("name").Str, tool.Get("description").Str
	s := &Suggestion{Tool: name, Plan: PlanSuggest(req), Candidates: []Candidate{}}
	curScores, curPass, err := scoreListing(ctx, eng, l, req.Tasks, i)
	if err != nil {
		return nil, fmt.Errorf("suggesting rewrites of %s: %w", Excerpt(name), err)
	}
	s.Current = Candidate{Description: current, Scores: curScores}
	brief, err := RewriteBrief(ctx, eng, l, req.Tasks, i, k, req.Params)
	if err != nil {
		return nil, fmt.Errorf("suggesting rewrites of %s: %w", Excerpt(name), err)
	}
	text, err := c.Ask(ctx, brief)
	if err != nil {
		return nil, fmt.Errorf("suggesting rewrites of %s: %w", Excerpt(name), err)
	}
	s.Calls = 1
	cands, problems := Candidates(text, k, current, req.Params)
	s.Problems = append(s.Problems, problems...)
	mk := newMarker()
	curMarks, err := mk.findings(ctx, tool)
	if err != nil {
		return nil, fmt.Errorf("suggesting rewrites of %s: %w", Excerpt(name), err)
	}
	listings := make([]*listing.Listing, len(cands))
	for n := range cands {
		cd := &cands[n]
		if cd.Refused != "" {
			continue
		}
		if unknown := UnknownParams(l, i, cd.Params); len(unknown) > 0 {
			for _, p := range unknown {
				delete(cd.Params, p)
			}
			s.Problems = append(s.Problems, fmt.Sprintf("candidate %d describes parameters the schema does not have (%s); they were left out", n+1, Excerpt(strings.Join(unknown, ", "))))
		}
		if listings[n], err = scoreCandidate(ctx, eng, mk, req, cd, current, curPass, curMarks); err != nil {
			return nil, fmt.Errorf("suggesting rewrites of %s: %w", Excerpt(name), err)
		}
	}
	if req.Run {
		runCandidates(ctx, c, req, s, cands, listings)
	}
	s.Candidates = cands
	return s, nil
}

// scoreCandidate fills cd's diff, scores, flips against the current text's verdicts and marks,
// and returns the listing with it applied.
func scoreCandidate(ctx context.Context, eng *analysis.Engine, mk marker, req SuggestRequest, cd *Candidate, current string, curPass []bool, curMarks markSet) (*listing.Listing, error) {
	l2, err := Apply(req.Listing, req.Tool, cd.Description, cd.Params)
	if err != nil {
		return nil, err
	}
	sc, pass, err := scoreListing(ctx, eng, l2, req.Tasks, req.Tool)
	if err != nil {
		return nil, err
	}
	found, err := mk.findings(ctx, l2.Tools[req.Tool])
	if err != nil {
		return nil, err
	}
	cd.Diff, cd.Scores, cd.Flips, cd.Marks = export.WordDiff(current, cd.Description), sc, flips(curPass, pass), marks(curMarks, found)
	return l2, nil
}

// runCandidates runs the tasks through the model for the current text and for each usable
// candidate, and compares each candidate's run with the current one. Each run takes its calls
// from the budget first; what fails is said in RunError and Problems.
func runCandidates(ctx context.Context, c Caller, req SuggestRequest, s *Suggestion, cands []Candidate, listings []*listing.Listing) {
	fail := func(why string) {
		s.Problems = append(s.Problems, why)
		for n := range cands {
			if cands[n].Refused == "" {
				cands[n].RunError = why
			}
		}
	}
	cl, ok := c.Model.(*runner.Client)
	switch {
	case !ok:
		fail("model runs need a configured endpoint; the tasks were not run")
		return
	case len(req.Tasks) == 0:
		fail("there are no tasks to run; add tasks to compare the candidates on a model")
		return
	}
	spec := req.Spec
	spec.Samples = samples(req.Samples)
	ep := cl.Endpoint()
	spec.Endpoint, spec.Model = ep.Name, ep.Model
	base, err := runOnce(ctx, c, cl, req.Listing, req.Tasks, spec, s)
	if err != nil {
		fail("the run of the current text failed, so no candidate was run: " + err.Error())
		return
	}
	for n := range cands {
		cd := &cands[n]
		if cd.Refused != "" {
			continue
		}
		run, err := runOnce(ctx, c, cl, listings[n], req.Tasks, spec, s)
		if err == nil {
			cd.Run, err = runner.Compare(base, run)
		}
		if err != nil {
			cd.RunError = err.Error()
			s.Problems = append(s.Problems, fmt.Sprintf("candidate %d was not run: %s", n+1, err))
		}
	}
}

// runOnce takes a run's calls from the budget, runs the tasks on l and records the exchanges.
func runOnce(ctx context.Context, c Caller, cl *runner.Client, l *listing.Listing, tasks []selection.Task, spec runner.Spec, s *Suggestion) (*runner.Run, error) {
	n := len(tasks) * spec.Samples
	if err := c.Budget.Take(n); err != nil {
		return nil, err
	}
	run, err := runner.Execute(ctx, cl, l, tasks, runner.Options{Spec: spec})
	if run != nil {
		s.Calls += len(run.Calls)
		c.Record.AddRun(run)
	}
	if err != nil {
		return nil, fmt.Errorf("running the tasks: %w", err)
	}
	failed, first := 0, ""
	for _, cl := range run.Calls {
		if cl.Outcome == runner.OutError {
			if failed++; first == "" {
				first = cl.Error
			}
		}
	}
	if failed > 0 {
		// The comparison leaves failed calls out of its pairs; say how many there were.
		s.Problems = append(s.Problems, fmt.Sprintf("%d of %d calls of a run failed (first: %s)", failed, len(run.Calls), clip(first, MaxBriefText)))
	}
	return run, nil
}
