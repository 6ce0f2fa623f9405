package listing

import (
	"os"
	"path/filepath"
	"testing"
)

func githubListing(b *testing.B) []byte {
	src, err := os.ReadFile(filepath.Join("..", "..", "shared", "listings", "real", "github-mcp-server.json"))
	if err != nil {
		b.Skipf("the GitHub listing in ../shared is not here: %v", err)
	}
	return src
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
