package taskformat

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// examples are the files we wrote in our own words from each format's documented examples,
// at testdata/<format>/<name>. Their conversions are golden files at
// testdata/golden/<format>/<name>.<target>: the written file, then every loss.
var examples = []struct {
	format, file string
	// statuses are the ranker's verdicts on the file's tasks against testdata/listing.json.
	statuses []selection.Status
}{
	{Workbench, "workbench/library.json", []selection.Status{selection.Clear, selection.Clear, selection.Clear, selection.NoneClear}},
	{MCPJam, "mcpjam/suite.yaml", []selection.Status{selection.Clear, selection.Clear, selection.NoneClear, selection.Clear}},
	// get_forecast shares no word with the first query, which fines_pay wins; the second
	// expects two calls, its task keeps book_hotel, and search_flights ties with it.
	{MCPJam, "mcpjam/legacy-tests.json", []selection.Status{selection.Wrong, selection.Close}},
	{Promptfoo, "promptfoo/promptfooconfig.yaml", []selection.Status{selection.Clear, selection.Close, selection.Wrong, selection.NoneClear}},
	{Promptfoo, "promptfoo/mcp-routing.yaml", []selection.Status{selection.Clear, selection.NoneClear}},
	{MCPChecker, "mcpchecker/library.yaml", []selection.Status{selection.Clear, selection.Clear, selection.NoneClear}},
	{MCPTest, "mcptest/library.yaml", []selection.Status{selection.Clear, selection.Clear}},
	// The second case expects two calls; its task keeps the first, loans_list, which the
	// request's closing words ("pay the fines") lose to fines_pay.
	{MCPTef, "mcptef/library.json", []selection.Status{selection.Clear, selection.Wrong, selection.NoneClear}},
	{MCPTef, "mcptef/single-v003.json", []selection.Status{selection.Clear}},
}

// carries says what of a case a format's file keeps, besides the query and the first expected
// tool (or none): the ids and titles each format spells its own way are in the goldens.
type carries struct {
	args, reject, tags bool
	allOf, anyOf       bool // several expected calls, all of them or any one
	emptyIsNone        bool // a case expecting nothing is written as one expecting no tool
	needsTool          bool // a case expecting no tool, or nothing, is left out
}

var carried = map[string]carries{
	Workbench:  {args: true, reject: true, tags: true, anyOf: true, emptyIsNone: true},
	MCPJam:     {args: true, reject: true, allOf: true},
	Promptfoo:  {args: true, reject: true, tags: true, allOf: true, anyOf: true},
	MCPChecker: {reject: true, tags: true, allOf: true, anyOf: true},
	MCPTest:    {anyOf: true, needsTool: true},
	MCPTef:     {args: true, allOf: true, emptyIsNone: true},
}

// project keeps of cases what the format carries, in a form both sides of a comparison share.
func project(cases []Case, format string) []Case {
	k := carried[format]
	out := []Case{}
	for _, c := range cases {
		p := Case{Query: c.Query, None: c.None || k.emptyIsNone && len(c.Expect) == 0}
		if k.needsTool && (c.None || len(c.Expect) == 0) {
			continue
		}
		expect := c.Expect
		if len(expect) > 1 && (c.AnyOf && !k.anyOf || !c.AnyOf && !k.allOf) {
			expect = expect[:1]
		}
		p.AnyOf = c.AnyOf && len(expect) > 1
		for _, e := range expect {
			if !k.args || e.Args == nil || e.Args.Kind != listing.Object || len(e.Args.Members) == 0 {
				e.Args = nil
			}
			p.Expect = append(p.Expect, e)
		}
		if k.reject {
			p.Reject = c.Reject
		}
		if k.tags && len(c.Tags) > 0 {
			p.Tags = slices.Sorted(slices.Values(c.Tags))
		}
		out = append(out, p)
	}
	return out
}

func conversionText(res Result) []byte {
	var b bytes.Buffer
	b.Write(res.Out)
	fmt.Fprintf(&b, "--- %s to %s: %d cases\n%s", res.From, res.To, res.Cases, lossLines("losses", res.Losses))
	return b.Bytes()
}

// TestExamples converts every format's examples to every format: each is detected as exactly
// its own format, each conversion's output and losses are golden, the output is detected as
// its writer's format (no other claims it), reads back to the same cases where the target
// carries them, and writes again to the same bytes. Written in its own format, an example
// reads back to the cases it read as.
func TestExamples(t *testing.T) {
	for _, ex := range examples {
		src := readTestdata(t, ex.file)
		if d, err := DetectFormat(src); err != nil || d.Name() != ex.format {
			t.Errorf("%s: DetectFormat = %v, %v; want %s", ex.file, d, err, ex.format)
		}
		cases, _, err := registry[ex.format].Read(src)
		if err != nil {
			t.Fatalf("%s: %v", ex.file, err)
		}
		for _, to := range Names() {
			t.Run(ex.file+"->"+to, func(t *testing.T) {
				res, err := Convert(src, "", to)
				if err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, path.Join("testdata", "golden", ex.format, path.Base(ex.file)+"."+to), conversionText(res))
				if d, err := DetectFormat(res.Out); err != nil || d.Name() != to {
					t.Errorf("DetectFormat(what %s wrote) = %v, %v", to, d, err)
				}
				f := registry[to]
				back, _, err := f.Read(res.Out)
				if err != nil {
					t.Fatalf("reading what %s wrote: %v\n%s", to, err, res.Out)
				}
				if got, want := casesJSON(t, project(back, to)), casesJSON(t, project(cases, to)); got != want {
					t.Errorf("read back as\n%s\nwant\n%s", got, want)
				}
				// From the second write on, the file is stable. (Not from the first: MCPJam names
				// a case without an id c_N and titles it by its query, and c_N then reads back
				// as its id, which titles it the second time.)
				again := rewrite(t, f, res.Out)
				if twice := rewrite(t, f, again); !bytes.Equal(again, twice) {
					t.Errorf("the file changes on each trip:\n%s\nthen\n%s", again, twice)
				}
				if to != ex.format {
					return
				}
				want := cases
				if to == MCPJam {
					want = jamCarried(cases)
				}
				if got, want := casesJSON(t, back), casesJSON(t, want); got != want {
					t.Errorf("written in its own format, it reads back as\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// rewrite reads a file and writes what it read, in the same format.
func rewrite(t *testing.T, f Format, src []byte) []byte {
	t.Helper()
	cases, _, err := f.Read(src)
	if err != nil {
		t.Fatalf("reading what %s wrote: %v\n%s", f.Name(), err, src)
	}
	out, _, err := f.Write(cases)
	if err != nil {
		t.Fatalf("writing again what %s read: %v", f.Name(), err)
	}
	return out
}

// jamCarried is what an MCPJam suite file can say of cases: ids (written for cases without
// one), one alternative of an any-of, no tags.
func jamCarried(cs []Case) []Case {
	out := make([]Case, len(cs))
	for i, c := range cs {
		if c.ID == "" {
			c.ID = fmt.Sprintf("c_%d", i+1)
		}
		if c.AnyOf {
			c.Expect, c.AnyOf = c.Expect[:1], false
		}
		c.Tags = nil
		out[i] = c
	}
	return out
}

// TestExamplesThroughWorkbench imports each example as the workbench's tasks, ranks them
// against the small listing, and exports the tasks back to the example's format: what both
// the format and the task file carry comes back, names included where the format keeps one.
func TestExamplesThroughWorkbench(t *testing.T) {
	l, err := listing.Parse(readTestdata(t, "listing.json"), listing.Options{Name: "listing.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
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
			imported := FromTasks(tasks)
			out, wl, err := f.Write(imported)
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := f.Read(out)
			if err != nil {
				t.Fatalf("reading the export: %v\n%s", err, out)
			}
			both := project(project(cases, Workbench), ex.format)
			if got, want := casesJSON(t, project(back, ex.format)), casesJSON(t, both); got != want {
				t.Errorf("exported back as\n%s\nwant\n%s", got, want)
			}
			if ex.format == MCPTest {
				return // an intent has no name
			}
			renamed := map[int]bool{}
			for _, l := range wl {
				renamed[l.Case] = renamed[l.Case] || l.Field == "id"
			}
			for i := range back {
				if !renamed[i] && caseLabel(back[i]) != caseLabel(imported[i]) && imported[i].ID != "" {
					t.Errorf("case %d came back named %q, want %q", i+1, caseLabel(back[i]), caseLabel(imported[i]))
				}
			}
		})
	}
}

// TestDetectNarrow: files of none of the formats, or of a neighbour's shape, are claimed by no
// format, and a small file of each format's shape by it alone; the examples and every
// format's output are checked in TestExamples.
func TestDetectNarrow(t *testing.T) {
	tests := []struct{ what, src, want string }{
		{"empty array: the workbench's empty task file", ` [ ] `, "workbench"},
		{"workbench, a later task malformed: ParseTasks names it", `[{"task": "a", "expect": "b"}, 7]`, "workbench"},
		{"empty object", `{}`, ""},
		{"camelCase json", `[{"query": "Renew my loan", "expectedToolCalls": "loans_renew"}]`, ""},
		{"yaml tests", "tests:\n  - vars:\n      query: Renew my loan\n", ""},
		{"k8s object", "kind: Pod\napiVersion: v1\nmetadata:\n  name: web\n", ""},
		{"other eval", "kind: Eval\napiVersion: other/v1\nconfig:\n  taskSets: []\n", ""},
		{"intents only", "intents:\n  - query: q\n    gold: [x]\n", ""},
		{"tef, no query", `{"name": "n", "expected_tool_calls": []}`, ""},
		{"suite, no mode", "schemaVersion: \"1\"\ncases: []\n", ""},
		{"listing", string(readTestdata(t, "listing.json")), ""},
		{"one task", `[{"task": "Renew my loan", "expect": "loans_renew"}]`, Workbench},
		{"legacy tests", `[{"query": "Renew my loan", "expectedToolCalls": ["loans_renew"]}]`, MCPJam},
		{"promptfoo tests", "prompts: ['{{query}}']\ntests:\n  - vars: {query: Renew my loan}\n", Promptfoo},
		{"legacy task", "kind: Task\nmetadata: {name: t}\nsteps: {prompt: {inline: q}}\n", MCPChecker},
		{"tool-bench spec", "catalog_path: t.json\nintents: []\n", MCPTest},
		{"tef page", `{"items": [{"query": "q", "expected_tool_calls": []}], "total": 1}`, MCPTef},
	}
	for _, tt := range tests {
		f, err := DetectFormat([]byte(tt.src))
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s claims the %s file", f.Name(), tt.what)
		case tt.want != "" && (err != nil || f.Name() != tt.want):
			t.Errorf("the %s file: DetectFormat = %v, %v; want %s", tt.what, f, err, tt.want)
		}
	}
}

// TestReadCasesRefusesNothing: another tool's file that holds no test case (an mcpchecker Eval
// without its Tasks) is refused, not converted to an empty task file that an import would put
// in place of a workspace's tasks; the workbench's own empty file converts.
func TestReadCasesRefusesNothing(t *testing.T) {
	tests := []struct {
		from, src, wantErr string
	}{
		{MCPChecker, "kind: Eval\napiVersion: mcpchecker/v1alpha2\nmetadata:\n  name: e\nconfig:\n  taskSets:\n    - glob: tasks/*.yaml\n", "found no test case"},
		{Workbench, "[]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			_, err := Convert([]byte(tt.src), tt.from, Workbench)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Convert: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Convert: %v; want an error saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestYAMLWriteBounded: the YAML formats write up to their bound and refuse past it, saying how
// to split the tasks.
func TestYAMLWriteBounded(t *testing.T) {
	tests := []struct {
		f   Format
		max int
	}{{mcpchecker{}, maxMCPCheckerWrite}, {mcptest{}, maxYAMLWrite}, {promptfoo{}, maxYAMLWrite}}
	for _, tt := range tests {
		t.Run(tt.f.Name(), func(t *testing.T) {
			cases := make([]Case, tt.max+1)
			for i := range cases {
				cases[i] = Case{ID: fmt.Sprintf("t%d", i), Query: "q", Expect: []Call{{Tool: "x"}}}
			}
			if _, _, err := tt.f.Write(cases); err == nil || !strings.Contains(err.Error(), "split the tasks") {
				t.Fatalf("writing %d cases: %v; want a refusal saying to split them", len(cases), err)
			}
			if _, _, err := tt.f.Write(cases[:10]); err != nil {
				t.Fatalf("writing 10 cases: %v", err)
			}
		})
	}
}
