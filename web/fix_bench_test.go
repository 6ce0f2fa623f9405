package web

import (
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// BenchmarkPageRepairs measures what the Fix buttons add to every change's state: the repairs
// of the findings an analysis shows, laid into the findings panel's model, on GitHub's 117
// tools and on the generator's 2,000 (compare the analysis itself, which every change pays).
func BenchmarkPageRepairs(b *testing.B) {
	gen, _ := genListing(b, 2000, 0)
	for _, c := range []struct {
		name string
		src  []byte
	}{{"github", testutil.ReadShared(b, "listings", "real", "github-mcp-server.json")}, {"gen2000", gen}} {
		l, err := listing.Parse(c.src, listing.Options{Name: c.name})
		if err != nil {
			b.Fatal(err)
		}
		s := newServer(b)
		res, err := s.engine.AnalyzeContext(b.Context(), l, nil)
		if err != nil {
			b.Fatal(err)
		}
		f := findingsModel("ws", res, 0)
		b.Run(c.name+"/analysis", func(b *testing.B) {
			for b.Loop() {
				if _, err := s.engine.AnalyzeContext(b.Context(), l, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/repairs", func(b *testing.B) {
			var n int
			for b.Loop() {
				n = withFixes(f, pageRepairs(s.repairs, l, res)).Safe.N
			}
			b.ReportMetric(float64(n), "safe")
		})
	}
}
