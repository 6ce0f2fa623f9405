package export

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

func benchListing(b *testing.B, name string) *listing.Listing {
	return readListing(b, testutil.Shared(b, "listings", "real", name+".json"))
}

// BenchmarkGo generates the registration code of github-mcp-server's 117 tools.
func BenchmarkGo(b *testing.B) {
	l := benchListing(b, "github-mcp-server")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Go(l, GoOptions{Main: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSON exports github-mcp-server's listing, pretty.
func BenchmarkJSON(b *testing.B) {
	l := benchListing(b, "github-mcp-server")
	b.ReportAllocs()
	for b.Loop() {
		JSON(l, JSONOptions{})
	}
}

// BenchmarkReview reviews kubernetes-mcp-server's extra toolsets against its default listing.
func BenchmarkReview(b *testing.B) {
	base := benchListing(b, "kubernetes-mcp-server")
	cur := benchListing(b, "kubernetes-mcp-server-extra-toolsets")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Review(base, cur, ReviewOptions{Analyze: fakeEngine("")}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWordDiff diffs two 1000-word descriptions that differ in every tenth word.
func BenchmarkWordDiff(b *testing.B) {
	var x, y strings.Builder
	for i := range 1000 {
		x.WriteString("word ")
		if i%10 == 0 {
			y.WriteString("other ")
		} else {
			y.WriteString("word ")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		WordDiff(x.String(), y.String())
	}
}
