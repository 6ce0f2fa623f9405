package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// ReviewEngines wires the workbench's engine into an export.Review, the same way for the CLI,
// the API and the browser: an Engine counting with tok (on the compact rendering, as the page
// does) with the extended rules (package lint) beside the reference checks. A nil tasks leaves
// the ranking out (the caller says why in RankingNote); an empty, non-nil one is a task file with
// no tasks.
func ReviewEngines(ctx context.Context, tok cost.Tokenizer, tasks []selection.Task) (export.ReviewOptions, error) {
	return ReviewWith(ctx, tok, lint.New(lint.Config{Tokens: tok.Count}), tasks)
}

// ReviewWith is ReviewEngines with an extended linter the caller already holds.
func ReviewWith(ctx context.Context, tok cost.Tokenizer, lt *lint.Linter, tasks []selection.Task) (export.ReviewOptions, error) {
	e, err := newEngine(tok, Options{Extended: lt})
	if err != nil {
		return export.ReviewOptions{}, fmt.Errorf("review engines: %w", err)
	}
	return e.ReviewOptions(ctx, tasks)
}

// ReviewOptions makes the review report what the page shows: each listing is analysed by one
// AnalyzeContext call, and the review takes its findings (Result.AllFindings), its tokens
// (Result.Cost: the tools and the rendering's frame, the Cost tab's total) and its verdicts
// (their statuses and Result's counts of them, the Tasks tab's summary) from that Result.
func (e *Engine) ReviewOptions(ctx context.Context, tasks []selection.Task) (export.ReviewOptions, error) {
	if e.noCost {
		return export.ReviewOptions{}, fmt.Errorf("review engines: the engine counts no tokens (Options.NoCost)")
	}
	opts := export.ReviewOptions{TokenUnit: e.TokenUnit()}
	opts.Analyze = func(l *listing.Listing) (*export.Analysis, error) {
		res, err := e.AnalyzeContext(ctx, l, tasks)
		if err != nil {
			return nil, err
		}
		a := reviewAnalysis(res, tasks != nil)
		if err := reviewExtras(ctx, a, l, tasks); err != nil {
			return nil, fmt.Errorf("review: %w", err)
		}
		return a, nil
	}
	return opts, nil
}

// TokenUnit names what the engine's token totals count: the tokenizer and the rendering.
func (e *Engine) TokenUnit() string {
	return fmt.Sprintf("%s tokens of the %s rendering: each tool, plus the listing's frame, as the Cost tab and workbench cost --render %s count them",
		e.tok.Name(), e.counter.Render(), e.counter.Render())
}

// reviewAnalysis is res as the review reads it.
func reviewAnalysis(res *Result, ranked bool) *export.Analysis {
	a := &export.Analysis{Tokens: res.Cost.Total.Tokens, ToolTokens: make([]int, len(res.Tools)),
		Clear: res.Clear, Ambiguous: res.Ambiguous, Wrong: res.Wrong}
	for i, t := range res.Tools {
		a.ToolTokens[i] = t.Cost.Tokens
	}
	for _, f := range res.AllFindings() {
		a.Findings = append(a.Findings, export.Finding{Tool: f.Tool, Rule: f.Rule, Severity: f.Severity, Pointer: f.Pointer, Message: f.Message})
	}
	if ranked {
		a.Verdicts = make([]export.Verdict, len(res.Verdicts))
		for i, v := range res.Verdicts {
			// A task with several right tools names them all ("a or b").
			a.Verdicts[i] = export.Verdict{Task: v.Task.Task, Expected: strings.Join(v.Task.Answers(), " or "), Status: string(v.Status)}
			// The page names the winner only when it scored (verdictModel): a tool that wins
			// with no word in common was not picked.
			if v.Winner != nil && v.Winner.Score > 0 {
				a.Verdicts[i].Picked = v.Winner.Name
			}
		}
	}
	return a
}
