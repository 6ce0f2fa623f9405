package analysis

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tool-workbench/workbench/internal/testlistings"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

func githubListing(t *testing.T) *listing.Listing {
	t.Helper()
	src := testutil.ReadShared(t, "listings", "real", "github-mcp-server.json")
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
// per-tool and listing-wide parts, with the per-tool parts and description words cached, loses
// and adds nothing: on every real listing and fixture, and after edits that make two
// descriptions near-duplicates, rename a tool to a duplicate name and undo.
func TestReferenceFindingsMatchTheReference(t *testing.T) {
	shared, _ := testutil.SharedPath(t)
	files, _ := filepath.Glob(filepath.Join(shared, "listings", "real", "*.json"))
	fixtures, _ := filepath.Glob(filepath.Join(shared, "reference", "fixtures", "*-tools.json"))
	files = append(files, fixtures...)
	if len(files) == 0 {
		t.Skipf("skipped: this test needs the real listings (listings/real/*.json) or the seed fixtures (reference/fixtures/*-tools.json) under %s, which are not here", shared)
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			l, err := listing.Parse(src, listing.Options{Name: filepath.Base(file)})
			if err != nil {
				t.Fatal(err)
			}
			if reference.Validate(l, true) != nil {
				t.Skip("the reference cannot read this listing")
			}
			steps := []*listing.Listing{l}
			if len(l.Tools) >= 2 {
				d0 := l.Tools[0].Get("description").String()
				edits := []listing.Op{
					{Kind: listing.OpSet, Path: "/tools/1/description", Value: listing.NewString(d0 + " also")},
					{Kind: listing.OpSet, Path: "/tools/1/name", Value: l.Tools[0].Get("name")},
				}
				cur := l
				for _, op := range edits {
					if cur, err = cur.Apply(op); err != nil {
						t.Fatal(err)
					}
					steps = append(steps, cur)
				}
				steps = append(steps, l)
			}
			for n, s := range steps {
				var got, want []string
				for _, f := range e.Analyze(s, nil).AllFindings() {
					got = append(got, f.Rule+" "+f.Pointer+" "+f.Message)
				}
				for _, ln := range reference.Lint(s) {
					if ln.Level == reference.Warn || ln.Level == reference.Fail {
						want = append(want, ln.Rule+" "+refPointer(ln)+" "+ln.Detail)
					}
				}
				sort.Strings(got)
				sort.Strings(want)
				if len(got) != len(want) {
					t.Fatalf("step %d: %d findings, the reference has %d", n, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("step %d, finding %d: %q, reference %q", n, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// TestCountsMatchFindings: the result's counts tally exactly the findings it lists, per tool and
// in all, with the extended rules' listing-wide findings (here listing-too-many-tools, over a
// MaxTools of 2) counted once.
func TestCountsMatchFindings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		listing func(t *testing.T) *listing.Listing
	}{
		{"more tools than MaxTools", func(t *testing.T) *listing.Listing {
			return testlistings.Of(t, [2]string{"books_get", "Gets one book."}, [2]string{"books_find", "Finds books."}, [2]string{"books_add", "Adds a book."})
		}},
		{"the github listing", githubListing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(Options{Extended: lint.New(lint.Config{MaxTools: 2})})
			if err != nil {
				t.Fatal(err)
			}
			r := e.Analyze(tc.listing(t), nil)
			var errs, warns, infos int
			for _, f := range r.AllFindings() {
				tally(f.Severity, &errs, &warns, &infos)
			}
			if r.Errors != errs || r.Warnings != warns || r.Infos != infos {
				t.Errorf("counts %d error, %d warning, %d info; the findings listed are %d, %d, %d",
					r.Errors, r.Warnings, r.Infos, errs, warns, infos)
			}
			for _, tr := range r.Tools {
				errs, warns, infos = 0, 0, 0
				for _, f := range tr.Findings {
					tally(f.Severity, &errs, &warns, &infos)
				}
				if tr.Errors != errs || tr.Warnings != warns || tr.Infos != infos {
					t.Errorf("tool %s counts %d, %d, %d; its findings are %d, %d, %d", tr.Name, tr.Errors, tr.Warnings, tr.Infos, errs, warns, infos)
				}
			}
		})
	}
}

// refPointer is where the engine points a reference line: its own pointer, else the next cursor
// (pagination) or the tools array (the listing-wide lines).
func refPointer(ln reference.Line) string {
	switch {
	case ln.Ptr != "":
		return ln.Ptr
	case ln.Rule == "list-complete":
		return "/nextCursor"
	}
	return "/tools"
}

// TestToolCostsAddUpToTotal: the tools' costs the engine reports (the tool rows, the review)
// are the report's, boundary tokens included, so they and the frame add up to the total, which
// is the rendering counted as one text.
func TestToolCostsAddUpToTotal(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := githubListing(t)
	r := e.Analyze(l, nil)
	sum := r.Cost.Overhead.Tokens
	for i, tr := range r.Tools {
		sum += tr.Cost.Tokens
		if tr.Cost.Tokens != r.Cost.Tools[i].Tokens || tr.Cost.Name != tr.Name {
			t.Errorf("tool %d (%s): %d tokens, the report says %d", i, tr.Name, tr.Cost.Tokens, r.Cost.Tools[i].Tokens)
		}
	}
	if sum != r.Cost.Total.Tokens || r.Cost.Total.Tokens != 35274 {
		t.Errorf("tools and frame add up to %d, the total is %d (the compact text counts 35274)", sum, r.Cost.Total.Tokens)
	}
}
