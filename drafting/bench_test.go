package drafting_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/runner"
)

// github reads the GitHub MCP server's listing in place, with a task per tool made of its
// description's first words: the size a reviewer brings.
func github(b *testing.B) (*listing.Listing, []selection.Task) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	l, err := listing.Parse(src, listing.Options{Name: "github-mcp-server.json"})
	if err != nil {
		b.Fatal(err)
	}
	var tasks []selection.Task
	for i, n := range l.Names() {
		name := n
		desc := l.Tools[i].Get("description")
		if desc == nil {
			continue
		}
		w := strings.Fields(desc.Str)
		tasks = append(tasks, selection.Task{Task: strings.Join(w[:min(len(w), 8)], " "), Expect: &name})
	}
	return l, tasks
}

// BenchmarkSuggest is one press of Suggest on the GitHub listing: the brief (findings,
// neighbours by the ranker), one call to the in-process model for three rewrites, and the
// current text and each candidate scored (findings, tokens, the ranker on every task).
func BenchmarkSuggest(b *testing.B) {
	l, tasks := github(b)
	eng := engine(b)
	c, err := fakemodel.NewClient(&fakemodel.Server{}, runner.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("github-%d-tools-%d-tasks", len(l.Tools), len(tasks)), func(b *testing.B) {
		for b.Loop() {
			s, err := drafting.Suggest(context.Background(), drafting.Caller{Model: c}, eng,
				drafting.SuggestRequest{Listing: l, Tool: 7, Tasks: tasks, K: 3})
			if err != nil || len(s.Candidates) == 0 {
				b.Fatalf("%v %+v", err, s)
			}
		}
	})
}

// BenchmarkRubricOffline scores every tool of the GitHub listing from its findings.
func BenchmarkRubricOffline(b *testing.B) {
	l, _ := github(b)
	eng := engine(b)
	for b.Loop() {
		if _, err := drafting.ScoreRubric(context.Background(), drafting.Caller{}, eng, l, nil); err != nil {
			b.Fatal(err)
		}
	}
}
