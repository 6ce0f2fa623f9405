package examples

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

type outcome struct {
	clear, ambiguous, wrong int
	warn, fail              int
}

func judge(t *testing.T, ex Example) outcome {
	t.Helper()
	l, err := listing.Parse(ex.Listing, listing.Options{Name: ex.ID})
	if err != nil {
		t.Fatalf("%s: %v", ex.ID, err)
	}
	tasks, err := selection.ParseTasks(ex.Tasks, false)
	if err != nil {
		t.Fatalf("%s tasks: %v", ex.ID, err)
	}
	var o outcome
	for _, v := range selection.Rank(l, tasks, false) {
		t.Logf("%s: %s", ex.ID, v.Line())
		switch v.Status {
		case selection.Clear, selection.NoneClear:
			o.clear++
		case selection.Close, selection.NoneRisk:
			o.ambiguous++
		default:
			o.wrong++
		}
	}
	for _, ln := range reference.Lint(l) {
		switch ln.Level {
		case reference.Warn:
			o.warn++
		case reference.Fail:
			o.fail++
		}
	}
	return o
}

// TestDraftsImprove checks what the examples teach: each draft picks more tasks clearly and
// draws fewer findings than the one before, and the last one gets every task right.
func TestDraftsImprove(t *testing.T) {
	var exs []Example
	for _, ex := range All() {
		if strings.HasPrefix(ex.ID, "library-") {
			exs = append(exs, ex)
		}
	}
	if len(exs) != 3 {
		t.Fatalf("want 3 drafts, have %d", len(exs))
	}
	var prev *outcome
	for _, ex := range exs {
		o := judge(t, ex)
		t.Logf("%s: %d clear, %d ambiguous, %d wrong; lint %d warn, %d fail", ex.ID, o.clear, o.ambiguous, o.wrong, o.warn, o.fail)
		if prev != nil {
			if o.clear <= prev.clear {
				t.Errorf("%s: %d clear tasks, not more than the previous draft's %d", ex.ID, o.clear, prev.clear)
			}
			if o.warn+o.fail >= prev.warn+prev.fail {
				t.Errorf("%s: %d findings, not fewer than the previous draft's %d", ex.ID, o.warn+o.fail, prev.warn+prev.fail)
			}
		}
		prev = &o
	}
	if prev.wrong != 0 || prev.ambiguous != 0 {
		t.Errorf("the clear draft still has %d ambiguous and %d wrong tasks", prev.ambiguous, prev.wrong)
	}
}

func TestGet(t *testing.T) {
	for _, ex := range All() {
		got, ok := Get(ex.ID)
		if !ok || got.Title != ex.Title {
			t.Errorf("Get(%q) = %v, %v", ex.ID, got.Title, ok)
		}
	}
	if _, ok := Get("no-such-example"); ok {
		t.Error("Get found an example that does not exist")
	}
}
