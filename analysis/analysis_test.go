package analysis

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

func githubListing(t *testing.T) *listing.Listing {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "shared", "listings", "real", "github-mcp-server.json"))
	if err != nil {
		t.Skipf("shared listings not found: %v", err)
	}
	l, err := listing.Parse(src, listing.Options{Name: "github"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// countingLinter counts how often each tool is linted, to prove the cache.
type countingLinter struct {
	ReferenceLinter
	calls map[string]int
}

func (c *countingLinter) Tool(t *listing.Value) []Finding {
	c.calls[t.Get("name").Str]++
	return c.ReferenceLinter.Tool(t)
}

func TestEditRelintsOnlyTheEditedTool(t *testing.T) {
	l := githubListing(t)
	cl := &countingLinter{calls: map[string]int{}}
	e, err := New(Options{Linter: cl})
	if err != nil {
		t.Fatal(err)
	}
	e.Analyze(l, nil)
	l2, err := l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/5/description", Value: listing.NewString("Short.")})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Analyze(l2, nil)
	name := l.Names()[5]
	for n, c := range cl.calls {
		want := 1
		if n == name {
			want = 2
		}
		if c != want {
			t.Errorf("%s linted %d times, want %d", n, c, want)
		}
	}
	if got := r.Tools[5].Findings; len(got) == 0 || got[len(got)-1].Pointer == "" {
		t.Errorf("edited tool findings: %+v", got)
	}
	// Undoing the edit hands back the old value: known by content, nothing is linted again.
	e.Analyze(l, nil)
	if cl.calls[name] != 2 {
		t.Errorf("the original tool was linted again after an undo")
	}
}

// TestReferenceFindingsMatchTheReference checks that splitting the reference's checks into
// per-tool and listing-wide parts loses and adds nothing.
func TestReferenceFindingsMatchTheReference(t *testing.T) {
	l := githubListing(t)
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, f := range e.Analyze(l, nil).AllFindings() {
		got = append(got, f.Rule+" "+f.Pointer+" "+f.Message)
	}
	for _, ln := range reference.Lint(l) {
		if ln.Level == reference.Warn || ln.Level == reference.Fail {
			want = append(want, ln.Rule+" "+ln.Ptr+" "+ln.Detail)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if len(got) != len(want) {
		t.Fatalf("%d findings, the reference has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("finding %d: %q, reference %q", i, got[i], want[i])
		}
	}
}
