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
