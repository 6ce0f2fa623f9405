package taskformat

import (
	"testing"
)

// TestMCPTestWriteLosses: an intent is a request and the tools that count as right: ids, tags,
// rejected tools and arguments are reported, a case needing all of several calls keeps the
// first, and a case expecting no tool is left out.
func TestMCPTestWriteLosses(t *testing.T) {
	args := mustValue(t, `{"book_id": "b-1"}`)
	tests := []struct {
		name    string
		c       Case
		want    []string
		intents int
	}{
		{"carried whole", Case{Query: "q", Expect: []Call{{Tool: "x"}}}, []string{"catalog_path"}, 1},
		{"any of", Case{Query: "q", AnyOf: true, Expect: []Call{{Tool: "x"}, {Tool: "y"}}}, []string{"catalog_path"}, 1},
		{"all of", Case{Query: "q", Expect: []Call{{Tool: "x"}, {Tool: "y"}}}, []string{"expect", "catalog_path"}, 1},
		{"none", Case{Query: "q", None: true}, []string{"expect", "catalog_path"}, 0},
		{"nothing expected", Case{Query: "q"}, []string{"expect", "catalog_path"}, 0},
		{"id, reject, tags, args", Case{ID: "a", Query: "q", Expect: []Call{{Tool: "x", Args: args}}, Reject: []string{"y"}, Tags: []string{"t"}},
			[]string{"expect[0].args", "id", "reject", "tags", "catalog_path"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := checkWriteLosses(t, mcptest{}, tt.c, tt.want)
			back, _, err := mcptest{}.Read(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(back) != tt.intents {
				t.Errorf("%d intents written, want %d:\n%s", len(back), tt.intents, out)
			}
		})
	}
}

// TestMCPTestRead: gold tools become alternatives; the catalog, mutations and unknown members
// are reported; a spec without what tool-bench needs is refused, saying what is missing.
func TestMCPTestRead(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // loss fields
		expect    string   // the first case, as parts shows it
		err       string
	}{
		{"one gold", "catalog_path: t.json\nintents:\n  - query: q\n    gold: [x]\n", []string{"catalog_path"}, "expect=[x] reject=[] none=false", ""},
		{"several gold", "catalog: {tools: []}\nintents:\n  - query: q\n    gold: [x, y]\n", []string{"catalog"}, "expect=[x y] reject=[] anyOf none=false", ""},
		{"json spec", `{"catalog_path": "tools.json", "intents": [{"query": "q", "gold": ["x"]}]}`, nil, "expect=[x] reject=[] none=false", ""},
		{"extras", "catalog_path: tools.json\nseed: 3\nmutations: [{tool: x, kind: blank}]\nintents:\n  - query: q\n    gold: [x]\n    weight: 2\n",
			[]string{"mutations", "seed", "weight"}, "expect=[x] reject=[] none=false", ""},
		{"no gold", "intents:\n  - query: q\n", nil, "", "no gold tools"},
		{"no query", "intents:\n  - gold: [x]\n", nil, "", "no query"},
		{"gold not a list", "intents:\n  - query: q\n    gold: 3\n", nil, "", "tool-bench spec"},
		{"two documents", "intents: []\n---\nintents: []\n", nil, "", "2 YAML documents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRead(t, mcptest{}, tt.src, tt.err, tt.want, tt.expect)
		})
	}
}
