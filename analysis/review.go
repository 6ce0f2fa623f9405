package analysis

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// ReviewEngines wires the workbench's engines into an export.Review, the same way for the CLI
// and the browser: the reference checks and the extended rules (package lint) for findings,
// tok for each tool's tokens of its compact JSON, and the reference ranker (package selection)
// for tasks. A nil tasks leaves the ranking out (the caller says why in RankingNote); an empty,
// non-nil one is a task file with no tasks. The engines stop when ctx is done, and the review
// then fails with ctx's error.
func ReviewEngines(ctx context.Context, tok cost.Tokenizer, tasks []selection.Task) (export.ReviewOptions, error) {
	counter, err := cost.NewCounter(tok, "compact", cost.Options{})
	if err != nil {
		return export.ReviewOptions{}, fmt.Errorf("review engines: %w", err)
	}
	return ReviewWith(ctx, counter, lint.New(lint.Config{Tokens: tok.Count}), tasks), nil
}

// ReviewWith is ReviewEngines with a counter (of the compact rendering) and a linter the caller
// already holds, so that a server shares them between requests.
func ReviewWith(ctx context.Context, counter *cost.Counter, lt *lint.Linter, tasks []selection.Task) export.ReviewOptions {
	var opts export.ReviewOptions
	opts.Tokens = func(t *listing.Value) int { return counter.Tool(t).Tokens }
	opts.TokenUnit = counter.Tokenizer().Name() + " tokens of each tool's compact JSON"
	opts.Findings = func(l *listing.Listing) ([]export.Finding, error) {
		var fs []lint.Finding
		// The reference's checks run where the reference could read the listing at all.
		if reference.Validate(l, false) == nil {
			lines, _, err := reference.LintContext(ctx, l)
			if err != nil {
				return nil, err
			}
			fs = append(fs, lt.ReferenceFindings(l, lines)...)
		}
		ext, err := lt.LintContext(ctx, l)
		if err != nil {
			return nil, err
		}
		fs = append(fs, ext...)
		out := make([]export.Finding, len(fs))
		for i, f := range fs {
			out[i] = export.Finding{Tool: f.Tool, Rule: f.Rule, Severity: string(f.Severity), Pointer: f.Pointer, Message: f.Message}
		}
		return out, nil
	}
	if tasks == nil {
		return opts
	}
	opts.Rank = func(l *listing.Listing) ([]export.Verdict, error) {
		vs, err := selection.RankContext(ctx, l, tasks, false)
		if err != nil {
			return nil, err
		}
		out := make([]export.Verdict, len(vs))
		for i, v := range vs {
			out[i] = export.Verdict{Task: v.Task.Task, Expected: v.Task.Expected()}
			if v.Winner != nil {
				out[i].Picked = v.Winner.Name
			}
		}
		return out, nil
	}
	return opts
}

// ReviewOptions is ReviewEngines with the engine's tokenizer and, when it has one, its extended
// linter: the review then reports what the Findings tab shows, from the same caches.
func (e *Engine) ReviewOptions(ctx context.Context, tasks []selection.Task) (export.ReviewOptions, error) {
	if e.ext == nil {
		return ReviewEngines(ctx, e.tok, tasks)
	}
	counter, err := cost.NewCounter(e.tok, "compact", cost.Options{})
	if err != nil {
		return export.ReviewOptions{}, fmt.Errorf("review engines: %w", err)
	}
	return ReviewWith(ctx, counter, e.ext, tasks), nil
}
