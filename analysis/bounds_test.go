package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testlistings"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func hostileFile(t testing.TB, name string) *listing.Listing {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func findingBytes(r *Result) (total, longest int) {
	for _, f := range r.AllFindings() {
		n := len(f.Rule) + len(f.Tool) + len(f.Pointer) + len(f.Message)
		total += n
		longest = max(longest, len(f.Message))
	}
	return total, longest
}

// TestAnalyzeNearDuplicatesBounded: what the browser shows for thousands of near-identical tools
// grows with the tools, not with their pairs: the near-duplicate finding reports groups. Below
// maxNDTools the incremental count gives the same grouped line as the search, edit after edit.
func TestAnalyzeNearDuplicatesBounded(t *testing.T) {
	tests := []struct {
		name  string
		l     *listing.Listing
		group string
	}{
		{"300 tools, counted incrementally", testlistings.NearIdentical(t, 300, ""), "(300 tools, 44850 pairs, 86% of their words shared)"},
		{"3,000 tools, searched", testlistings.NearIdentical(t, 3000, ""), "(3000 tools, 4498500 pairs, 86% of their words shared)"},
		{"5 families of 30", hostileFile(t, "neardup-groups.json"), "in 5 groups: family0_tool_00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(Options{Extended: lint.New(lint.Config{})})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r, err := e.AnalyzeContext(context.Background(), tt.l, nil)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			total, longest := findingBytes(r)
			var nd Finding
			for _, f := range r.Listing {
				if f.Rule == "near-duplicate" {
					nd = f
				}
			}
			if !strings.Contains(nd.Message, "too many to list one by one") || !strings.Contains(nd.Message, tt.group) {
				t.Errorf("near-duplicate finding: %.500s", nd.Message)
			}
			if longest > 8<<10 || total > 2<<10*len(tt.l.Tools)+1<<20 {
				t.Errorf("findings of %d bytes, the longest %d, for %d tools", total, longest, len(tt.l.Tools))
			}
			t.Logf("%d tools: %d findings' bytes (longest message %d) in %v", len(tt.l.Tools), total, longest, took)
			// An edit: the incremental count agrees with the search.
			edited, err := tt.l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/1/description", Value: listing.NewString("Something else entirely, nothing alike.")})
			if err != nil {
				t.Fatal(err)
			}
			r, err = e.AnalyzeContext(context.Background(), edited, nil)
			if err != nil {
				t.Fatal(err)
			}
			descs := make([][]string, len(edited.Tools))
			for i, tool := range edited.Tools {
				descs[i] = reference.DescriptionWords(tool)
			}
			want := reference.NearDuplicates(edited.Names(), descs)
			for _, f := range r.Listing {
				if f.Rule == "near-duplicate" && f.Message != want.Detail {
					t.Errorf("after an edit:\n got %.300s\nwant %.300s", f.Message, want.Detail)
				}
			}
		})
	}
}

// TestAnalyzeCancelled: an engine given a cancelled context stops with context.Canceled before
// it lints any tool, on the largest listing the limits allow, with tasks to rank; one whose
// deadline passes mid-way stops with context.DeadlineExceeded before it has linted them all.
// The rules' token counter tells how far each got (no clock is read).
func TestAnalyzeCancelled(t *testing.T) {
	l := testlistings.Distinct(t, 20000, "")
	tasks := make([]selection.Task, 200)
	for i := range tasks {
		tasks[i] = selection.Task{Task: fmt.Sprintf("find record %d", i)}
	}
	var counted atomic.Int64
	e, err := New(Options{Extended: lint.New(lint.Config{Tokens: func(s string) int {
		counted.Add(1)
		return len(s) / 4
	}})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.AnalyzeContext(ctx, l, tasks); !errors.Is(err, context.Canceled) {
		t.Errorf("AnalyzeContext: %v, want context.Canceled", err)
	}
	if n := counted.Load(); n > 0 {
		t.Errorf("a cancelled analysis counted the tokens of %d texts; it should stop before linting", n)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	big := testlistings.NearIdentical(t, 19999, "deadline")
	if _, err := e.AnalyzeContext(ctx, big, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AnalyzeContext past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if n := counted.Load(); n >= int64(len(big.Tools)) {
		t.Errorf("an analysis past its deadline counted %d texts, as many as the listing's %d tools: it did not stop", n, len(big.Tools))
	}
	// The counter does count: an analysis left to finish counts a text of every tool.
	before := counted.Load()
	small := testlistings.Distinct(t, 50, "")
	if _, err := e.AnalyzeContext(context.Background(), small, nil); err != nil {
		t.Fatal(err)
	}
	if n := counted.Load() - before; n < int64(len(small.Tools)) {
		t.Errorf("a finished analysis of %d tools counted %d texts; the test above proves nothing", len(small.Tools), n)
	}
}

// TestEngineCacheBytesBounded: an engine that sees many distinct large listings keeps its
// caches within their byte bounds.
func TestEngineCacheBytesBounded(t *testing.T) {
	const budget = 2 << 20
	e, err := New(Options{CacheBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	tasks := []selection.Task{{Task: "look up an order"}}
	for i := range 8 {
		l := testlistings.NearIdentical(t, 200, fmt.Sprintf(" salt%d %s", i, strings.Repeat(fmt.Sprintf("w%dx ", i), 150)))
		if _, err := e.AnalyzeContext(context.Background(), l, tasks); err != nil {
			t.Fatal(err)
		}
		// The engine's budget, and the near-duplicate and name states' own bounds.
		if got, bound := e.CacheBytes(), int64(budget+maxNDBytes+maxNDBytes); got > bound {
			t.Fatalf("after %d listings the caches hold %d bytes, over %d", i+1, got, bound)
		}
		if e.budget.Used() > budget {
			t.Fatalf("after %d listings the budget holds %d bytes, over %d", i+1, e.budget.Used(), budget)
		}
	}
	if e.budget.Used() < budget/2 {
		t.Errorf("the budget holds %d bytes: the listings did not fill it, so nothing was evicted", e.budget.Used())
	}
	t.Logf("caches: %d bytes in the budget, %d in all", e.budget.Used(), e.CacheBytes())
}

func BenchmarkAnalyzeNearDuplicates(b *testing.B) {
	for _, n := range []int{3000, 19999} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			l := testlistings.NearIdentical(b, n, "")
			e, err := New(Options{Extended: lint.New(lint.Config{})})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				// Every run sees new tools (the near-duplicate search is the point).
				e.byPtr.Clear()
				e.byHash.Clear()
				if _, err := e.AnalyzeContext(context.Background(), l, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
