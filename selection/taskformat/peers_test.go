package taskformat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// peerExamples are files we wrote in our own words from each format's documented example.
var peerExamples = []struct {
	format, file string
	// statuses are the ranker's verdicts on the file's tasks against the library listing.
	statuses []selection.Status
}{
	{MCPChecker, "mcpchecker/library.yaml", []selection.Status{selection.Clear, selection.Clear, selection.NoneClear}},
	{MCPTest, "mcptest/library.yaml", []selection.Status{selection.Clear, selection.Clear}},
	// The second case expects two calls; its task keeps the first, loans_list, which the
	// request's closing words ("pay the fines") lose to fines_pay.
	{MCPTef, "mcptef/library.json", []selection.Status{selection.Clear, selection.Wrong, selection.NoneClear}},
	{MCPTef, "mcptef/single-v003.json", []selection.Status{selection.Clear}},
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lossLines(title string, ls []Loss) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n", title, len(ls))
	for _, l := range ls {
		b.WriteString("  " + l.String() + "\n")
	}
	return b.String()
}

func casesJSON(t *testing.T, cs []Case) string {
	t.Helper()
	b, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPeerExamples reads each example, writes it as a workbench task file and back in its own
// format (golden files), lists every loss (golden), and reads its own output back to the same
// cases.
func TestPeerExamples(t *testing.T) {
	for _, ex := range peerExamples {
		t.Run(ex.file, func(t *testing.T) {
			src := readTestdata(t, ex.file)
			f, err := Lookup(ex.format)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := DetectFormat(src); err != nil || d.Name() != ex.format {
				t.Fatalf("DetectFormat = %v, %v; want %s", d, err, ex.format)
			}
			cases, readLoss, err := f.Read(src)
			if err != nil {
				t.Fatal(err)
			}
			wb, wbLoss, err := registry[Workbench].Write(cases)
			if err != nil {
				t.Fatal(err)
			}
			self, selfLoss, err := f.Write(cases)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Join("testdata", strings.TrimSuffix(ex.file, filepath.Ext(ex.file)))
			testutil.Golden(t, base+".workbench.golden.json", wb)
			testutil.Golden(t, base+".out.golden"+filepath.Ext(ex.file), self)
			testutil.Golden(t, base+".losses.golden.txt", []byte(lossLines("read", readLoss)+
				lossLines("written as a workbench task file", wbLoss)+lossLines("written back as "+ex.format, selfLoss)))
			again, _, err := f.Read(self)
			if err != nil {
				t.Fatalf("reading what Write wrote: %v\n%s", err, self)
			}
			if got, want := casesJSON(t, again), casesJSON(t, cases); got != want {
				t.Errorf("the written file reads back as\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// carried says which parts of a case a format keeps besides the query and the first expected
// tool (or none).
var carried = map[string]struct{ id, args, tags bool }{
	MCPChecker: {id: true, tags: true},
	MCPTest:    {},
	MCPTef:     {id: true, args: true},
}

// TestPeerThroughWorkbench imports each example as the workbench's tasks, ranks them against a
// small listing, and exports the tasks back to the format: what both carry comes back.
func TestPeerThroughWorkbench(t *testing.T) {
	l, err := listing.Parse(readTestdata(t, "library-listing.json"), listing.Options{Name: "library-listing.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range peerExamples {
		t.Run(ex.file, func(t *testing.T) {
			f := registry[ex.format]
			cases, _, err := f.Read(readTestdata(t, ex.file))
			if err != nil {
				t.Fatal(err)
			}
			wb, _, err := registry[Workbench].Write(cases)
			if err != nil {
				t.Fatal(err)
			}
			tasks, err := selection.ParseTasks(wb, false)
			if err != nil {
				t.Fatalf("the converted tasks do not import: %v\n%s", err, wb)
			}
			var got []selection.Status
			for _, v := range selection.Rank(l, tasks, false) {
				got = append(got, v.Status)
			}
			if !slices.Equal(got, ex.statuses) {
				t.Errorf("verdicts %v, want %v", got, ex.statuses)
			}
			out, _, err := f.Write(FromTasks(tasks))
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := f.Read(out)
			if err != nil {
				t.Fatalf("reading the export: %v\n%s", err, out)
			}
			comparePeerCases(t, ex.format, cases, back)
		})
	}
}

// comparePeerCases checks that back holds what both the format and a task carry of cases.
func comparePeerCases(t *testing.T, format string, cases, back []Case) {
	t.Helper()
	keep := carried[format]
	if len(back) != len(cases) {
		t.Fatalf("%d cases came back, want %d", len(back), len(cases))
	}
	for i, c := range cases {
		b := back[i]
		if b.Query != c.Query || b.None != c.None || !c.None && b.Expect[0].Tool != c.Expect[0].Tool {
			t.Errorf("case %d came back as %+v, want the query, expected tool or none of %+v", i+1, b, c)
		}
		if keep.id && caseLabel(b) != caseLabel(c) {
			t.Errorf("case %d came back named %q, want %q", i+1, caseLabel(b), caseLabel(c))
		}
		if keep.tags && !slices.Equal(b.Tags, c.Tags) {
			t.Errorf("case %d came back with tags %v, want %v", i+1, b.Tags, c.Tags)
		}
		if keep.args && !c.None {
			got, _ := json.Marshal(b.Expect[0].Args)
			want, _ := json.Marshal(c.Expect[0].Args)
			if string(got) != string(want) {
				t.Errorf("case %d came back with arguments %s, want %s", i+1, got, want)
			}
		}
	}
}

// TestPeerDetectNarrow: each of these formats claims its own examples only, and none claims
// the workbench's task file or another peer's shape.
func TestPeerDetectNarrow(t *testing.T) {
	others := map[string][]byte{
		"workbench":      []byte(`[{"task": "Renew my loan", "expect": "loans_renew"}]`),
		"empty array":    []byte(`[]`),
		"listing":        readTestdata(t, "library-listing.json"),
		"camelCase json": []byte(`[{"query": "Renew my loan", "expectedToolCalls": [{"toolName": "loans_renew"}]}]`),
		"yaml tests":     []byte("tests:\n  - vars:\n      query: Renew my loan\n"),
		"k8s object":     []byte("kind: Pod\napiVersion: v1\nmetadata:\n  name: web\n"),
	}
	for _, name := range []string{MCPChecker, MCPTest, MCPTef} {
		for what, src := range others {
			if registry[name].Detect(src) {
				t.Errorf("%s claims the %s file", name, what)
			}
		}
	}
	for _, ex := range peerExamples {
		src := readTestdata(t, ex.file)
		for _, name := range []string{MCPChecker, MCPTest, MCPTef} {
			if got := registry[name].Detect(src); got != (name == ex.format) {
				t.Errorf("%s.Detect(%s) = %v", name, ex.file, got)
			}
		}
	}
}
