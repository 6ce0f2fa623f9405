package selection

import (
	"context"
	"fmt"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// benchOverlap maps l's overlap with the verdicts of tasks: afresh each time, or (edit) after
// changing one description, the re-ranking included (what the browser does on a keystroke).
func benchOverlap(b *testing.B, l *listing.Listing, tasks []Task, edit bool) {
	oc := NewOverlapCache(nil)
	mustMap(b, oc, l, tasks)
	i := 0
	for b.Loop() {
		if !edit {
			if _, err := Overlap(context.Background(), l, tasks); err != nil {
				b.Fatal(err)
			}
			continue
		}
		i++
		mustMap(b, oc, overlapSetDesc(b, l, 3, fmt.Sprintf("Edit number %d of a description about issues.", i)), tasks)
	}
	if edit {
		b.ReportMetric(float64(oc.Reused), "reused-rows")
	}
}

// BenchmarkOverlapGitHub maps the GitHub listing (117 tools) with 200 tasks, from nothing.
func BenchmarkOverlapGitHub(b *testing.B) { l, ts := githubTasks(b); benchOverlap(b, l, ts, false) }

// BenchmarkOverlapGitHubAfterEdit maps it again after a one-description edit.
func BenchmarkOverlapGitHubAfterEdit(b *testing.B) {
	l, ts := githubTasks(b)
	benchOverlap(b, l, ts, true)
}

// BenchmarkOverlapGen2000 maps the benchmark generator's 2,000 tools with 200 tasks.
func BenchmarkOverlapGen2000(b *testing.B) {
	l, ts := overlapGen(b, 2000, 200)
	benchOverlap(b, l, ts, false)
}

// BenchmarkOverlapGen2000AfterEdit maps them again after a one-description edit.
func BenchmarkOverlapGen2000AfterEdit(b *testing.B) {
	l, ts := overlapGen(b, 2000, 200)
	benchOverlap(b, l, ts, true)
}
