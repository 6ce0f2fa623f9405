package listing

import (
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
)

func githubListing(b *testing.B) []byte {
	return testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")
}

// BenchmarkParse parses the GitHub server's 117 tools (209 kB).
func BenchmarkParse(b *testing.B) {
	src := githubListing(b)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	l, err := Parse(githubListing(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l.Marshal("  ")
	}
}
