package export

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func addSeeds(f *testing.F) {
	for _, s := range []string{
		`[{"name":"a","inputSchema":{"type":"object"}}]`,
		`{"tools":[{"name":"x.y-z","description":"back` + "`" + `quote */ \u202e","inputSchema":{"type":"object","$defs":{}},"annotations":{"readOnlyHint":null}}]}`,
		`[{"name":"","inputSchema":{"type":"object"},"icons":[{"src":""}],"_meta":{}}]`,
	} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "awkward-tools.json")); err == nil {
		f.Add(b)
	}
}

// FuzzGo: for any listing, Go either refuses it with an error or writes Go that parses, with one
// registration and one handler per tool.
func FuzzGo(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := listing.Parse(src, listing.Options{})
		if err != nil {
			return
		}
		code, _, err := Go(l, GoOptions{Main: true, Source: string(src[:min(len(src), 40)])})
		if err != nil {
			if strings.Contains(err.Error(), "workbench bug") {
				t.Fatal(err)
			}
			return
		}
		file, err := parser.ParseFile(token.NewFileSet(), "gen.go", code, parser.ParseComments)
		if err != nil {
			t.Fatalf("generated code does not parse: %v", err)
		}
		if n := strings.Count(string(code), "\ts.AddTool(&mcp.Tool{"); n != len(l.Tools) {
			t.Fatalf("%d registrations for %d tools", n, len(l.Tools))
		}
		handlers := 0
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "handle") {
				handlers++
			}
		}
		if handlers != len(l.Tools) {
			t.Fatalf("%d handlers for %d tools", handlers, len(l.Tools))
		}
	})
}

// FuzzReview: any two listings give a report, and the listings' text never adds a heading.
func FuzzReview(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := listing.Parse(src, listing.Options{})
		if err != nil {
			return
		}
		base := &listing.Listing{}
		if len(l.Tools) > 1 {
			base = l.Clone()
			base.Tools = base.Tools[1:]
		}
		md, err := Review(base, l, ReviewOptions{Analyze: fakeEngine("")})
		if err != nil {
			t.Fatal(err)
		}
		fence := ""
		for _, line := range strings.Split(string(md), "\n") {
			switch {
			case fence == "" && strings.HasPrefix(line, "```"):
				fence = strings.TrimSuffix(line, "text")
			case fence != "" && line == fence:
				fence = ""
			case fence == "" && strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# Review of") &&
				!strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "### `"):
				t.Fatalf("a heading from the listing's text: %q", line)
			}
		}
		if fence != "" {
			t.Fatalf("fence %q left open", fence)
		}
	})
}

// FuzzWordDiff: the edits rebuild both texts.
func FuzzWordDiff(f *testing.F) {
	f.Add("Return one ticket.", "Show one ticket.")
	f.Add("a b  c\n", "a\tb c")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		var ga, gb strings.Builder
		for _, e := range WordDiff(a, b) {
			if e.Text == "" {
				t.Fatal("an empty edit")
			}
			if e.Op != '+' {
				ga.WriteString(e.Text)
			}
			if e.Op != '-' {
				gb.WriteString(e.Text)
			}
		}
		if ga.String() != a || gb.String() != b {
			t.Fatalf("edits rebuild %q and %q, want %q and %q", ga.String(), gb.String(), a, b)
		}
	})
}
