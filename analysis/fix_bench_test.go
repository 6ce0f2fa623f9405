package analysis

import (
	"context"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// BenchmarkFixGitHub fixes the GitHub listing (117 tools) with a fresh engine each time, as
// `workbench fix` does: safe repairs only, and suggested ones too.
//
//	go test ./analysis -run '^$' -bench BenchmarkFixGitHub -benchtime 20x
func BenchmarkFixGitHub(b *testing.B) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	for _, c := range []struct {
		name string
		opt  FixOptions
	}{{"safe", FixOptions{}}, {"suggested", FixOptions{Suggested: true}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fixEngine(b).Fix(context.Background(), mustParse(b, src), nil, c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFixGen2000 fixes the benchmark generator's 2,000 tools with 200 tasks, suggested
// repairs too, with a fresh engine each time.
//
//	go test ./analysis -run '^$' -bench BenchmarkFixGen2000 -benchtime 3x
func BenchmarkFixGen2000(b *testing.B) {
	src, tasks, ok := genFixListing(b, 2000, 200)
	if !ok {
		b.Skip("skipped: the generated listing needs python3")
	}
	for b.Loop() {
		res, err := fixEngine(b).Fix(context.Background(), mustParse(b, src), parseTasks(b, tasks), FixOptions{Suggested: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Applied)), "repairs")
	}
}
