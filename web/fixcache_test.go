package web

import (
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// TestRepairCacheBoundedByServerBudget: the Fix buttons' repairs are kept in the server's cache,
// within the bytes of its budget (Config.CacheBytes): a budget below what they take keeps some tools' repairs
// and drops the rest, the default keeps every tool's, and the buttons are the same either way.
func TestRepairCacheBoundedByServerBudget(t *testing.T) {
	src := testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")
	l, err := listing.Parse(src, listing.Options{Name: "github"})
	if err != nil {
		t.Fatal(err)
	}
	want := -1
	for _, tc := range []struct {
		name   string
		budget int64
		all    bool // every tool's repairs kept
	}{{"48KiB", 48 << 10, false}, {"default", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(c *Config) { c.CacheBytes = tc.budget })
			res, err := s.engine.AnalyzeContext(t.Context(), l, nil)
			if err != nil {
				t.Fatal(err)
			}
			withFindings := 0
			for _, tr := range res.Tools {
				if len(tr.Findings) > 0 && tr.Index >= 0 {
					withFindings++
				}
			}
			n := len(pageRepairs(s.repairs, l, res))
			if again := len(pageRepairs(s.repairs, l, res)); again != n {
				t.Errorf("repairs from the cache: %d, made: %d", again, n)
			}
			if want < 0 {
				want = n
			} else if n != want {
				t.Errorf("%d repairs, want %d as with the other budget", n, want)
			}
			b := s.repairs.Budget()
			if used := b.Used(); used > b.Max() || s.repairs.Bytes() == 0 {
				t.Errorf("repair cache holds %d bytes (budget %d used %d)", s.repairs.Bytes(), b.Max(), used)
			}
			if kept := s.repairs.Len(); (kept == withFindings) != tc.all || kept == 0 {
				t.Errorf("%d tools' repairs kept of %d with findings; want all kept: %v", kept, withFindings, tc.all)
			}
		})
	}
}
