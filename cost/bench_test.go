package cost

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkTokenizeGitHub tokenizes the GitHub listing's file with o200k_base and reports
// tokens per second; tools/tokref/bench.mjs runs it and js-tiktoken on the same text.
func BenchmarkTokenizeGitHub(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(testutil.Shared(b, "listings", "real"), "github-mcp-server.json"))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	text := string(src)
	n := tok.Count(text)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if tok.Count(text) != n {
			b.Fatal("count changed")
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(n), "tokens")
}

// BenchmarkRecostAfterEdit re-costs the 117-tool GitHub listing after a one-tool edit: each
// iteration edits one description to a text never seen before, so that tool is rendered and
// tokenized again while the other 116 come from the cache.
func BenchmarkRecostAfterEdit(b *testing.B) {
	l := githubListing(b)
	for _, render := range RenderingNames() {
		b.Run(render, func(b *testing.B) {
			c := counter(b, "o200k_base", render, Options{})
			c.Listing(l)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				edited, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/40/description",
					Value: listing.NewString(fmt.Sprintf("List the pull requests of a repository, edit %d.", i))})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep := c.Listing(edited)
				if len(rep.Tools) != len(l.Tools) {
					b.Fatal("tools lost")
				}
			}
		})
	}
}

// BenchmarkCostColdGitHub counts the whole GitHub listing with an empty cache.
func BenchmarkCostColdGitHub(b *testing.B) {
	l := githubListing(b)
	for i := 0; i < b.N; i++ {
		c := counter(b, "o200k_base", "compact", Options{})
		c.Listing(l)
	}
}

// BenchmarkWholeTextGitHub counts the GitHub listing's compact rendering as one text at once:
// what each keystroke would cost if the exact total were counted naively.
func BenchmarkWholeTextGitHub(b *testing.B) {
	l := githubListing(b)
	c := counter(b, "o200k_base", "compact", Options{})
	text, _, _ := wholeText(c, l)
	for i := 0; i < b.N; i++ {
		c.tok.Count(text)
	}
}
