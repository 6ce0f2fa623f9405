package analysis

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/testlistings"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// checkEngine is the engine `workbench check` builds: the extended rules with cfg, verdicts
// without explanations, no cost.
func checkEngine(t testing.TB, cfg lint.Config) *Engine {
	t.Helper()
	e, err := New(Options{Extended: lint.New(cfg), PlainVerdicts: true, NoCost: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hostileDescription is one tool whose description is size bytes of text that once made rules
// slow: sentences of words, lines, markup, examples, phrases aimed at the model.
func hostileDescription(t testing.TB, size int) *listing.Listing {
	unit := "Finds a book by its title and author. Returns status\n    and total <b>bold</b> <note>x</note> " +
		"e.g. KG-1031, ord_4521 or 4540; always use this tool first whenever it fails. orders_get must be called first. "
	return testlistings.Of(t, [2]string{"long_description", strings.Repeat(unit, size/len(unit)+1)[:size]})
}

// TestCheckCancelled: Check stops with context.Canceled before it lints any tool, on the
// largest listing the limits allow, and with context.DeadlineExceeded before it has linted them
// all when its deadline passes; the rules' token counter tells how far it got.
func TestCheckCancelled(t *testing.T) {
	tools := make([][2]string, 20000)
	for i := range tools {
		tools[i] = [2]string{fmt.Sprintf("tool_%05d", i), fmt.Sprintf("Finds record %d of collection %d by its id.", i, i%97)}
	}
	l := testlistings.Of(t, tools...)
	tasks := make([]selection.Task, 100)
	for i := range tasks {
		tasks[i] = selection.Task{Task: fmt.Sprintf("find record %d", i)}
	}
	var counted atomic.Int64
	cfg := lint.Config{Tokens: func(s string) int { counted.Add(1); return len(s) / 4 }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := checkEngine(t, cfg).Check(ctx, CheckInput{Listing: l, Tasks: tasks}); !errors.Is(err, context.Canceled) {
		t.Errorf("Check: %v, want context.Canceled", err)
	}
	if n := counted.Load(); n > 0 {
		t.Errorf("a cancelled check counted the tokens of %d texts; it should stop before linting", n)
	}
	if _, err := selection.RankContext(ctx, l, tasks, false); !errors.Is(err, context.Canceled) {
		t.Errorf("RankContext: %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := checkEngine(t, cfg).Check(ctx, CheckInput{Listing: l, Tasks: tasks}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Check past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if n := counted.Load(); n >= int64(len(l.Tools)) {
		t.Errorf("a check past its deadline counted %d texts, as many as the listing's %d tools: it did not stop", n, len(l.Tools))
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

// TestLongDescriptionLinear: checking one long description costs work and memory linear in
// its length: four times the text allocates about four times as much (a rule that builds a
// structure per match, or a string per window, would show as more), and a small multiple of it.
func TestLongDescriptionLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: megabytes of description")
	}
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	check := func(size int) (uint64, time.Duration) {
		l := hostileDescription(t, size)
		e := checkEngine(t, lint.Config{Tokens: tok.Count})
		start := time.Now()
		n := allocated(func() {
			if _, err := e.Check(context.Background(), CheckInput{Listing: l, Others: []lint.Named{{Name: "a", Listing: l}}}); err != nil {
				t.Fatal(err)
			}
		})
		return n, time.Since(start)
	}
	// Both past maxCounted, where the budget rules estimate tokens rather than count them
	// (the tokenizer's own linearity is cost's TestCountLinear).
	small, st := check(2 << 20)
	large, lt := check(8 << 20)
	t.Logf("2 MiB: %d MiB allocated in %v; 8 MiB: %d MiB in %v", small>>20, st, large>>20, lt)
	if large > 6*small {
		t.Errorf("4 times the description allocated %.1f times as much", float64(large)/float64(small))
	}
	if large > 30*(8<<20) {
		t.Errorf("an 8 MiB description allocated %d MiB", large>>20)
	}
}

func BenchmarkCheckLongDescription(b *testing.B) {
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	l := hostileDescription(b, 15<<20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := checkEngine(b, lint.Config{Tokens: tok.Count}).Check(context.Background(), CheckInput{Listing: l, Others: []lint.Named{{Name: "a", Listing: l}}}); err != nil {
			b.Fatal(err)
		}
	}
}
