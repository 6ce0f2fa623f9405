package reference

import (
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkLint runs the reference checks on the GitHub server's 117 tools.
func BenchmarkLint(b *testing.B) {
	src := testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Lint(l)
	}
}
