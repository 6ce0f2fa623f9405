package reference

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkLint runs the reference checks on the GitHub server's 117 tools.
func BenchmarkLint(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "listings", "real", "github-mcp-server.json"))
	if err != nil {
		b.Skipf("the GitHub listing in ../shared is not here: %v", err)
	}
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Lint(l)
	}
}
