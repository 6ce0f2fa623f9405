package lint

import (
	"testing"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// allFindings is what check reports for l without tasks: the reference's findings, then the
// extended rules'.
func allFindings(t testing.TB, l *listing.Listing) []Finding {
	t.Helper()
	lt := New(Config{})
	fs := lt.ReferenceFindings(l, reference.Lint(l))
	return append(fs, lt.Lint(l)...)
}

func parseListing(t testing.TB, src string) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(src), listing.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return l
}

// repairCase is one repair table test: the listing before, the rule (and variant title, when
// a finding has several repairs), and the listing after its repairs, compact.
type repairCase struct {
	name, rule, before, after string
	kind                      FixKind
	renames                   []Rename
}

// runRepairCases applies, for each case, every repair of its rule to the listing and compares
// the result, and checks that the repairs' kind and renames are as declared.
func runRepairCases(t *testing.T, cases []repairCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := parseListing(t, c.before)
			var got []Repair
			for _, r := range Repairs(l, allFindings(t, l)) {
				if r.Rule == c.rule {
					got = append(got, r)
				}
			}
			cur := l
			var renames []Rename
			for _, r := range got {
				if r.Kind != c.kind {
					t.Errorf("repair %s is %s, want %s", r.Title, r.Kind, c.kind)
				}
				next, err := cur.ApplyAll(r.Ops)
				if err != nil {
					t.Fatalf("apply %s: %v", r.Title, err)
				}
				cur = next
				renames = append(renames, r.Renames...)
			}
			// The expected text is parsed and encoded too: the encoder writes characters that
			// the cases spell as escapes.
			if out, want := string(cur.Marshal("")), string(parseListing(t, c.after).Marshal("")); out != want {
				t.Errorf("after the %d repair(s):\n got %s\nwant %s", len(got), out, want)
			}
			if len(renames) != len(c.renames) {
				t.Fatalf("renames %v, want %v", renames, c.renames)
			}
			for i := range renames {
				if renames[i] != c.renames[i] {
					t.Errorf("rename %d is %v, want %v", i, renames[i], c.renames[i])
				}
			}
		})
	}
}

func TestRepairText(t *testing.T) {
	runRepairCases(t, []repairCase{
		{name: "hidden in the description", rule: "hidden-unicode", kind: FixSafe,
			before: `{"tools":[{"name":"add","description":"Adds two\u200b numbers.\u202e \udb40\udc49","inputSchema":{"type":"object"}}]}`,
			after:  `{"tools":[{"name":"add","description":"Adds two numbers. ","inputSchema":{"type":"object"}}]}`},
		{name: "hidden in a parameter's title", rule: "hidden-unicode", kind: FixSafe,
			before: `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number","title":"A\u2060"}}}}]}`,
			after:  `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number","title":"A"}}}}]}`},
		{name: "hidden in an enum value is left", rule: "hidden-unicode", kind: FixSafe,
			before: `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"enum":["x\u200b"]}}}}]}`,
			after:  `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"enum":["x\u200b"]}}}}]}`},
		{name: "hidden in a key is left", rule: "hidden-unicode", kind: FixSafe,
			before: `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a\u200b":{"type":"string"}}}}]}`,
			after:  `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a\u200b":{"type":"string"}}}}]}`},
		{name: "hidden in a default object's description is left", rule: "hidden-unicode", kind: FixSafe,
			before: `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"default":{"description":"x\u200b"}}}}}]}`,
			after:  `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"default":{"description":"x\u200b"}}}}}]}`},
		{name: "whitespace around the description and a title", rule: "description-whitespace", kind: FixSafe,
			before: `{"tools":[{"name":"add","title":" Add\n","description":"\n  Adds two numbers.  \n","inputSchema":{"type":"object"}}]}`,
			after:  `{"tools":[{"name":"add","title":"Add","description":"Adds two numbers.","inputSchema":{"type":"object"}}]}`},
		{name: "whitespace in a parameter description", rule: "description-whitespace", kind: FixSafe,
			before: `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first. "}},"required":[]}}]}`,
			after:  `{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first."}},"required":[]}}]}`},
	})
}
