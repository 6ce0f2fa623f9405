package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/export"
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
			if (opts.Rank != nil) != tt.wantRank || opts.Findings == nil || opts.Tokens == nil {
				t.Fatalf("engines wired: rank %v findings %v tokens %v", opts.Rank != nil, opts.Findings != nil, opts.Tokens != nil)
			}
			fs, err := opts.Findings(before)
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(fs, "books_find", "description") {
				t.Errorf("a one-word description is not a finding: %+v", fs)
			}
			if n := opts.Tokens(after.Tools[0]); n <= opts.Tokens(before.Tools[0]) {
				t.Errorf("the longer description counts %d tokens, not more", n)
			}
			md, err := export.Review(before, after, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(md), "Tasks picked right"); got != tt.wantRank {
				t.Errorf("ranking in the report = %v, want %v", got, tt.wantRank)
			}
		})
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
