package lint

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/internal/testlistings"
)

// TestLintCancelled: LintContext stops with context.Canceled before it lints a tool, on the
// largest listing the limits allow (Check's own test is analysis.TestCheckCancelled); the token
// counter tells how far it got.
func TestLintCancelled(t *testing.T) {
	l := testlistings.Distinct(t, 20000, "")
	var counted atomic.Int64
	lr := New(Config{Tokens: func(s string) int { counted.Add(1); return len(s) / 4 }})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lr.LintContext(ctx, l); !errors.Is(err, context.Canceled) {
		t.Errorf("LintContext: %v, want context.Canceled", err)
	}
	if n := counted.Load(); n > 0 {
		t.Errorf("a cancelled lint counted the tokens of %d texts", n)
	}
	if _, err := lr.LintContext(context.Background(), testlistings.Distinct(t, 10, "")); err != nil || counted.Load() == 0 {
		t.Errorf("a lint left to finish counted no text (err %v): the check above proves nothing", err)
	}
}

// TestLinterCacheBytesBounded: a linter that checks many distinct large listings keeps its
// caches within its byte budget (the per-tool facts, schemas, hashes and line index), however
// many tools it has seen, and drops the least recently used first.
func TestLinterCacheBytesBounded(t *testing.T) {
	const budget = 512 << 10
	lt := New(Config{Cache: lru.NewBudget(budget)})
	for i := range 15 {
		l := testlistings.Distinct(t, 300, fmt.Sprintf(" Listing %d. %s", i, strings.Repeat("padding ", 50)))
		if _, err := lt.LintContext(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		if got := lt.CacheBytes(); got > budget {
			t.Fatalf("after %d listings the caches hold %d bytes, over the budget of %d", i+1, got, budget)
		}
	}
	if got := lt.CacheBytes(); got < budget/2 {
		t.Errorf("the caches hold %d bytes: the listings did not fill the budget", got)
	}
	// The latest listing's tools are the ones kept.
	l := testlistings.Distinct(t, 300, fmt.Sprintf(" Listing %d. %s", 14, strings.Repeat("padding ", 50)))
	computed := 0
	lt.onCompute = func() { computed++ }
	lt.Lint(l)
	if computed == len(l.Tools) {
		t.Errorf("the latest listing was computed again in full: the least recent entries were not the ones dropped")
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMergeLinear: merging many listings after a listing with a name of megabytes costs memory
// linear in the input: each name is folded once, and messages show long names cut short.
func TestMergeLinear(t *testing.T) {
	long := strings.Repeat("n", 4<<20)
	main := testlistings.Of(t, [2]string{long, "Finds a book by its title."})
	others := []Named{{Name: "main", Listing: main}}
	for i := range 64 {
		others = append(others, Named{Name: fmt.Sprintf("other-%d", i), Listing: testlistings.Of(t, [2]string{long, "The same name."}, [2]string{"get_book", "Gets a book."})})
	}
	var fs []Finding
	n := allocated(func() { fs = MergeCollisions(others...) })
	if len(fs) != 64+63 {
		t.Errorf("%d collisions, want %d", len(fs), 64+63)
	}
	for _, f := range fs {
		if len(f.Message) > 2*clipSize+200 {
			t.Fatalf("a message of %d bytes", len(f.Message))
		}
	}
	// The input is 65 names of 4 MiB; folding each once is 65 times 4 MiB at most.
	if n > 70*(4<<20) {
		t.Errorf("merging allocated %d MiB for 65 names of 4 MiB", n>>20)
	}
	t.Logf("merging 65 listings with a 4 MiB name: %d MiB allocated", n>>20)
}

// TestSiblingsBounded: thousands of tools that nothing tells apart (names made of generic words
// only, one description) are compared pairwise only up to siblingBudget: the check ends in
// bounded time, reports each tool at most once, and says that the budget ran out.
func TestSiblingsBounded(t *testing.T) {
	generic := strings.Fields("get fetch query run do execute data info information tool process handle search find list item thing stuff object result record manage")
	tools := make([][2]string, 0, 20000)
	for i := 0; len(tools) < 20000; i++ {
		var parts []string
		for k, w := range generic {
			if i>>k&1 == 1 {
				parts = append(parts, w)
			}
		}
		if len(parts) > 0 {
			tools = append(tools, [2]string{strings.Join(parts, "_"), "Look up one customer order by its identifier and return its status, items and total."})
		}
	}
	l := testlistings.Of(t, tools...)
	start := time.Now()
	fs, err := New(Config{}).LintContext(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	reported, budget := 0, false
	for _, f := range fs {
		if f.Rule != "description-sibling-unnamed" {
			continue
		}
		reported++
		if f.ToolIndex < 0 && strings.Contains(f.Message, "comparison budget ran out") {
			budget = true
		}
	}
	t.Logf("%d tools: %d sibling findings in %v", len(tools), reported, took)
	if !budget || reported == 0 || reported > len(tools)+1 {
		t.Errorf("%d sibling findings, budget note %v", reported, budget)
	}
}
