package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

var exportFields = []string{"listing", "name", "format", "package", "main", "serverName", "compact", "bare",
	"baseline", "baselineName", "tasks", "tokenizer", "profile"}

// exportResponse is the answer of POST /export: the artefact as text, and what to call it.
type exportResponse struct {
	Format    string `json:"format"`
	MediaType string `json:"mediaType"`
	Filename  string `json:"filename"`
	Content   string `json:"content"`
	// Warnings say where go-sdk's tools/list answer will differ from the listing (format go).
	Warnings []exportWarning `json:"warnings"`
}

type exportWarning struct {
	Kind    string `json:"kind"`
	Tool    string `json:"tool,omitempty"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// export answers what `workbench export` writes, wrapped in exportResponse.
func (a *API) export(c echo.Context) error {
	req, err := a.read(c, exportFields...)
	if err != nil {
		return err
	}
	format, err := req.str("format", "json", "json", "go", "review")
	if err != nil {
		return err
	}
	// Options of another format are refused, as the CLI refuses them: they would do nothing.
	only := map[string]string{"package": "go", "main": "go", "serverName": "go", "compact": "json", "bare": "json",
		"baseline": "review", "baselineName": "review", "tasks": "review", "tokenizer": "review", "profile": "review"}
	for _, m := range req.root.Members {
		if f, ok := only[m.Key]; ok && f != format && m.Value.Kind != listing.Null {
			return (&Error{Code: CodeInvalidField, Field: m.Key, Pointer: pointer(m.Key),
				Message: fmt.Sprintf("%q applies to format %s only, and this export is %s", m.Key, f, format),
				Hint:    fmt.Sprintf(`leave out %q, or set "format": %q`, m.Key, f)}).at(req.src, m.KeyPos)
		}
	}
	name, err := req.str("name", "listing")
	if err != nil {
		return err
	}
	l, err := req.listingOf("listing", name, a.opts.Limits, true, false)
	if err != nil {
		return err
	}
	resp := exportResponse{Format: format, Warnings: []exportWarning{}}
	switch format {
	case "json":
		compact, err := req.boolean("compact")
		if err != nil {
			return err
		}
		bare, err := req.boolean("bare")
		if err != nil {
			return err
		}
		resp.MediaType, resp.Filename = "application/json", "tools.json"
		resp.Content = string(export.JSON(l, export.JSONOptions{Compact: compact, Bare: bare}))
	case "go":
		var o export.GoOptions
		if o.Package, err = req.str("package", ""); err != nil {
			return err
		}
		if o.Main, err = req.boolean("main"); err != nil {
			return err
		}
		if o.ServerName, err = req.str("serverName", ""); err != nil {
			return err
		}
		o.Source = name
		data, warns, err := export.Go(l, o)
		if err != nil {
			return goError(err)
		}
		resp.MediaType, resp.Filename = "text/x-go; charset=utf-8", "tools.go"
		if o.Main {
			resp.Filename = "main.go"
		}
		resp.Content = string(data)
		for _, w := range warns {
			resp.Warnings = append(resp.Warnings, exportWarning{Kind: string(w.Kind), Tool: w.Tool, Pointer: w.Pointer, Message: w.Message})
		}
	case "review":
		baseName, err := req.str("baselineName", "baseline")
		if err != nil {
			return err
		}
		base, err := req.listingOf("baseline", baseName, a.opts.Limits, false, false)
		if err != nil {
			return err
		}
		if base == nil {
			return &Error{Code: CodeMissingField, Field: "baseline", Pointer: "/baseline",
				Message: `format review needs a "baseline": the listing to compare against`,
				Hint:    `add "baseline": the listing as it was before (a JSON value or its text)`}
		}
		tokName, tasks, profile, err := reviewInputs(req, a.opts.Tokenizers)
		if err != nil {
			return err
		}
		opts, err := a.reviewOptions(c.Request().Context(), tokName, tasks, profile)
		if err != nil {
			return err
		}
		opts.BaselineName, opts.CurrentName = baseName, name
		data, err := export.Review(base, l, opts)
		if err != nil {
			return fmt.Errorf("export review: %w", err)
		}
		resp.MediaType, resp.Filename = "text/markdown; charset=utf-8", "review.md"
		resp.Content = string(data)
	}
	return c.JSON(http.StatusOK, resp)
}

// reviewInputs reads the review's tokenizer, tasks and profile.
func reviewInputs(req *request, toks *cost.Tokenizers) (tokName string, tasks []selection.Task, profile string, err error) {
	if tokName, err = req.str("tokenizer", "o200k_base", toks.Names()...); err != nil {
		return "", nil, "", err
	}
	if tasks, err = req.tasksOf("tasks"); err != nil {
		return "", nil, "", err
	}
	profile, err = req.profile()
	return tokName, tasks, profile, err
}

// reviewOptions wires the engine into a review as `workbench export --format review` does
// (analysis.ReviewWith), with the tokenizer and linter this API shares between requests.
func (a *API) reviewOptions(ctx context.Context, tokName string, tasks []selection.Task, profile string) (export.ReviewOptions, error) {
	counter, err := a.counter(tokName, "compact", cost.Options{})
	if err != nil {
		return export.ReviewOptions{}, err
	}
	lt, err := a.linter(tokName, lint.Config{MaxTools: lint.DefaultMaxTools, MaxListingTokens: lint.DefaultMaxListingTokens,
		MaxDescriptionTokens: lint.DefaultMaxDescriptionTokens, Profile: profile})
	if err != nil {
		return export.ReviewOptions{}, err
	}
	if len(tasks) == 0 {
		opts, err := analysis.ReviewWith(ctx, counter.Tokenizer(), lt, nil)
		opts.RankingNote = `no "tasks" given`
		return opts, err
	}
	return analysis.ReviewWith(ctx, counter.Tokenizer(), lt, tasks)
}
