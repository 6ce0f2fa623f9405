package cost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// counting is a tokenizer that counts the texts it is asked about.
type counting struct {
	Tokenizer
	calls atomic.Int64
	texts sync.Map
}

func (c *counting) Count(s string) int {
	c.calls.Add(1)
	c.texts.Store(s, true)
	return c.Tokenizer.Count(s)
}

func githubListing(t testing.TB) *listing.Listing {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.Shared(t, "listings", "real"), "github-mcp-server.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: "github-mcp-server.json"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestEditRecountsOnlyTheEditedTool(t *testing.T) {
	l := githubListing(t)
	for _, render := range RenderingNames() {
		t.Run(render, func(t *testing.T) {
			tok, err := NewTokenizer("o200k_base")
			if err != nil {
				t.Fatal(err)
			}
			ct := &counting{Tokenizer: tok}
			c, err := NewCounter(ct, render, Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := c.Listing(l)
			edited, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/3/description", Value: listing.NewString("A new description, longer than before, to see it cost more.")})
			if err != nil {
				t.Fatal(err)
			}
			ct.calls.Store(0)
			ct.texts = sync.Map{}
			after := c.Listing(edited)
			// Every text tokenized must belong to the edited tool or to the frame.
			allowed := map[string]bool{}
			r := c.r.tool(&c.o, edited.Tools[3])
			f := c.r.frame(&c.o, edited)
			for _, s := range append(r.texts, f.texts...) {
				allowed[s] = true
			}
			for _, p := range r.parts {
				for _, s := range p.texts {
					allowed[s] = true
				}
			}
			// And the junctions at its ends, when the rendering is one text: short texts that
			// hold its head or its tail.
			e := c.Tool(edited.Tools[3]).edge
			junction := func(s string) bool {
				return e != nil && len(s) < 1024 && (strings.Contains(s, e.head) || e.cut && strings.Contains(s, e.tail))
			}
			ct.texts.Range(func(k, _ any) bool {
				if s := k.(string); !allowed[s] && !junction(s) {
					t.Errorf("re-counted a text that is not the edited tool's: %.60q", s)
				}
				return true
			})
			if ct.calls.Load() == 0 {
				t.Error("the edited tool was not counted again")
			}
			fresh := counter(t, "o200k_base", render, Options{}).Listing(edited)
			if after.Total != fresh.Total {
				t.Errorf("cached total %+v, counted afresh %+v", after.Total, fresh.Total)
			}
			if after.Tools[3].Tokens == before.Tools[3].Tokens {
				t.Errorf("edited tool still costs %d tokens", after.Tools[3].Tokens)
			}
			// A second count of the same listing tokenizes nothing but uncached frame texts.
			ct.calls.Store(0)
			c.Listing(edited)
			if n := ct.calls.Load(); n != 0 {
				t.Errorf("an unchanged listing tokenized %d texts", n)
			}
		})
	}
}

func TestCounterIsSafeForConcurrentUse(t *testing.T) {
	l := githubListing(t)
	c := counter(t, "cl100k_base", "compact", Options{CacheSize: 50})
	want := counter(t, "cl100k_base", "compact", Options{}).Listing(l).Total
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			cur := l
			for i := 0; i < 5; i++ {
				if g%2 == 0 {
					next, err := cur.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/0/description", Value: listing.NewString("edit " + string(rune('a'+g)) + string(rune('a'+i)))})
					if err != nil {
						t.Error(err)
						return
					}
					cur = next
					c.Listing(cur)
					continue
				}
				if got := c.Listing(l).Total; got != want {
					t.Errorf("concurrent total %+v, want %+v", got, want)
				}
			}
		}(g)
	}
	wg.Wait()
	if n := c.byHash.Len(); n > 50 {
		t.Errorf("cache holds %d tools, bound is 50", c.byHash.Len())
	}
}

func TestReportContextRankAndBaseline(t *testing.T) {
	c := counter(t, "o200k_base", "compact", Options{Ranked: 2})
	base := parse(t, `[{"name": "a", "description": "short"}, {"name": "b", "description": "a much longer description of what b does"}, {"name": "gone"}]`)
	cur := parse(t, `[{"name": "a", "description": "short"}, {"name": "b", "description": "shorter"}, {"name": "new", "description": "x"}]`)
	br := c.Listing(base)
	r := c.Listing(cur)
	r.SetContext(4096)
	if want := float64(r.Total.Tokens) / 4096; r.ContextShare != want || r.Tools[1].Share != float64(r.Tools[1].Tokens)/4096 {
		t.Errorf("shares %v, %v; want %v", r.ContextShare, r.Tools[1].Share, want)
	}
	if len(r.Cheapest) != 2 || len(r.Dearest) != 2 || r.Dearest[0].Tokens < r.Dearest[1].Tokens || r.Cheapest[0].Tokens > r.Cheapest[1].Tokens {
		t.Errorf("cheapest %+v, dearest %+v", r.Cheapest, r.Dearest)
	}
	if r.Dearest[0].Tokens < r.Cheapest[len(r.Cheapest)-1].Tokens {
		t.Errorf("dearest %+v cheaper than cheapest %+v", r.Dearest, r.Cheapest)
	}
	if err := r.Compare(br); err != nil {
		t.Fatal(err)
	}
	d := r.Baseline
	if d.Change.Tokens != r.Total.Tokens-br.Total.Tokens || d.Before != br.Total {
		t.Errorf("delta %+v; totals %+v -> %+v", d, br.Total, r.Total)
	}
	status := map[string]string{}
	for _, td := range d.Tools {
		status[td.Name] = td.Status
		if td.Change != sub(td.After, td.Before) {
			t.Errorf("%s: change %+v is not after %+v less before %+v", td.Name, td.Change, td.After, td.Before)
		}
	}
	want := map[string]string{"b": "changed", "new": "added", "gone": "removed"}
	if len(status) != len(want) {
		t.Errorf("delta tools %v, want %v", status, want)
	}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: %q, want %q", k, status[k], v)
		}
	}
	other := counter(t, "cl100k_base", "compact", Options{}).Listing(base)
	if err := r.Compare(other); err == nil {
		t.Error("comparing across tokenizers gave no error")
	}
	r.SetContext(0)
	if r.ContextShare != 0 || r.Tools[0].Share != 0 {
		t.Error("SetContext(0) left shares set")
	}
}

func TestPartsAddUp(t *testing.T) {
	l := parse(t, `[{"name": "t", "title": "T", "description": "Does t.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"], "description": "A."}}}, "annotations": {"readOnlyHint": true}, "outputSchema": {"type": "object"}}]`)
	for _, render := range RenderingNames() {
		rep := counter(t, "o200k_base", render, Options{}).Listing(l)
		tool := rep.Tools[0]
		var sum Measure
		names := map[string]bool{}
		for _, p := range tool.Parts {
			sum.Tokens += p.Tokens
			sum.Bytes += p.Bytes
			names[p.Name] = true
		}
		if sum != tool.Measure {
			t.Errorf("%s: parts add up to %+v, tool is %+v", render, sum, tool.Measure)
		}
		if !names[PartSchema] || !names[PartSyntax] {
			t.Errorf("%s: parts %v lack schema or syntax", render, names)
		}
		wantAnnotations := render == "wire" || render == "compact"
		if names[PartAnnotations] != wantAnnotations {
			t.Errorf("%s: annotations part present %v, want %v", render, names[PartAnnotations], wantAnnotations)
		}
	}
}

// TestGoldenReports keeps the full JSON report of the confusing fixture for each rendering, so
// that any change in rendering or counting shows as a diff. Regenerate with -update.
func TestGoldenReports(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testutil.Shared(t, "reference", "fixtures"), "confusing-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := listing.Parse(src, listing.Options{Name: "confusing-tools.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, render := range RenderingNames() {
		t.Run(render, func(t *testing.T) {
			rep := counter(t, "o200k_base", render, Options{}).Listing(l)
			rep.SetContext(4096)
			got, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", "golden", "confusing-tools."+render+".json")
			testutil.Golden(t, file, got)
		})
	}
}

func (c *counting) Cut(s string, i int) bool { return c.Tokenizer.(Cutter).Cut(s, i) }
