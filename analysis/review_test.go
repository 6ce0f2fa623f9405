package analysis

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func TestReviewEngines(t *testing.T) {
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(src string) *listing.Listing {
		l, err := listing.Parse([]byte(src), listing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	before := parse(`[{"name": "books_find", "description": "Find.", "inputSchema": {"type": "object"}},
		{"name": "loans_renew", "description": "Renew.", "inputSchema": {"type": "object"}}]`)
	after := parse(`[{"name": "books_find", "description": "Find books in the catalog by title, author or subject words.", "inputSchema": {"type": "object"}},
		{"name": "loans_renew", "description": "Renew.", "inputSchema": {"type": "object"}}]`)
	tasks, err := selection.ParseTasks([]byte(`[{"task": "find a book by its title", "expect": "books_find"}]`), false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		tasks    []selection.Task
		wantRank bool
	}{
		{"no task file", nil, false},
		{"a task file", tasks, true},
		{"an empty task file", []selection.Task{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := ReviewEngines(context.Background(), tok, tt.tasks)
			if err != nil {
				t.Fatal(err)
			}
			if opts.Analyze == nil {
				t.Fatal("no engine wired")
			}
			ab, err := opts.Analyze(before)
			if err != nil {
				t.Fatal(err)
			}
			aa, err := opts.Analyze(after)
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(ab.Findings, "books_find", "description") {
				t.Errorf("a one-word description is not a finding: %+v", ab.Findings)
			}
			if aa.ToolTokens[0] <= ab.ToolTokens[0] {
				t.Errorf("the longer description counts %d tokens, not more than %d", aa.ToolTokens[0], ab.ToolTokens[0])
			}
			if (aa.Verdicts != nil) != tt.wantRank {
				t.Errorf("verdicts %v, want ranked %v", aa.Verdicts, tt.wantRank)
			}
			md, err := export.Review(before, after, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(md), "| Tasks clear |"); got != tt.wantRank {
				t.Errorf("ranking in the report = %v, want %v", got, tt.wantRank)
			}
		})
	}
}

// TestReviewAnalysisIsTheResult: the review's figures are the Result's, the ones the page shows:
// the cost total with its frame, the findings, the verdicts' statuses and counts, and a pick only
// where a tool scored.
func TestReviewAnalysisIsTheResult(t *testing.T) {
	e, err := New(Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse([]byte(`[{"name": "loans_renew", "description": "Renew a loan of a book for two more weeks.", "inputSchema": {"type": "object"}},
		{"name": "books_find", "description": "Find books in the catalog by title.", "inputSchema": {"type": "object"}}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := selection.ParseTasks([]byte(`[{"task": "renew my loan", "expect": "loans_renew"},
		{"task": "zebra xylophone", "expect": "loans_renew"}, {"task": "weather", "expect": null}]`), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.AnalyzeContext(context.Background(), l, tasks)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := e.ReviewOptions(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	a, err := opts.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tokens != res.Cost.Total.Tokens || res.Cost.Overhead.Tokens == 0 {
		t.Errorf("tokens %d, want the cost total %d with its frame of %d", a.Tokens, res.Cost.Total.Tokens, res.Cost.Overhead.Tokens)
	}
	if len(a.Findings) != res.Errors+res.Warnings+res.Infos {
		t.Errorf("%d findings, the page counts %d", len(a.Findings), res.Errors+res.Warnings+res.Infos)
	}
	if a.Clear != res.Clear || a.Ambiguous != res.Ambiguous || a.Wrong != res.Wrong {
		t.Errorf("counts %d/%d/%d, the page's %d/%d/%d", a.Clear, a.Ambiguous, a.Wrong, res.Clear, res.Ambiguous, res.Wrong)
	}
	want := []export.Verdict{{Task: "renew my loan", Expected: "loans_renew", Picked: "loans_renew", Status: "clear"},
		{Task: "zebra xylophone", Expected: "loans_renew", Status: "no-words"},
		{Task: "weather", Status: "none"}}
	if !slices.Equal(a.Verdicts, want) {
		t.Errorf("verdicts\n%+v, want\n%+v", a.Verdicts, want)
	}
	if !strings.Contains(opts.TokenUnit, "o200k_base") || !strings.Contains(opts.TokenUnit, "compact") {
		t.Errorf("the token unit %q names no tokenizer or rendering", opts.TokenUnit)
	}
}

func hasRule(fs []export.Finding, tool, rule string) bool {
	for _, f := range fs {
		if f.Tool == tool && f.Rule == rule {
			return true
		}
	}
	return false
}
